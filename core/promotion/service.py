"""Promotion actions: approve (with provenance), reject, defer, retire, supersede.

Every action needs a reviewer and a reason, and is audited. Approval rests on one complete
replay run: its result for the rule is the evidence snapshot stored with the standing rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.promotion.evidence import snapshot
from core.store.engine import Store
from core.store.promotion_repo import Promotion, PromotionError, PromotionRepository
from core.store.replay_repo import ReplayRepository, StoredResult
from core.store.review_repo import ApprovalRefused, Decision, ReasonRequired, ReviewRepository
from core.store.rule_repo import RuleRepository
from core.timeutil import utc_now

EXTRACTED_BY = "cauterule-workbench"

__all__ = [
    "ApprovalRefused", "Approval", "PromotionError", "ReasonRequired", "Waiver",
    "approve", "defer", "reject", "retire", "supersede",
]


@dataclass(frozen=True)
class Waiver:
    """Waive one broken trajectory (by trajectory id) with a written reason."""

    trajectory_id: str
    reason: str


@dataclass(frozen=True)
class Approval:
    decision: Decision
    promotion: Promotion
    created: bool  # False: an active standing rule was re-approved on new evidence


def _need(value: str | None, what: str) -> str:
    cleaned = (value or "").strip()
    if not cleaned:
        raise ReasonRequired(f"{what} needs a reason")
    return cleaned


def _result(store: Store, run_id: int, rule_id: int) -> StoredResult:
    replay = ReplayRepository(store)
    run = replay.get_run(run_id)
    if run is None:
        raise PromotionError(f"no replay run #{run_id} in this store")
    if run.status != "complete":
        raise PromotionError(f"run #{run_id} is {run.status}; approvals rest only on complete runs")
    result = next((r for r in replay.results(run_id) if r.rule_id == rule_id), None)
    if result is None:
        raise PromotionError(f"rule {rule_id} was not replayed in run #{run_id}")
    return result


def approve(
    store: Store, rule_id: int, run_id: int, reviewer: str, reason: str,
    waivers: Sequence[Waiver] | Mapping[str, str] = (), allow_non_pass: bool = False,
) -> Approval:
    """Approve a rule on the evidence of ``run_id`` and make (or refresh) its standing rule.

    Refused (``ApprovalRefused``) while any broken trajectory of the result is neither opened
    by ``reviewer`` nor waived; ``waivers`` (trajectory id -> reason) are recorded first, each
    one audited. A verdict other than ``pass`` is refused unless ``allow_non_pass``.
    """
    reviewer = reviewer.strip()
    if not reviewer:
        raise ValueError("an approval needs a reviewer")
    reason = _need(reason, "an approval")
    result = _result(store, run_id, rule_id)
    if result.verdict != "pass" and not allow_non_pass:
        raise ApprovalRefused(
            f"approval refused: replay verdict on run #{run_id} is {result.verdict} ({result.reason}); "
            "approving against the verdict needs allow_non_pass and a reason"
        )
    _record_waivers(store, reviewer, result, waivers)
    replay = ReplayRepository(store)
    run = replay.get_run(run_id)
    assert run is not None
    evidence = snapshot(store, result, run)
    promotion_repo = PromotionRepository(store)
    evidence["waivers"] = promotion_repo.waivers(result.id, reviewer)
    evidence["reviewer"], evidence["approval_reason"] = reviewer, reason
    provenance = _provenance(store, rule_id, result, run.config_hash, evidence, reviewer, reason)
    decision, promotion, created = promotion_repo.approve_and_promote(
        rule_id, result.rule_version_id, run_id, result.id, reviewer, reason, provenance, evidence,
    )
    return Approval(decision, promotion, created)


def _record_waivers(
    store: Store, reviewer: str, result: StoredResult, waivers: Sequence[Waiver] | Mapping[str, str]
) -> None:
    items = [Waiver(k, v) for k, v in waivers.items()] if isinstance(waivers, Mapping) else list(waivers)
    if not items:
        return
    broken = {o.trajectory_id: o.trajectory_pk for o in ReplayRepository(store).outcomes(result.id, "broken")}
    # Check every waiver before recording any, so a bad one leaves nothing half-done.
    for waiver in items:
        if waiver.trajectory_id not in broken:
            raise PromotionError(
                f"cannot waive {waiver.trajectory_id}: it is not a broken trajectory of this result "
                f"(broken: {', '.join(sorted(broken)) or 'none'})"
            )
        _need(waiver.reason, "a waiver")
    review = ReviewRepository(store)
    for waiver in items:
        review.waive(reviewer, result.id, broken[waiver.trajectory_id], waiver.reason.strip())


def _provenance(
    store: Store, rule_id: int, result: StoredResult, config_hash: str, evidence: dict[str, Any],
    reviewer: str, reason: str,
) -> dict[str, Any]:
    rule = RuleRepository(store).get(rule_id)
    version = RuleRepository(store).get_version(result.rule_version_id)
    assert rule is not None and version is not None
    return {
        "source_trajectory": rule.source_trajectory,
        "rule_origin": rule.origin,
        "rule_kind": rule.kind,
        "rule_version": version.version,
        "extract_timestamp": version.created_at,
        "replay_run_id": result.run_id,
        "replay_result_id": result.id,
        "run_config_hash": config_hash,
        "corpus_hash": evidence["run"]["corpus_hash"],
        "evidence_counts": evidence["counts"],
        "precision": result.precision,
        "recall": result.recall,
        "reviewer": reviewer,
        "reason": reason,
        "approved_at": utc_now(),
    }


def reject(store: Store, rule_id: int, reviewer: str, reason: str, run_id: int | None = None) -> Decision:
    return _decide(store, rule_id, reviewer, "reject", _need(reason, "a rejection"), run_id)


def defer(store: Store, rule_id: int, reviewer: str, reason: str, run_id: int | None = None) -> Decision:
    return _decide(store, rule_id, reviewer, "defer", _need(reason, "a deferral"), run_id)


def _decide(store: Store, rule_id: int, reviewer: str, action: str, reason: str, run_id: int | None) -> Decision:
    active = PromotionRepository(store).active_for_rule(rule_id)
    if active is not None:
        raise PromotionError(
            f"rule {rule_id} is the active standing rule {active.standing_id}; retire or supersede it instead"
        )
    rule = RuleRepository(store).get(rule_id)
    if rule is None:
        raise PromotionError(f"no rule {rule_id} in this store")
    version_id = rule.latest.id
    evidence = None
    if run_id is not None:
        result = _result(store, run_id, rule_id)
        version_id = result.rule_version_id
        evidence = {"run_id": run_id, "result_id": result.id, "verdict": result.verdict, "reason": result.reason}
    return ReviewRepository(store).decide(rule_id, version_id, run_id, reviewer, action, reason, evidence)


def retire(store: Store, standing_id: str, actor: str, reason: str) -> Promotion:
    return PromotionRepository(store).retire(standing_id, actor, _need(reason, "a retirement"))


def supersede(store: Store, standing_id: str, by_standing_id: str, actor: str, reason: str) -> Promotion:
    return PromotionRepository(store).supersede(standing_id, by_standing_id, actor, _need(reason, "a supersession"))
