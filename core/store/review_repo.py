"""Reviewer actions: decisions, undo, evidence views, waivers, agreement marks, audit log.

Each human action is one committed transaction that writes the action and its audit event
together, so a decision is never saved without its audit trail (or the reverse). Undo never
erases: it appends a decision row that points at the one it undoes. The rules a decision or a
waiver must satisfy are not here: ``core.decisions`` checks them inside the transaction and
calls the writers below (``write_decision``, ``write_waiver``), which only write.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlmodel import Session, col, select

from core.store.engine import Store
from core.store.outcome_reads import result_block, trajectory_meta
from core.store.row_versions import bump_rule
from core.store.tables import (
    AgreementMarkRow,
    AuditEventRow,
    DecisionRow,
    EvidenceViewRow,
    WaiverRow,
)
from core.timeutil import utc_now

DECISION_ACTIONS = ("approve", "reject", "defer")
MARKS = ("right", "wrong", "cant_tell")


@dataclass(frozen=True)
class Decision:
    id: int
    rule_id: int
    rule_version_id: int
    run_id: int | None
    reviewer: str
    action: str
    reason: str | None
    created_at: str


@dataclass(frozen=True)
class AuditEvent:
    id: int
    at: str
    actor: str
    action: str
    target_kind: str
    target_id: str
    reason: str | None
    before: Any
    after: Any
    run_id: int | None


@dataclass(frozen=True)
class Mark:
    reviewer: str
    result_id: int
    trajectory_pk: int | None
    replay_answer: str
    mark: str
    blinded: bool
    created_at: str


def append_audit(
    session: Session, actor: str, action: str, target_kind: str, target_id: str | int,
    reason: str | None = None, before: Any = None, after: Any = None, run_id: int | None = None,
) -> None:
    session.add(
        AuditEventRow(
            at=utc_now(), actor=actor, action=action, target_kind=target_kind, target_id=str(target_id),
            reason=reason, before_json=None if before is None else json.dumps(before, default=str),
            after_json=None if after is None else json.dumps(after, default=str), run_id=run_id,
        )
    )


class ReviewRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    @property
    def store(self) -> Store:
        return self._store

    # -- decisions (made by ``core.decisions.decide``, which checks every rule) -------------
    def undo_last(self, reviewer: str) -> Decision | None:
        """Undo the reviewer's most recent decision that is still in effect (a new event)."""
        with self._store.session() as session:
            undone = {r.undoes_id for r in session.exec(select(DecisionRow).where(col(DecisionRow.undoes_id).is_not(None)))}
            rows = session.exec(
                select(DecisionRow)
                .where(DecisionRow.reviewer == reviewer, col(DecisionRow.action).in_(DECISION_ACTIONS))
                .order_by(col(DecisionRow.id).desc())
            ).all()
            target = next((r for r in rows if r.id not in undone), None)
            if target is None:
                return None
            bump_rule(session, target.rule_id)
            undo = DecisionRow(
                rule_id=target.rule_id, rule_version_id=target.rule_version_id, run_id=target.run_id,
                reviewer=reviewer, action="undo", reason=f"undo {target.action}", undoes_id=target.id,
                created_at=utc_now(),
            )
            session.add(undo)
            session.flush()
            append_audit(
                session, reviewer, "undo", "rule", target.rule_id, f"undo {target.action}",
                before={"action": target.action, "decision": target.id}, after=None, run_id=target.run_id,
            )
            return _decision(target)

    def current(self, rule_id: int) -> Decision | None:
        with self._store.read_session() as session:
            return _effective(session, rule_id)

    def current_all(self) -> dict[int, Decision]:
        with self._store.read_session() as session:
            rows = session.exec(select(DecisionRow).order_by(col(DecisionRow.id))).all()
        undone = {r.undoes_id for r in rows if r.undoes_id is not None}
        effective: dict[int, Decision] = {}
        for row in rows:
            if row.action in DECISION_ACTIONS and row.id not in undone:
                effective[row.rule_id] = _decision(row)
        return effective

    # -- evidence views and waivers ----------------------------------------------------
    def record_view(self, reviewer: str, result_id: int, trajectory_pk: int) -> bool:
        """Record that the reviewer opened an evidence trajectory (first time: with an audit
        event, in the same transaction). Returns True if this was the first opening."""
        with self._store.session() as session:
            inserted = session.execute(
                text(
                    "INSERT INTO evidence_view (reviewer, result_id, trajectory_pk, viewed_at) "
                    "VALUES (:r, :res, :t, :at) ON CONFLICT DO NOTHING"
                ),
                {"r": reviewer, "res": result_id, "t": trajectory_pk, "at": utc_now()},
            ).rowcount  # type: ignore[attr-defined]  # a DML statement's result is a CursorResult
            if inserted:
                append_audit(session, reviewer, "open_evidence", "result", result_id, None,
                             after={"trajectory_pk": trajectory_pk})
            return bool(inserted)

    def unreviewed_broken(self, reviewer: str, result_id: int) -> list[str]:
        """Trajectory ids of broken evidence this reviewer has neither opened nor waived."""
        with self._store.read_session() as session:
            return unreviewed_broken_in(session, reviewer, result_id)

    def viewed(self, reviewer: str, result_id: int) -> set[int]:
        with self._store.read_session() as session:
            rows = session.exec(
                select(EvidenceViewRow.trajectory_pk).where(
                    EvidenceViewRow.reviewer == reviewer, EvidenceViewRow.result_id == result_id
                )
            ).all()
            return {int(r) for r in rows}

    def waivers(self, reviewer: str, result_id: int) -> dict[int, str]:
        """trajectory pk -> waiver reason, for this reviewer's waivers on a result."""
        with self._store.read_session() as session:
            return waived_in(session, reviewer, result_id)

    # -- agreement marks ---------------------------------------------------------------
    def evidence_marks(self, reviewer: str, result_id: int) -> dict[int | None, str]:
        """The reviewer's newest mark per trajectory of a result (None = the verdict)."""
        with self._store.read_session() as session:
            rows = session.execute(
                text("SELECT trajectory_pk, mark FROM agreement_mark WHERE reviewer = :r AND result_id = :res "
                     "ORDER BY id"),
                {"r": reviewer, "res": result_id},
            ).all()
            return {(None if r[0] is None else int(r[0])): str(r[1]) for r in rows}

    def mark(
        self, reviewer: str, result_id: int, trajectory_pk: int | None, replay_answer: str, mark: str,
        blinded: bool = False, session_id: int | None = None,
    ) -> None:
        if mark not in MARKS:
            raise ValueError(f"unknown mark {mark!r}; expected one of {MARKS}")
        with self._store.session() as session:
            session.add(
                AgreementMarkRow(
                    reviewer=reviewer, result_id=result_id, trajectory_pk=trajectory_pk, replay_answer=replay_answer,
                    mark=mark, blinded=blinded, session_id=session_id, created_at=utc_now(),
                )
            )
            append_audit(
                session, reviewer, "mark", "result", result_id, None,
                after={"trajectory_pk": trajectory_pk, "replay_answer": replay_answer, "mark": mark,
                       "blinded": blinded},
            )

    def marks(self, reviewer: str | None = None, blinded: bool | None = None) -> list[Mark]:
        """The latest mark per (reviewer, result, trajectory): a changed mind replaces, not adds."""
        with self._store.read_session() as session:
            query = select(AgreementMarkRow).order_by(col(AgreementMarkRow.id))
            if reviewer is not None:
                query = query.where(AgreementMarkRow.reviewer == reviewer)
            if blinded is not None:
                query = query.where(AgreementMarkRow.blinded == blinded)
            rows = session.exec(query).all()
        latest: dict[tuple[str, int, int | None], AgreementMarkRow] = {}
        for row in rows:
            latest[(row.reviewer, row.result_id, row.trajectory_pk)] = row
        return [
            Mark(r.reviewer, r.result_id, r.trajectory_pk, r.replay_answer, r.mark, bool(r.blinded), r.created_at)
            for r in latest.values()
        ]

    # -- audit -------------------------------------------------------------------------
    def audit(self, target_kind: str | None = None, target_id: str | int | None = None) -> list[AuditEvent]:
        with self._store.read_session() as session:
            query = select(AuditEventRow).order_by(col(AuditEventRow.id))
            if target_kind is not None:
                query = query.where(AuditEventRow.target_kind == target_kind)
            if target_id is not None:
                query = query.where(AuditEventRow.target_id == str(target_id))
            rows = session.exec(query).all()
            return [
                AuditEvent(
                    id=r.id or 0, at=r.at, actor=r.actor, action=r.action, target_kind=r.target_kind,
                    target_id=r.target_id, reason=r.reason,
                    before=None if r.before_json is None else json.loads(r.before_json),
                    after=None if r.after_json is None else json.loads(r.after_json), run_id=r.run_id,
                )
                for r in rows
            ]

    def rule_audit(self, rule_id: int) -> list[AuditEvent]:
        """Everything done to a rule: its decisions, plus marks/waivers on its results."""
        with self._store.read_session() as session:
            result_ids = [
                str(r[0])
                for r in session.execute(
                    text(
                        "SELECT rr.id FROM replay_result rr JOIN rule_version rv ON rv.id = rr.rule_version_id "
                        "WHERE rv.rule_id = :rule"
                    ),
                    {"rule": rule_id},
                ).all()
            ]
        events = self.audit("rule", rule_id)
        for result_id in result_ids:
            events.extend(self.audit("result", result_id))
        return sorted(events, key=lambda e: e.id)


