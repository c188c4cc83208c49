"""Promotion: approvals tied to their evidence, stale-approval checks, the queue and its gates.

Public API (no Qt; the GUI queue is built on these):

* ``approve / reject / defer / retire / supersede`` — ``core.promotion.service``
* ``promotion_queue`` / ``conflicts_among_approved`` — ``core.promotion.queue``
* ``stale_approvals`` / ``compare`` — ``core.promotion.evidence``
* ``set_agreement_gate`` — ``core.promotion.gates`` (plug in the blind-session gate)
* ``core.export.rule_store.export_rule_store`` — write a CauterRule 0.3.1 rule store
"""

from __future__ import annotations

from core.promotion.evidence import Move, StaleReport, compare, stale_approvals
from core.promotion.gates import Gate, agreement_gate, marks_agreement_gate, set_agreement_gate
from core.promotion.queue import PromotionQueue, QueueItem, conflicts_among_approved, promotion_queue
from core.promotion.service import (
    Approval,
    ApprovalRefused,
    PromotionError,
    ReasonRequired,
    Waiver,
    approve,
    defer,
    reject,
    retire,
    supersede,
)

__all__ = [
    "Approval", "ApprovalRefused", "Gate", "Move", "PromotionError", "PromotionQueue", "QueueItem",
    "ReasonRequired", "StaleReport", "Waiver", "agreement_gate", "approve", "compare",
    "conflicts_among_approved", "defer", "marks_agreement_gate", "promotion_queue", "reject", "retire",
    "set_agreement_gate", "stale_approvals", "supersede",
]
