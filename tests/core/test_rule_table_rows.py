"""The rules table's rows: each rule's effective decision and the reviewer's verdict mark, and
the counts that come with a page (on each back end)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.replay.types import PoolInfo, RuleResult
from core.store.engine import Store, open_store
from core.store.replay_repo import ReplayRepository
from core.store.result_repo import ResultRepository
from core.store.review_repo import ReviewRepository, write_decision
from core.store.rule_repo import NewRule, RuleRepository, RuleText
from core.store.workspace_query import WorkspaceFilter, WorkspaceScope

SCOPE = WorkspaceScope()


@pytest.fixture()
def two_rules(store_location: Path | str) -> Iterator[tuple[Store, dict[str, tuple[int, int, int]]]]:
    """Rules "a" and "b", each with one result in one complete run: name -> (rule, version, result)."""
    store = open_store(store_location)
    rules, replay = RuleRepository(store), ReplayRepository(store)
    versions: dict[str, int] = {}
    ids: dict[str, int] = {}
    for name in ("a", "b"):
        rule_id, _ = rules.upsert(NewRule(origin=f"{name}.yaml", kind="candidate",
                                          text=RuleText(f"when {name}", f"do {name}"), content_hash=name))
        ids[name] = rule_id
        versions[name] = rules.get(rule_id).latest.id  # type: ignore[union-attr]
    run_id = replay.start_run("workbench", {}, "cfg", "corpus", None, "off", None)
    pool = PoolInfo("all", 0, 0, False)
    results = [
        RuleResult(rule_key=name, verdict="inconclusive", reason="no_evidence", threshold=0.6, prevented=(),
                   broken=(), near_miss=(), missed=(), precision=None, precision_ci=None, recall=None,
                   recall_ci=None, recall_pool=pool, precision_pool=pool, outcomes=(), attribution=None)
        for name in ("a", "b")
    ]
    replay.save_results(run_id, results, {name: versions[name] for name in ("a", "b")})
    replay.finish_run(run_id, "complete", 0, 0.1)
    by_version = {r.rule_version_id: r.id for r in replay.results(run_id)}
    yield store, {name: (ids[name], versions[name], by_version[versions[name]]) for name in ("a", "b")}
    store.close()


def _decision_row(store: Store, rule_id: int, version_id: int, reviewer: str, action: str,
                  reason: str | None = None) -> None:
    """A decision row as the store holds it (these tests read rows back; the rules a decision
    must pass are ``core.decisions``' and tested there)."""
    with store.session() as session:
        write_decision(session, rule_id, version_id, None, reviewer, action, reason, None)


def test_the_status_is_the_newest_decision_no_undo_undid(two_rules: tuple[Store, dict[str, tuple[int, int, int]]]) -> None:
    store, rows = two_rules
    review = ReviewRepository(store)
    (a, a_version, _), (b, b_version, _) = rows["a"], rows["b"]
    _decision_row(store, a, a_version, "ana", "approve")
    _decision_row(store, b, b_version, "ana", "defer")
    _decision_row(store, a, a_version, "ana", "reject", "too broad")
    review.undo_last("ana")  # undoes the rejection: the approval is in effect again
    _decision_row(store, b, b_version, "bob", "reject", "wrong tool")
    review.undo_last("bob")  # undoes bob's rejection; ana's deferral stands
    page = ResultRepository(store).page(SCOPE, WorkspaceFilter(), "ana")
    status = {r.rule_id: (r.status, r.reviewer) for r in page.rows}
    assert status == {a: ("approve", "ana"), b: ("defer", "ana")}
    assert (page.total, page.unreviewed) == (2, 0)


def test_the_verdict_mark_is_this_reviewers_newest(two_rules: tuple[Store, dict[str, tuple[int, int, int]]]) -> None:
    store, rows = two_rules
    review = ReviewRepository(store)
    result_a = rows["a"][2]
    review.mark("ana", result_a, None, "inconclusive", "right")
    review.mark("ana", result_a, None, "inconclusive", "wrong")
    review.mark("bob", result_a, None, "inconclusive", "right")
    repo = ResultRepository(store)
    marks = {r.result_id: r.verdict_mark for r in repo.page(SCOPE, WorkspaceFilter(), "ana").rows}
    assert marks == {result_a: "wrong", rows["b"][2]: None}
    assert repo.rule_row(SCOPE, rows["a"][0], "bob").verdict_mark == "right"  # type: ignore[union-attr]


def test_a_page_past_the_end_still_counts_the_rows(two_rules: tuple[Store, dict[str, tuple[int, int, int]]]) -> None:
    store, rows = two_rules
    _decision_row(store, rows["a"][0], rows["a"][1], "ana", "approve")
    repo = ResultRepository(store)
    past = repo.page(SCOPE, WorkspaceFilter(), "ana", offset=5, limit=10)
    assert (past.total, past.unreviewed, past.rows) == (2, 1, [])
    approved = repo.page(SCOPE, WorkspaceFilter(status="approve"), "ana")
    assert [r.rule_id for r in approved.rows] == [rows["a"][0]] and approved.total == 1
    assert repo.page(SCOPE, WorkspaceFilter(status="unreviewed"), "ana").unreviewed == 1