# -- waivers: every statement on the waiver table is here (review, promotion queue, decisions) ----
def unreviewed_broken_in(session: Session, reviewer: str | None, result_id: int) -> list[str]:
    """Broken evidence of a result that ``reviewer`` (None: any reviewer) has neither opened nor
    waived, inside the caller's transaction (the decision service checks it there)."""
    broken = [int(pk) for pk in result_block(session, result_id, ("broken",)).pk.tolist()]
    if not broken:
        return []
    by_reviewer = "" if reviewer is None else " AND reviewer = :r"
    params: dict[str, Any] = {"res": result_id} if reviewer is None else {"res": result_id, "r": reviewer}
    seen = {int(r[0]) for table in ("evidence_view", "waiver") for r in session.execute(
        text(f"SELECT trajectory_pk FROM {table} WHERE result_id = :res{by_reviewer}"), params).all()}
    left = [pk for pk in broken if pk not in seen]
    meta = trajectory_meta(session, left)
    return sorted(meta[pk].trajectory_id for pk in left if pk in meta)


def write_waiver(session: Session, reviewer: str, result_id: int, trajectory_pk: int, reason: str) -> None:
    """One waiver row and its audit event, in the caller's transaction (``core.decisions.waive`` and
    the decision service check the reason first)."""
    session.add(WaiverRow(reviewer=reviewer, result_id=result_id, trajectory_pk=trajectory_pk, reason=reason,
                          created_at=utc_now()))
    append_audit(session, reviewer, "waive_broken", "result", result_id, reason, after={"trajectory_pk": trajectory_pk})


