"""Promotion actions as functions: thin calls into the one decision path (``core.decisions``).

Kept for callers and tests that name the promotion API; every rule is checked in
``core.decisions.decide``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.domain.errors import ApprovalRefused, PromotionError, ReasonRequired
from core.store.engine import Store
from core.store.promotion_repo import Promotion
from core.store.review_repo import Decision

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


def approve(
    store: Store, rule_id: int, run_id: int, reviewer: str, reason: str,
    waivers: Sequence[Waiver] | Mapping[str, str] = (), allow_non_pass: bool = False,
    acknowledge_gate: bool = False, via: str = "api", acknowledge_no_task: bool = False,
) -> Approval:
    """Approve ``rule_id`` on the evidence of ``run_id`` (see ``core.decisions`` for the rules)."""
    from core.decisions.service import DecisionRequest, decide  # the decisions package imports this one

    given = dict(waivers) if isinstance(waivers, Mapping) else {w.trajectory_id: w.reason for w in waivers}
    outcome = decide(store, DecisionRequest(
        "approve", reviewer, rule_id=rule_id, run_id=run_id, reason=reason, override_verdict=allow_non_pass,
        acknowledge_gate=acknowledge_gate, acknowledge_no_task=acknowledge_no_task, waivers=given, via=via,
    ))
    assert outcome.decision is not None and outcome.promotion is not None
    return Approval(outcome.decision, outcome.promotion, outcome.created)


def reject(store: Store, rule_id: int, reviewer: str, reason: str, run_id: int | None = None) -> Decision:
    from core.decisions.service import DecisionRequest, decide

    outcome = decide(store, DecisionRequest("reject", reviewer, rule_id=rule_id, run_id=run_id, reason=reason))
    assert outcome.decision is not None
    return outcome.decision


def defer(store: Store, rule_id: int, reviewer: str, reason: str | None = None, run_id: int | None = None) -> Decision:
    from core.decisions.service import DecisionRequest, decide

    outcome = decide(store, DecisionRequest("defer", reviewer, rule_id=rule_id, run_id=run_id, reason=reason))
    assert outcome.decision is not None
    return outcome.decision


def retire(store: Store, standing_id: str, actor: str, reason: str) -> Promotion:
    from core.decisions.service import DecisionRequest, decide

    outcome = decide(store, DecisionRequest("retire", actor, standing_id=standing_id, reason=reason))
    assert outcome.promotion is not None
    return outcome.promotion


def supersede(store: Store, standing_id: str, by_standing_id: str, actor: str, reason: str) -> Promotion:
    from core.decisions.service import DecisionRequest, decide

    outcome = decide(store, DecisionRequest("supersede", actor, standing_id=standing_id, successor=by_standing_id,
                                            reason=reason))
    assert outcome.promotion is not None
    return outcome.promotion
