"""Red team: a copy or a check under a login that cannot read everything says so, or refuses."""

from __future__ import annotations

import pytest
from red_team import TeamStore, team_store  # noqa: F401  (fixture)

from core.store.engine import open_store
from core.team.store_check import check_store
from core.team.store_copy import StoreCopyError, copy_store


def test_a_reviewers_copy_is_refused_naming_the_partial_tables(team_store: TeamStore, tmp_path) -> None:  # type: ignore[no-untyped-def]
    partial = r"agreement_assignment \(seen 2 of 4 rows\); agreement_judgement \(seen 1 of 2 rows\)"
    with pytest.raises(StoreCopyError, match=partial):
        copy_store(team_store.login("bo"), tmp_path / "copy.sqlite")
    store = open_store(tmp_path / "copy.sqlite")
    with store.read_session() as session:
        assert session.connection().exec_driver_sql("SELECT count(*) FROM rule").scalar_one() == 0
    store.close()


def test_a_leads_copy_is_whole(team_store: TeamStore, tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert copy_store(team_store.login("lena"), tmp_path / "copy.sqlite").verified


def test_a_reviewers_check_names_what_it_could_not_see(team_store: TeamStore) -> None:
    store = open_store(team_store.login("bo"))
    visibility = next(r for r in check_store(store) if r.name == "visibility")
    store.close()
    assert not visibility.ok
    assert "agreement_judgement (seen 1 of 2 rows)" in visibility.detail


def test_a_leads_check_sees_every_row(team_store: TeamStore) -> None:
    store = open_store(team_store.login("lena"))
    results = check_store(store)
    store.close()
    assert all(r.ok for r in results), [r for r in results if not r.ok]
