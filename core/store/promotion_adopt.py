"""Imported standing rules in the Workbench's lifecycle: adopt one so it can be retired or superseded.

A standing rule imported from a CauterRule rule store has no Workbench approval, so it has no
``promotion`` row. To retire or supersede it, the decision service first *adopts* it, in the
same transaction: a promotion row with the rule's own id (``rule_ref`` R-NNN when it is free),
status from the imported file (``active`` by default), provenance ``{"imported": true, …}``
and no evidence snapshot, plus an ``adopt_imported`` audit event. Nothing is written to the
imported file; the export then carries the new status.
"""

from __future__ import annotations

import json

from sqlalchemy import text
from sqlmodel import Session, select

from core.domain.errors import PromotionError
from core.store.promotion_repo import Promotion, _allocate_standing_id, _promotion
from core.store.review_repo import append_audit
from core.store.tables import RuleRow
from core.store.tables_promotion import PromotionRow
from core.timeutil import utc_now


def promotion_exists(session: Session, standing_id: str) -> bool:
    return session.exec(select(PromotionRow.id).where(PromotionRow.standing_id == standing_id)).first() is not None


def find_imported(session: Session, standing_id: str | None = None, rule_id: int | None = None) -> RuleRow | None:
    """An imported standing rule (kind ``standing``) that has no promotion row yet."""
    query = select(RuleRow).where(RuleRow.kind == "standing")
    query = query.where(RuleRow.rule_ref == standing_id) if standing_id is not None else query.where(RuleRow.id == rule_id)
    for row in session.exec(query).all():
        taken = session.exec(select(PromotionRow).where(PromotionRow.rule_id == row.id)).first()
        if taken is None:
            return row
    return None


def adopt_imported_in(session: Session, row: RuleRow, actor: str) -> Promotion:
    assert row.id is not None
    status = (row.status or "active").lower()
    if status not in ("active", "retired", "superseded"):
        raise PromotionError(f"{row.rule_ref or row.origin} has status {row.status!r}; only active rules can change")
    version_id = session.execute(
        text("SELECT id FROM rule_version WHERE rule_id = :r ORDER BY version DESC LIMIT 1"), {"r": row.id}
    ).scalar_one()
    ref = row.rule_ref
    free = ref is not None and session.exec(select(PromotionRow).where(PromotionRow.standing_id == ref)).first() is None
    standing_id = ref if free and ref else _allocate_standing_id(session)
    now = utc_now()
    provenance = {"imported": True, "rule_origin": row.origin, "rule_kind": row.kind, "rule_ref": ref}
    promotion = PromotionRow(
        rule_id=row.id, rule_version_id=int(version_id), decision_id=None, standing_id=standing_id, status=status,
        provenance_json=json.dumps(provenance), evidence_json="{}", created_at=now, updated_at=now,
    )
    session.add(promotion)
    session.flush()
    append_audit(session, actor, "adopt_imported", "promotion", standing_id, "imported standing rule taken into "
                 "the Workbench lifecycle", after={"rule_id": row.id, "status": status, "rule_ref": ref})
    return _promotion(promotion)
