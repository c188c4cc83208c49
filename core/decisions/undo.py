"""Undo a reviewer's newest decision still in effect (a new audit event, nothing erased)."""

from __future__ import annotations

from core.decisions.service import DecisionRequest, decide
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import Decision, ReviewRepository
from core.store.row_versions import UNDO_RETIREMENT_REASON
from core.store.transaction import one_transaction


def undo_last(store: Store, reviewer: str) -> Decision | None:
    """Undo and return the reviewer's newest live decision (None if there is none).

    Undoing an approval also retires the standing rule that approval created, so the rule
    store never exports a rule whose approval was taken back. The undo and the retirement are
    one write transaction: if the retirement is refused or fails, the undo is rolled back with
    it, so an approval is never undone while its standing rule stays active.
    """
    with one_transaction(store) as tx:
        undone = ReviewRepository(tx).undo_last(reviewer)
        if undone is not None and undone.action == "approve":
            standing = PromotionRepository(tx).active_for_rule(undone.rule_id)
            if standing is not None and standing.decision_id == undone.id:
                decide(tx, DecisionRequest("retire", reviewer, standing_id=standing.standing_id,
                                           reason=UNDO_RETIREMENT_REASON, via="review"))
        return undone
