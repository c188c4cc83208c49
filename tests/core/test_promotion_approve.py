"""Approving makes a standing rule with full provenance, and only on reviewed evidence."""

from __future__ import annotations

import pytest
from test_promotion_support import Builder, demo_copy, promotion_store  # noqa: F401  (fixtures)

from core.promotion import ApprovalRefused, PromotionError, ReasonRequired, Waiver, approve
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository


@pytest.fixture()
def built(promotion_store: Store) -> tuple[Builder, int, int]:
    b = Builder(promotion_store)
    b.trajectories("F-1", "F-2")
    b.trajectories("S-1", success=True)
    rule = b.rule("c/r1.yaml", "when git push is rejected", "pull --rebase then push")
    run = b.run([(rule, "pass", {"prevented": ["F-1", "F-2"], "broken": ["S-1"]})])
    return b, rule, run


def test_approval_without_reviewing_a_broken_trajectory_is_refused_clearly(built: tuple[Builder, int, int]) -> None:
    b, rule, run = built
    with pytest.raises(ApprovalRefused, match=r"1 broken trajectory not yet opened or waived \(S-1\)"):
        approve(b.store, rule, run, "ana", "prevents both push failures")
    assert PromotionRepository(b.store).list() == []
    assert ReviewRepository(b.store).current(rule) is None  # nothing half-written


def test_waiver_with_reason_lets_approval_through_and_is_audited(built: tuple[Builder, int, int]) -> None:
    b, rule, run = built
    approval = approve(b.store, rule, run, "ana", "prevents both push failures",
                       waivers=[Waiver("S-1", "S-1 only quotes the error text in a log line")])
    assert approval.created and approval.decision.action == "approve"
    events = ReviewRepository(b.store).rule_audit(rule)
    waive = [e for e in events if e.action == "waive_broken"]
    assert len(waive) == 1 and waive[0].reason == "S-1 only quotes the error text in a log line"
    assert waive[0].id < next(e.id for e in events if e.action == "approve")
    assert approval.promotion.evidence["waivers"][0]["trajectory_id"] == "S-1"


def test_a_waiver_needs_a_reason_and_a_broken_trajectory(built: tuple[Builder, int, int]) -> None:
    b, rule, run = built
    with pytest.raises(ReasonRequired):
        approve(b.store, rule, run, "ana", "ok", waivers={"S-1": "  "})
    with pytest.raises(PromotionError, match="cannot waive F-1: it is not a broken trajectory"):
        approve(b.store, rule, run, "ana", "ok", waivers={"F-1": "why not"})


def test_opening_the_broken_trajectory_is_enough(built: tuple[Builder, int, int]) -> None:
    b, rule, run = built
    ReviewRepository(b.store).record_view("ana", b.result_id(run, rule), b.pks["S-1"])
    assert approve(b.store, rule, run, "ana", "reviewed S-1: harmless").promotion.status == "active"


def test_provenance_and_evidence_snapshot_are_complete(built: tuple[Builder, int, int]) -> None:
    b, rule, run = built
    promotion = approve(b.store, rule, run, "ana", "good rule", waivers={"S-1": "log echo"}).promotion
    prov = promotion.provenance
    assert prov["source_trajectory"] == "S-SRC" and prov["replay_run_id"] == run
    assert prov["run_config_hash"] == "cfg" and prov["corpus_hash"] == "corpus"
    assert prov["evidence_counts"] == {"prevented": 2, "broken": 1, "near_miss": 0, "missed": 0}
    assert prov["reviewer"] == "ana" and prov["reason"] == "good rule" and prov["approved_at"]
    ev = promotion.evidence
    assert ev["verdict"] == "pass" and ev["reason"] == "pass"
    assert ev["buckets"] == {"prevented": ["F-1", "F-2"], "broken": ["S-1"], "near_miss": [], "missed": []}


def test_approval_needs_a_reason_a_complete_run_and_a_pass(promotion_store: Store) -> None:
    b = Builder(promotion_store)
    b.trajectories("F-1")
    rule = b.rule("c/r.yaml", "trigger words here", "do this")
    failing = b.run([(rule, "fail", {"prevented": ["F-1"]})])
    with pytest.raises(ReasonRequired):
        approve(b.store, rule, failing, "ana", " ", allow_non_pass=True)
    with pytest.raises(ApprovalRefused, match="verdict on run .* is fail"):
        approve(b.store, rule, failing, "ana", "looks right")
    assert approve(b.store, rule, failing, "ana", "human override", allow_non_pass=True).created
    cancelled = b.run([(rule, "pass", {"prevented": ["F-1"]})], status="cancelled")
    with pytest.raises(PromotionError, match="cancelled"):
        approve(b.store, rule, cancelled, "ana", "x")


def test_standing_ids_come_from_a_counter_and_are_never_reused(promotion_store: Store) -> None:
    b = Builder(promotion_store)
    b.trajectories("F-1")
    # An imported standing rule R-007 pushes the counter past its number.
    imported = b.rule("rules/R-007.yaml", "imported trigger", "imported directive", kind="standing", rule_ref="R-007")
    first = b.rule("c/a.yaml", "first trigger text", "first directive")
    second = b.rule("c/b.yaml", "second trigger text", "second directive")
    run = b.run([(first, "pass", {"prevented": ["F-1"]}), (second, "pass", {"prevented": ["F-1"]}),
                 (imported, "pass", {"prevented": ["F-1"]})])
    from core.promotion import retire

    a = approve(b.store, first, run, "ana", "ok").promotion
    assert a.standing_id == "R-008"
    retire(b.store, "R-008", "ana", "too broad")
    c = approve(b.store, second, run, "ana", "ok").promotion
    assert c.standing_id == "R-009"
    again = approve(b.store, first, run, "ana", "back after a fix").promotion  # retired: a new id
    assert again.standing_id == "R-010"


def test_reapproving_an_active_rule_keeps_its_id_and_audits_the_change(built: tuple[Builder, int, int]) -> None:
    b, rule, run = built
    first = approve(b.store, rule, run, "ana", "ok", waivers={"S-1": "echo"}).promotion
    run2 = b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]})], config_hash="cfg2")
    second = approve(b.store, rule, run2, "ana", "still good on run 2")
    assert not second.created and second.promotion.standing_id == first.standing_id
    assert second.promotion.evidence["run_id"] == run2
    events = ReviewRepository(b.store).audit("promotion", first.standing_id)
    assert [e.action for e in events] == ["promote", "reapprove"]
    assert events[1].before["evidence"]["run_id"] == run
