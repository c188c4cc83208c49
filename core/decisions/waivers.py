"""Waiving broken evidence: "approve without opening this trajectory, because ...".

The one rule a waiver has, a written reason, is checked here, once, inside the write
transaction that records it; the repository function (``write_waiver``) only writes. The
Review tab's waive key and the decision service's in-request waivers both end in that writer.
"""

from __future__ import annotations

from core.domain.errors import ReasonRequired
from core.domain.names import checked_name, checked_reason
from core.store.engine import Store
from core.store.review_repo import write_waiver


def waive(store: Store, reviewer: str, result_id: int, trajectory_pk: int, reason: str | None) -> str:
    """Record ``reviewer``'s waiver of one broken trajectory of a replay result (with its audit
    event, in one transaction); returns the reason as stored (trimmed). Refused with
    ``ReasonRequired`` when the reason is empty, and ``ValueError`` without a reviewer."""
    who = checked_name(reviewer)
    if not who:
        raise ValueError(f"a waiver (result {result_id}, trajectory {trajectory_pk}) needs a reviewer")
    with store.session() as session:
        why = checked_reason(reason, "waiver reason") or ""
        if not why:
            raise ReasonRequired(f"a waiver needs a reason (result {result_id}, trajectory {trajectory_pk})")
        write_waiver(session, who, result_id, trajectory_pk, why)
    return why
