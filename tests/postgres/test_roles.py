"""Roles from the database: reviewers write their own rows, only leads approve; blind judgements stay blind."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest
import sqlalchemy.exc
from every_kind import Builder
from sqlalchemy import text

from core.agreement.session import commit_judgement, create_session, next_item
from core.cli import main
from core.decisions.service import DecisionRequest, decide
from core.domain.labels import LabelText
from core.labels.service import adjudicate as adjudicate_label
from core.labels.service import save_label
from core.store.engine import Store, open_store
from core.store.review_repo import ReviewRepository
from core.team.roles import add_reviewer, may_export


def as_login(url: str, login: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, f"{login}@", parts.path, parts.query, ""))


@pytest.fixture()
def team(pg_server) -> Iterator[dict[str, object]]:  # type: ignore[no-untyped-def]
    """A store set up by its owner: rules, a complete run, a blind session; logins rita, rob (reviewers), leo (lead)."""
    url = pg_server.new_database()
    owner = open_store(url)
    b = Builder(owner)
    b.trajectories("F-1", "F-2", "F-3")
    b.trajectories("S-1", success=True)
    rule = b.rule("c/r1.yaml", "when git push is rejected", "pull --rebase then push")
    run = b.run([(rule, "pass", {"prevented": ["F-1", "F-2"], "missed": ["F-3"]})])
    session = create_session(owner, run, "leo", size=3, seed=1)
    owner.close()
    for name, lead in (("rita", False), ("rob", False), ("leo", True)):
        add_reviewer(url, name, lead=lead)
    yield {"url": url, "rule": rule, "run": run, "session": session.id, "pks": b.pks}
    pg_server.drop(url)


def _open(team: dict[str, object], login: str) -> Store:
    return open_store(as_login(str(team["url"]), login))


def test_a_reviewer_cannot_approve_a_promotion(team: dict[str, object]) -> None:
    rita = _open(team, "rita")
    with pytest.raises(sqlalchemy.exc.ProgrammingError, match="row-level security|permission denied"):
        decide(rita, DecisionRequest("approve", "rita", int(team["rule"]), int(team["run"]), reason="looks good"))  # type: ignore[call-overload]
    with rita.read_session() as session:
        assert session.execute(text("SELECT count(*) FROM promotion")).scalar_one() == 0
        assert may_export(session.connection()) is False
    rita.close()


def test_a_lead_can_approve(team: dict[str, object]) -> None:
    leo = _open(team, "leo")
    outcome = decide(leo, DecisionRequest("approve", "leo", int(team["rule"]), int(team["run"]), reason="prevents both"))  # type: ignore[call-overload]
    assert outcome.promotion is not None and outcome.promotion.status == "active"
    leo.close()


def test_a_reviewer_writes_labels_only_in_their_own_name(team: dict[str, object]) -> None:
    rita = _open(team, "rita")
    pk = dict(team["pks"])["F-1"]  # type: ignore[call-overload]
    save_label(rita, pk, "rita", LabelText("when push is rejected", "pull first"))
    with pytest.raises(sqlalchemy.exc.ProgrammingError, match="row-level security"):
        save_label(rita, pk, "rob", LabelText("when push is rejected", "rob's words"))
    with pytest.raises(sqlalchemy.exc.ProgrammingError, match="row-level security|permission denied"):
        adjudicate_label(rita, pk, "rita", LabelText("x", "y"), "I decide")  # leads only
    rita.close()


def test_another_reviewers_blind_judgement_is_invisible_until_you_commit_yours(team: dict[str, object]) -> None:
    rita, rob, leo = _open(team, "rita"), _open(team, "rob"), _open(team, "leo")
    item = next_item(rita, int(team["session"]), "rita")  # type: ignore[call-overload]
    assert item is not None
    commit_judgement(rita, item.item_id, "rita", "cant_tell")

    def visible(store: Store) -> list[str]:
        with store.read_session() as session:
            return [str(r[0]) for r in session.execute(text(
                "SELECT reviewer FROM agreement_judgement WHERE item_id = :i ORDER BY reviewer"), {"i": item.item_id})]

    assert visible(rob) == []  # rob has not judged this item: rita's answer is hidden from him
    assert visible(leo) == ["rita"]  # a lead sees every judgement
    commit_judgement(rob, item.item_id, "rob", "cant_tell")
    assert visible(rob) == ["rita", "rob"]  # once rob has committed, both are visible to him
    for store in (rita, rob, leo):
        store.close()


def test_a_reviewer_cannot_record_evidence_views_for_someone_else(team: dict[str, object]) -> None:
    rita = _open(team, "rita")
    pk = dict(team["pks"])["F-1"]  # type: ignore[call-overload]
    with pytest.raises(sqlalchemy.exc.ProgrammingError, match="row-level security"):
        ReviewRepository(rita).record_view("rob", 1, pk)
    rita.close()


def test_team_add_reviewer_command(pg_server, capsys) -> None:  # type: ignore[no-untyped-def]
    url = pg_server.new_database()
    assert main(["team", "add-reviewer", "nora", "--store", url]) == 0
    assert "created login nora as reviewer" in capsys.readouterr().out
    assert main(["team", "add-reviewer", "nora; DROP TABLE rule", "--store", url]) == 1
    assert add_reviewer(url, "nora", lead=True) is False  # promoted to lead, not created twice
    pg_server.drop(url)


def test_only_a_lead_exports_the_rule_store(team: dict[str, object], tmp_path) -> None:  # type: ignore[no-untyped-def]
    from core.export.rule_store import RuleStoreExportError, export_rule_store

    rita, leo = _open(team, "rita"), _open(team, "leo")
    with pytest.raises(RuleStoreExportError, match="only a lead"):
        export_rule_store(rita, tmp_path / "by-rita")
    assert not (tmp_path / "by-rita").exists()
    export_rule_store(leo, tmp_path / "by-leo")
    assert (tmp_path / "by-leo").is_dir()
    rita.close()
    leo.close()


def test_a_team_store_names_its_reviewer_by_login(team: dict[str, object], tmp_path) -> None:  # type: ignore[no-untyped-def]
    rita = _open(team, "rita")
    assert rita.login() == "rita"
    rita.close()
    sqlite_store = open_store(tmp_path / "solo.sqlite")
    assert sqlite_store.login() is None
    sqlite_store.close()
