"""Duplicate rules (same trigger and directive) are one row of the rules table, grouped in SQL:
paging, sorting and filtering count groups, and a group's members are read on demand."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from core.importing import import_paths
from core.replay.profiles import WORKBENCH
from core.replaying import materialise_expected_rules, run_replay
from core.rule_duplicates import store_duplicate_groups
from core.store.engine import Store, open_store
from core.store.result_repo import ResultRepository
from core.store.workspace_query import WorkspaceFilter, WorkspaceScope

SCOPE = WorkspaceScope()


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory, demo_corpus: Path) -> Path:
    """The demo corpus plus three copies of one failure (one expected_rule sentence) and one
    copy of another failure: two groups of duplicates among the demo's own rules."""
    root = tmp_path_factory.mktemp("groups")
    path = root / "s.sqlite"
    _build(path, root, demo_corpus)
    return path


def _build(location: Path | str, root: Path, demo_corpus: Path) -> None:
    lines = (demo_corpus / "failures" / "api.jsonl").read_text(encoding="utf-8").splitlines()
    first, second = json.loads(lines[0]), json.loads(lines[1])
    assert first.get("expected_rule") and second.get("expected_rule")
    copies = [dict(first, trajectory_id=f"DUPX-{i}", id=f"DUPX-{i}") for i in range(3)]
    copies.append(dict(second, trajectory_id="DUPX-B", id="DUPX-B"))
    folder = root / "extra" / "failures"
    folder.mkdir(parents=True)
    (folder / "copies.jsonl").write_text("\n".join(json.dumps(c) for c in copies) + "\n", encoding="utf-8")
    store = open_store(location)
    try:
        import_paths(store, [demo_corpus, root / "extra"])
        materialise_expected_rules(store)
        run_replay(store, WORKBENCH.with_(semantic=False), scope="test")
    finally:
        store.close()


@pytest.fixture()
def store(store_path: Path) -> Iterator[Store]:
    opened = open_store(store_path)
    yield opened
    opened.close()


def _all_group_rows(repo: ResultRepository, flt: WorkspaceFilter = WorkspaceFilter(), **order: object) -> list:
    page = repo.page_groups(SCOPE, flt, order_by=str(order.get("order_by", "rule")),
                            descending=bool(order.get("descending", False)), limit=10_000)
    return page.rows


def test_each_group_of_duplicates_is_one_row_with_its_size(store: Store) -> None:
    repo = ResultRepository(store)
    expected = {tuple(m) for m in store_duplicate_groups(store).values()}
    page = repo.page_groups(SCOPE, WorkspaceFilter(), limit=10_000)
    rules = repo.page(SCOPE, WorkspaceFilter(), limit=10_000)
    assert len(expected) >= 2
    assert page.rules == rules.total
    assert page.total == rules.total - sum(len(m) - 1 for m in expected) == len(page.rows)
    grouped = [r for r in page.rows if r.group_size > 1]
    members = repo.group_members(SCOPE, WorkspaceFilter(), [r.group_key for r in grouped])
    assert {tuple(sorted(m.rule_id for m in members[r.group_key])) for r in grouped} == expected
    assert all(len(members[r.group_key]) == r.group_size for r in grouped)


def test_small_pages_add_up_to_every_rule_exactly_once(store: Store) -> None:
    repo = ResultRepository(store)
    whole = repo.page_groups(SCOPE, WorkspaceFilter(), order_by="trigger", limit=10_000)
    paged = []
    for offset in range(0, whole.total, 3):
        page = repo.page_groups(SCOPE, WorkspaceFilter(), order_by="trigger", offset=offset, limit=3)
        assert (page.total, page.rules) == (whole.total, whole.rules)
        # Group rows only: a page of 3 is 3 rows however many rules its groups hold.
        assert len(page.rows) == min(3, whole.total - offset)
        paged += page.rows
    assert [r.rule_id for r in paged] == [r.rule_id for r in whole.rows]
    members = repo.group_members(SCOPE, WorkspaceFilter(), [r.group_key for r in paged], order_by="trigger")
    every = sorted(m.rule_id for ms in members.values() for m in ms)
    assert every == sorted(r.rule_id for r in repo.page(SCOPE, WorkspaceFilter(), limit=10_000).rows)


