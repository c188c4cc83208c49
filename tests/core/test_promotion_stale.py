"""An approval made on evidence that a later replay run changed is flagged stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_promotion_support import Builder, demo_copy, promotion_store  # noqa: F401  (fixtures)

from core.importing import import_paths
from core.promotion import approve, stale_approvals
from core.promotion.evidence import Move, bucket_moves
from core.replay.profiles import profile_by_name
from core.replaying import run_replay
from core.store.engine import Store
from core.store.rule_repo import RuleRepository, RuleText

LEXICAL = profile_by_name("workbench").with_(semantic=False)


def _rule_id(store: Store, origin: str) -> int:
    return next(r.id for r in RuleRepository(store).list_rules() if r.origin == origin)


def test_changed_corpus_makes_the_approval_stale_with_the_moved_trajectories(
    promotion_store: Store, demo_copy: Path
) -> None:
    store = promotion_store
    import_paths(store, [demo_copy])
    first = run_replay(store, LEXICAL, include_expected_rules=False)
    rule = _rule_id(store, "candidates/C-05-k8s-pod-oomkilled.yaml")
    approval = approve(store, rule, first.run_id, "ana", "both OOMKilled failures prevented, nothing broken")
    assert approval.promotion.evidence["buckets"]["prevented"] == [
        "DF-K8S-001-worker-oomkilled", "DF-K8S-002-crashloop-after-upgrade"]
    assert stale_approvals(store) == []

    # The corpus changes: DF-K8S-002's record no longer says OOMKilled, and a new failure does.
    k8s = demo_copy / "failures" / "k8s.jsonl"
    lines = k8s.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[1])
    record["steps"][1]["error"] = "Back-off restarting failed container; last termination reason: Error"
    record["failure_point"] = "Step 2: pod in CrashLoopBackOff"
    lines[1] = json.dumps(record)
    k8s.write_text("\n".join(lines) + "\n", encoding="utf-8")
    new = dict(json.loads(lines[0]), trajectory_id="DF-K8S-005-batch-oomkilled", id="DF-K8S-005-batch-oomkilled")
    (demo_copy / "failures" / "k8s-more.jsonl").write_text(json.dumps(new) + "\n", encoding="utf-8")
    import_paths(store, [demo_copy])
    second = run_replay(store, LEXICAL, include_expected_rules=False)

    [report] = stale_approvals(store)
    assert report.stale and report.standing_id == approval.promotion.standing_id
    assert report.approved_run_id == first.run_id and report.compared_run_id == second.run_id
    assert set(report.moves) == {
        Move("DF-K8S-002-crashloop-after-upgrade", "prevented", "missed"),
        Move("DF-K8S-005-batch-oomkilled", "no_effect", "prevented"),
    }
    assert "corpus_hash" in report.config_changes  # what changed is the corpus, not the profile
    assert "profile" not in report.config_changes and "config.threshold" not in report.config_changes
    assert "DF-K8S-002-crashloop-after-upgrade: prevented → missed" in report.summary

    # Re-approving on the new run records the new evidence and clears the flag.
    again = approve(store, rule, second.run_id, "ana", "re-checked on the changed corpus")
    assert not again.created and again.promotion.evidence["run_id"] == second.run_id
    assert stale_approvals(store) == []


def test_a_changed_verdict_is_stale_and_a_config_change_alone_is_not(promotion_store: Store) -> None:
    b = Builder(promotion_store)
    b.trajectories("F-1", "F-2")
    b.trajectories("S-1", success=True)
    rule = b.rule("c/r.yaml", "when the thing fails", "do the fix")
    run1 = b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]})])
    approve(b.store, rule, run1, "ana", "ok")
    run2 = b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]})], config_hash="other-thresholds")
    [report] = stale_approvals(b.store, only_stale=False)
    assert not report.stale and report.compared_run_id == run2
    assert report.config_changes["config_hash"] == ("cfg", "other-thresholds")
    assert "evidence unchanged" in report.summary
    b.run([(rule, "fail", {"prevented": ["F-1"], "broken": ["S-1", "F-2"]})], config_hash="other-thresholds")
    [report] = stale_approvals(b.store)
    assert (report.verdict_before, report.verdict_after) == ("pass", "fail")
    assert Move("S-1", "no_effect", "broken") in report.moves
    assert Move("F-2", "prevented", "broken") in report.moves


def test_runs_of_another_rule_version_or_incomplete_runs_do_not_count(promotion_store: Store) -> None:
    b = Builder(promotion_store)
    b.trajectories("F-1")
    rule = b.rule("c/r.yaml", "when the thing fails", "do the fix")
    run1 = b.run([(rule, "pass", {"prevented": ["F-1"]})])
    approve(b.store, rule, run1, "ana", "ok")
    b.run([(rule, "fail", {})], status="cancelled")
    assert stale_approvals(b.store) == []
    RuleRepository(b.store).add_version(rule, RuleText("edited trigger", "do the fix"), author="ana")
    b.run([(rule, "fail", {})])
    [report] = stale_approvals(b.store, only_stale=False)
    assert not report.stale and report.rule_edited and "edited after approval" in report.summary


def test_bucket_moves_pair_repeated_ids() -> None:
    before = {"prevented": ["A", "A"], "broken": [], "near_miss": ["B"]}
    after = {"prevented": ["A"], "broken": ["A"], "near_miss": []}
    assert bucket_moves(before, after) == [Move("A", "prevented", "broken"), Move("B", "near_miss", "no_effect")]


@pytest.mark.parametrize("given_run", [True, False])
def test_stale_approvals_can_compare_against_a_chosen_run(promotion_store: Store, given_run: bool) -> None:
    b = Builder(promotion_store)
    b.trajectories("F-1", "F-2")
    rule = b.rule("c/r.yaml", "when the thing fails", "do the fix")
    run1 = b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]})])
    approve(b.store, rule, run1, "ana", "ok")
    run2 = b.run([(rule, "pass", {"prevented": ["F-1"]})])
    b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]})])  # newest run agrees with the approval
    reports = stale_approvals(b.store, run_id=run2 if given_run else None)
    assert [r.compared_run_id for r in reports] == ([run2] if given_run else [])
