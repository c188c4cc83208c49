"""Every reviewer decision goes through here: approve, reject, defer, undo.

One small module, no Qt, so the window, the tests and the crash-safety subprocess all use
the same path. Approve goes through the promotion service, so one approval makes the
standing rule with its provenance (the Promotion tab shows the same rule as approved);
undoing that approval retires the standing rule it created. Each call is one committed
transaction in the store; when a call returns, the decision is on disk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core import promotion
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ApprovalRefused, Decision, ReasonRequired, ReviewRepository
from core.store.workspace_repo import WorkspaceRule

__all__ = ["ApprovalRefused", "DecisionTarget", "ReasonRequired", "approve", "decide", "defer", "reject", "undo_last"]


@dataclass(frozen=True)
class DecisionTarget:
    """What a decision is about: a rule's result in one replay run."""

    rule_id: int
    rule_version_id: int
    run_id: int
    result_id: int
    run_status: str
    evidence: dict[str, Any]

    @classmethod
    def from_row(cls, row: WorkspaceRule) -> DecisionTarget:
        return cls(
            rule_id=row.rule_id, rule_version_id=row.rule_version_id, run_id=row.run_id, result_id=row.result_id,
            run_status=row.run_status,
            evidence={
                "result_id": row.result_id, "run_id": row.run_id, "profile": row.profile, "verdict": row.verdict,
                "reason": row.reason, "version": row.version,
                "counts": {"prevented": row.prevented_n, "broken": row.broken_n, "near_miss": row.near_miss_n,
                           "missed": row.missed_n},
            },
        )


def decide(reviews: ReviewRepository, target: DecisionTarget, reviewer: str, action: str,
           reason: str | None = None) -> Decision:
    if action == "approve" and target.run_status != "complete":
        raise ApprovalRefused(
            f"approval refused: run #{target.run_id} is {target.run_status}; approve on a complete run"
        )
    return reviews.decide(
        target.rule_id, target.rule_version_id, target.run_id, reviewer, action, reason,
        evidence=target.evidence, result_id=target.result_id,
    )


NO_REASON = "approved in the review workspace (no reason given)"


def approve(reviews: ReviewRepository, target: DecisionTarget, reviewer: str, reason: str | None = None) -> Any:
    """Approve and promote. Raises ApprovalRefused while broken evidence is neither opened
    nor waived, on an incomplete run, or against replay's verdict without a reason."""
    if target.run_status != "complete":
        raise ApprovalRefused(
            f"approval refused: run #{target.run_id} is {target.run_status}; approve on a complete run"
        )
    reason = (reason or "").strip()
    verdict = target.evidence.get("verdict")
    if verdict != "pass" and not reason:
        raise ApprovalRefused(
            f"approval refused: replay's verdict is {verdict} ({target.evidence.get('reason')}); approving "
            "against it needs a written reason (Promotion tab > Approve asks for one)"
        )
    approval = promotion.approve(
        reviews.store, target.rule_id, target.run_id, reviewer, reason or NO_REASON, allow_non_pass=bool(reason)
    )
    return approval.decision


def reject(reviews: ReviewRepository, target: DecisionTarget, reviewer: str, reason: str) -> Decision:
    """Raises ReasonRequired without a reason."""
    return decide(reviews, target, reviewer, "reject", reason)


def defer(reviews: ReviewRepository, target: DecisionTarget, reviewer: str, reason: str | None = None) -> Decision:
    return decide(reviews, target, reviewer, "defer", reason)


def undo_last(reviews: ReviewRepository, reviewer: str) -> Decision | None:
    """Undo the reviewer's newest decision still in effect (a new audit event); returns it.

    Undoing an approval also retires the standing rule that approval created, so the rule
    store never exports a rule whose approval was taken back.
    """
    undone = reviews.undo_last(reviewer)
    if undone is not None and undone.action == "approve":
        standing = PromotionRepository(reviews.store).active_for_rule(undone.rule_id)
        if standing is not None and standing.decision_id == undone.id:
            promotion.retire(reviews.store, standing.standing_id, reviewer, "approval undone")
    return undone
