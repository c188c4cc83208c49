"""Reviewer actions are committed one by one, audited, and undone by new events."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.decisions import DecisionOutcome, DecisionRequest, decide, waive
from core.domain.errors import BrokenNotOpened, ReasonRequired
from core.replay.types import PairOutcome, PoolInfo, RuleResult
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store, open_store
from core.store.replay_repo import ReplayRepository
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import NewRule, RuleRepository, RuleText


@pytest.fixture()
def setup(store_location: Path | str) -> tuple[Store, int, int, int, int]:
    """A store with one rule, one replay result and one broken trajectory (on each back end)."""
    store = open_store(store_location)
    corpora = CorpusRepository(store)
    corpus_id = corpora.ensure_corpus("c", "extraction", "folder")
    file_id = corpora.upsert_file(corpus_id, "c/a.jsonl", "trajectories", "h", 1)
    corpora.apply_file_changes(
        file_id,
        [dict(corpus_id=corpus_id, line=1, end_line=1, trajectory_id="S-1", success=True, task="t",
              raw_text="{}", record_json="{}", content_hash="x")],
        [], [],
    )
    traj_pk = corpora.list_trajectories()[0].id
    rule_id, _ = RuleRepository(store).upsert(
        NewRule(origin="r.yaml", kind="candidate", text=RuleText("git push", "pull"), content_hash="h")
    )
    version_id = RuleRepository(store).get(rule_id).latest.id  # type: ignore[union-attr]
    replay = ReplayRepository(store)
    run_id = replay.start_run("workbench", {}, "cfg", "corpus", None, "off", None)
    pool = PoolInfo("all", 1, 0, False)
    result = RuleResult(
        rule_key="k", verdict="fail", reason="blocked_by_broken", threshold=0.6, prevented=(), broken=(traj_pk,),
        near_miss=(), missed=(), precision=0.0, precision_ci=(0.0, 0.79), recall=None, recall_ci=None,
        recall_pool=pool, precision_pool=pool,
        outcomes=(PairOutcome(traj_pk, "broken", 0.9, 0.9, 0.9, None, "haystack", None, 0.6, 0.3),),
        attribution=None,
    )
    replay.save_results(run_id, [result], {"k": version_id})
    replay.finish_run(run_id, "complete", 1, 0.1)
    result_id = replay.results(run_id)[0].id
    yield store, rule_id, version_id, result_id, traj_pk
    store.close()


def _approve(store: Store, rule_id: int) -> DecisionOutcome:
    # The setup's verdict is "fail": approving it is an override with a written reason.
    return decide(store, DecisionRequest("approve", "ana", rule_id, reason="checked the pairs by hand",
                                         override_verdict=True))


def test_approval_is_refused_until_broken_evidence_is_opened(setup: tuple[Store, int, int, int, int]) -> None:
    store, rule_id, _version_id, result_id, traj_pk = setup
    with pytest.raises(BrokenNotOpened, match="S-1"):
        _approve(store, rule_id)
    ReviewRepository(store).record_view("ana", result_id, traj_pk)
    assert _approve(store, rule_id).action == "approve"


def test_a_waiver_with_reason_allows_approval_and_is_audited(setup: tuple[Store, int, int, int, int]) -> None:
    store, rule_id, _version_id, result_id, traj_pk = setup
    assert waive(store, "ana", result_id, traj_pk, "  success is unrelated: different remote ") == \
        "success is unrelated: different remote"
    _approve(store, rule_id)
    review = ReviewRepository(store)
    assert [e.action for e in review.audit("result", result_id)] == ["waive_broken"]
    assert review.waivers("ana", result_id) == {traj_pk: "success is unrelated: different remote"}
    assert "approve" in [e.action for e in review.rule_audit(rule_id)]


def test_a_waiver_without_a_reason_is_refused_and_writes_nothing(setup: tuple[Store, int, int, int, int]) -> None:
    store, _rule_id, _version_id, result_id, traj_pk = setup
    with pytest.raises(ReasonRequired, match=f"result {result_id}, trajectory {traj_pk}"):
        waive(store, "ana", result_id, traj_pk, "  ")
    with pytest.raises(ValueError, match="needs a reviewer"):
        waive(store, " ", result_id, traj_pk, "a reason")
    review = ReviewRepository(store)
    assert review.waivers("ana", result_id) == {} and review.audit("result", result_id) == []


def test_reject_needs_a_reason(setup: tuple[Store, int, int, int, int]) -> None:
    store, rule_id, _version_id, _result_id, _traj = setup
    with pytest.raises(ReasonRequired):
        decide(store, DecisionRequest("reject", "ana", rule_id, reason=""))


def test_undo_appends_an_event_and_restores_the_previous_decision(setup: tuple[Store, int, int, int, int]) -> None:
    store, rule_id, _version_id, _result_id, _traj = setup
    review = ReviewRepository(store)
    decide(store, DecisionRequest("defer", "ana", rule_id))
    decide(store, DecisionRequest("reject", "ana", rule_id, reason="too broad"))
    undone = review.undo_last("ana")
    assert undone is not None and undone.action == "reject"
    assert review.current(rule_id).action == "defer"  # type: ignore[union-attr]
    assert [e.action for e in review.audit("rule", rule_id)] == ["defer", "reject", "undo"]


def test_decisions_survive_reopening_the_store(setup: tuple[Store, int, int, int, int]) -> None:
    store, rule_id, _version_id, _result_id, _traj = setup
    decide(store, DecisionRequest("reject", "ana", rule_id, reason="vague"))
    store.close()
    reopened = open_store(store.path)
    assert ReviewRepository(reopened).current(rule_id).reason == "vague"  # type: ignore[union-attr]
    reopened.close()


def test_the_latest_mark_replaces_an_earlier_one(setup: tuple[Store, int, int, int, int]) -> None:
    store, _rule, _version, result_id, traj_pk = setup
    review = ReviewRepository(store)
    review.mark("ana", result_id, traj_pk, "broken", "wrong")
    review.mark("ana", result_id, traj_pk, "broken", "right")
    marks = review.marks("ana")
    assert [(m.mark, m.blinded) for m in marks] == [("right", False)]