def waivers_in(session: Session, result_id: int, reviewer: str | None = None) -> list[dict[str, Any]]:
    """A result's waivers (one reviewer's, or everyone's), oldest first, with the trajectory ids."""
    query = (
        "SELECT w.reviewer, t.trajectory_id, w.reason, w.created_at FROM waiver w "
        "JOIN trajectory t ON t.id = w.trajectory_pk WHERE w.result_id = :res"
    )
    params: dict[str, Any] = {"res": result_id}
    if reviewer is not None:
        query += " AND w.reviewer = :r"
        params["r"] = reviewer
    rows = session.execute(text(query + " ORDER BY w.id"), params).all()
    return [{"reviewer": r[0], "trajectory_id": r[1], "reason": r[2], "at": r[3]} for r in rows]


def waived_in(session: Session, reviewer: str, result_id: int) -> dict[int, str]:
    """trajectory pk -> waiver reason, for one reviewer's waivers on a result (the later one wins)."""
    rows = session.execute(
        text("SELECT trajectory_pk, reason FROM waiver WHERE reviewer = :r AND result_id = :res ORDER BY id"),
        {"r": reviewer, "res": result_id},
    ).all()
    return {int(r[0]): str(r[1]) for r in rows}


def write_decision(
    session: Session, rule_id: int, rule_version_id: int, run_id: int | None, reviewer: str, action: str,
    reason: str | None, evidence: dict[str, Any] | None, extra_audit: dict[str, Any] | None = None,
    expected_version: int | None = None,
) -> Decision:
    """One decision row and its audit event, in the caller's transaction (one shape for every surface).

    With ``expected_version`` (the rule's row version the reviewer saw) another reviewer's
    decision or edit in between is refused with who did what (``row_versions``)."""
    bump_rule(session, rule_id, expected_version)
    before = _effective(session, rule_id)
    row = DecisionRow(
        rule_id=rule_id, rule_version_id=rule_version_id, run_id=run_id, reviewer=reviewer, action=action,
        reason=reason, evidence_json=None if evidence is None else json.dumps(evidence, default=str),
        created_at=utc_now(),
    )
    session.add(row)
    session.flush()
    after: dict[str, Any] = {"action": action, "decision": row.id, "rule_version_id": rule_version_id,
                             "evidence": evidence}
    after.update(extra_audit or {})
    append_audit(
        session, reviewer, action, "rule", rule_id, reason,
        before=None if before is None else {"action": before.action, "decision": before.id},
        after=after, run_id=run_id,
    )
    return _decision(row)


def _effective(session: Session, rule_id: int) -> Decision | None:
    rows = session.exec(select(DecisionRow).where(DecisionRow.rule_id == rule_id).order_by(col(DecisionRow.id))).all()
    undone = {r.undoes_id for r in rows if r.undoes_id is not None}
    live = [r for r in rows if r.action in DECISION_ACTIONS and r.id not in undone]
    return _decision(live[-1]) if live else None


def _decision(row: DecisionRow) -> Decision:
    return Decision(
        id=row.id or 0, rule_id=row.rule_id, rule_version_id=row.rule_version_id, run_id=row.run_id,
        reviewer=row.reviewer, action=row.action, reason=row.reason, created_at=row.created_at,
    )