def test_a_group_row_is_its_first_member_in_the_sort_order(store: Store) -> None:
    repo = ResultRepository(store)
    for descending in (False, True):
        rows = _all_group_rows(repo, order_by="rule", descending=descending)
        ids = [r.rule_id for r in rows]
        assert ids == sorted(ids, reverse=descending)
        grouped = [r for r in rows if r.group_size > 1]
        members = repo.group_members(SCOPE, WorkspaceFilter(), [r.group_key for r in grouped],
                                     order_by="rule", descending=descending)
        for row in grouped:
            assert members[row.group_key][0].rule_id == row.rule_id
            pick = min if not descending else max
            assert row.rule_id == pick(m.rule_id for m in members[row.group_key])


def test_a_filter_applies_to_the_members_before_they_are_grouped(store: Store) -> None:
    repo = ResultRepository(store)
    flt = WorkspaceFilter(text="DUPX-")  # the source trajectory ids of the copies only
    page = repo.page_groups(SCOPE, flt, limit=10_000)
    # Three copies of one sentence (its original is filtered out), one copy of another.
    assert (page.rules, page.total) == (4, 2)
    assert sorted(r.group_size for r in page.rows) == [1, 3]
    unfiltered = {r.group_key: r.group_size for r in _all_group_rows(repo)}
    assert all(unfiltered[r.group_key] == r.group_size + 1 for r in page.rows)


def test_the_group_of_a_rule_is_read_whole_in_the_table_order(store: Store) -> None:
    repo = ResultRepository(store)
    row = max(_all_group_rows(repo, order_by="trigger"), key=lambda r: r.group_size)
    members = repo.group_members(SCOPE, WorkspaceFilter(), [row.group_key], order_by="trigger")[row.group_key]
    found = repo.rule_group(SCOPE, WorkspaceFilter(), members[-1].rule_id, order_by="trigger")
    assert found is not None
    assert found[0] == row.group_key and [m.rule_id for m in found[1]] == [m.rule_id for m in members]


def test_the_group_of_a_rule_the_filter_hides_is_none_and_a_filter_keeps_only_matching_members(
        store: Store) -> None:
    repo = ResultRepository(store)
    row = max(_all_group_rows(repo), key=lambda r: r.group_size)  # the sentence and its 3 copies
    members = repo.group_members(SCOPE, WorkspaceFilter(), [row.group_key])[row.group_key]
    copy = next(m for m in members if m.source_trajectory == "DUPX-1")
    only = WorkspaceFilter(text="DUPX-1")
    assert repo.rule_group(SCOPE, only, members[0].rule_id if members[0] is not copy else members[1].rule_id) is None
    found = repo.rule_group(SCOPE, only, copy.rule_id)
    assert found is not None and [m.rule_id for m in found[1]] == [copy.rule_id]
    page = repo.page_groups(SCOPE, only, limit=10)
    assert [(r.rule_id, r.group_size) for r in page.rows] == [(copy.rule_id, 1)]


def test_group_rows_members_and_a_rules_group_agree_on_each_backend(
        store_location: Path | str, tmp_path: Path, demo_corpus: Path) -> None:
    _build(store_location, tmp_path, demo_corpus)
    store = open_store(store_location)
    try:
        repo = ResultRepository(store)
        page = repo.page_groups(SCOPE, WorkspaceFilter(), order_by="status", limit=10_000)
        assert len(page.rows) == page.total < page.rules  # group rows only
        grouped = [r for r in page.rows if r.group_size > 1]
        members = repo.group_members(SCOPE, WorkspaceFilter(), [r.group_key for r in grouped], order_by="status")
        assert [len(members[r.group_key]) for r in grouped] == [r.group_size for r in grouped]
        assert page.rules == len(page.rows) + sum(r.group_size - 1 for r in grouped)
        last = members[grouped[0].group_key][-1]
        found = repo.rule_group(SCOPE, WorkspaceFilter(), last.rule_id, order_by="status")
        assert found is not None and [m.rule_id for m in found[1]] == [m.rule_id for m in members[found[0]]]
    finally:
        store.close()


