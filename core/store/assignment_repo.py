"""Which reviewer judges which item of a blind session (revision ``0004_assignments``).

Rows never leave this module; the service is ``core.agreement.assignments``. On a team store
the server decides who may write here (only leads) and what a reviewer reads (their own rows).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import text as sql

from core.store.engine import Store
from core.store.review_repo import append_audit
from core.timeutil import utc_now


class AssignmentRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    def ordinals(self, session_id: int) -> list[int]:
        with self._store.read_session() as session:
            rows = session.execute(sql("SELECT ordinal FROM agreement_item WHERE session_id = :s ORDER BY ordinal"),
                                   {"s": session_id}).all()
            return [int(r[0]) for r in rows]

    def replace(self, session_id: int, per_item: int, pairs: Iterable[tuple[int, str]], assigned_by: str) -> None:
        """The session's assignments become ``pairs`` (ordinal, reviewer), in one transaction."""
        now = utc_now()
        rows = [{"s": session_id, "o": o, "r": r, "by": assigned_by, "at": now} for o, r in pairs]
        with self._store.session() as session:
            session.execute(sql("DELETE FROM agreement_assignment WHERE session_id = :s"), {"s": session_id})
            if rows:
                session.execute(sql("INSERT INTO agreement_assignment (session_id, ordinal, reviewer, assigned_by, "
                                    "assigned_at) VALUES (:s, :o, :r, :by, :at)"), rows)
            session.execute(sql("UPDATE agreement_session SET assigned_per_item = :k WHERE id = :s"),
                            {"k": per_item, "s": session_id})
            append_audit(session, assigned_by, "assign", "agreement_session", session_id,
                         after={"per_item": per_item, "assignments": len(rows)})

    def assignments(self, session_id: int, reviewer: str | None = None) -> list[tuple[int, str]]:
        """(ordinal, reviewer) by ordinal; on a team store a reviewer reads only their own."""
        query = "SELECT ordinal, reviewer FROM agreement_assignment WHERE session_id = :s"
        params: dict[str, object] = {"s": session_id}
        if reviewer is not None:
            query += " AND reviewer = :r"
            params["r"] = reviewer
        with self._store.read_session() as session:
            rows = session.execute(sql(query + " ORDER BY ordinal, reviewer"), params).all()
            return [(int(r[0]), str(r[1])) for r in rows]

    def per_item(self, session_id: int) -> int | None:
        with self._store.read_session() as session:
            value = session.execute(sql("SELECT assigned_per_item FROM agreement_session WHERE id = :s"),
                                    {"s": session_id}).scalar_one_or_none()
            return None if value is None else int(value)
