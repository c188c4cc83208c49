"""What the promotion pages share: the refusals shown as they are, the queue's column widths and
an approval waiting for its waivers."""

from __future__ import annotations

from dataclasses import dataclass

from core.domain.errors import ApprovalRefused, PromotionError, ReasonRequired

from cauterule_gui.models import promotion_queue_model as qm
from cauterule_gui.panels.promotion.dialogs import ApprovalInput

REFUSALS = (ApprovalRefused, ReasonRequired, PromotionError, ValueError)
COLUMN_WIDTHS = {qm.COL_GROUP: 14, qm.COL_RULE: 30, qm.COL_TRIGGER: 34, qm.COL_VERDICT: 29, qm.COL_BROKEN: 21,
                 qm.COL_AGREEMENT: 17,
                 qm.COL_DUPLICATES: 24, qm.COL_CONFLICTS: 17, qm.COL_DECISION: 28, qm.COL_STALE: 20}


@dataclass
class PendingApproval:
    """An approval refused for unopened broken evidence, kept so the waiver flow can finish it."""

    rule_id: int
    approval: ApprovalInput