def test_hidden_rules_sort_last_and_match_no_verdict_on_each_backend(
        store_location: Path | str, tmp_path: Path, demo_corpus: Path) -> None:
    """A rule whose replay answer is hidden (``WorkspaceFilter.hidden``: the reviewer's blind
    session) sorts after the others by rule id when the order is a replay column, in every read
    of the rules table, and matches no verdict filter."""
    _build(store_location, tmp_path, demo_corpus)
    store = open_store(store_location)
    try:
        repo = ResultRepository(store)
        every = repo.list_rules(SCOPE, WorkspaceFilter(), order_by="verdict", limit=10_000)
        common = max({r.verdict for r in every}, key=[r.verdict for r in every].count)
        hidden_rules = [r for r in every if r.verdict == common][:2] + every[-1:]
        flt = WorkspaceFilter(hidden=frozenset(r.origin for r in hidden_rules))
        tail = sorted(r.rule_id for r in hidden_rules)
        for descending in (False, True):
            plain = repo.list_rules(SCOPE, flt, order_by="verdict", descending=descending, limit=10_000)
            paged = repo.page(SCOPE, flt, order_by="broken", descending=descending, limit=10_000).rows
            groups = repo.page_groups(SCOPE, flt, order_by="precision", descending=descending, limit=10_000).rows
            assert [r.rule_id for r in plain[-len(tail):]] == tail
            assert [r.rule_id for r in paged[-len(tail):]] == tail
            flags = [r.origin in flt.hidden for r in groups]
            assert any(flags) and flags == sorted(flags)  # the hidden group rows come last
        matching = repo.page(SCOPE, replace(flt, verdict=common), limit=10_000).rows
        assert matching and not {r.origin for r in matching} & flt.hidden
    finally:
        store.close()


def test_a_verdict_only_hidden_rules_have_is_not_offered_as_a_filter(store: Store) -> None:
    """Choosing it would show no row, and so tell the hidden rules' verdict."""
    repo = ResultRepository(store)
    every = repo.list_rules(SCOPE, WorkspaceFilter(), limit=10_000)
    rare = min({r.verdict for r in every}, key=[r.verdict for r in every].count)
    hidden = frozenset(r.origin for r in every if r.verdict == rare)
    assert rare in repo.filter_options(SCOPE)["verdict"]
    offered = repo.filter_options(SCOPE, hidden)
    assert rare not in offered["verdict"] and offered["domain"] == repo.filter_options(SCOPE)["domain"]


def test_rules_for_replay_reads_what_the_rule_repository_reads(store: Store) -> None:
    from core.store.replay_repo import ReplayRepository
    from core.store.rule_repo import RuleRepository

    rules, plain = RuleRepository(store), ReplayRepository(store)
    every = rules.list_rules()
    some = [r.id for r in every[::3]]
    assert plain.rules_for_replay() == every
    assert plain.rules_for_replay(ids=some) == rules.list_rules(ids=some)
    assert plain.rules_for_replay(kinds=["expected_rule"]) == rules.list_rules(kinds=["expected_rule"])
    assert plain.rules_for_replay(kinds=["standing"]) == rules.list_rules(kinds=["standing"])
    assert plain.rules_for_replay(ids=[]) == []


def test_the_filter_choices_are_the_distinct_values_of_the_rules_in_scope(store: Store) -> None:
    """Read in one pass (not one query per combo): the same sets, each sorted."""
    repo = ResultRepository(store)
    every = repo.list_rules(SCOPE, WorkspaceFilter(), limit=10_000)
    expected = {key: sorted({str(getattr(r, key)) for r in every if getattr(r, key) is not None})
                for key in ("verdict", "reason", "domain", "corpus")}
    assert repo.filter_options(SCOPE) == expected
