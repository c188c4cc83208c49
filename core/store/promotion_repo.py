"""Promotions: standing rules made in the Workbench, and the queries the promotion screens need.

All SQL of the promotion work lives here. The ``*_in(session, …)`` writers run inside the
decision service's one transaction (``core.decisions``), where every approval rule is checked.
Standing ids (``R-001`` …) come from the ``id_counter`` table and are never reused: the
counter only grows and starts above every imported ``R-NNN``.
"""

from __future__ import annotations

import builtins  # the class has a method called `list`; its annotations need the type
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlmodel import Session, col, select

from core.domain.errors import BrokenNotOpened, PromotionError
from core.store.engine import Store
from core.store.outcome_reads import bucket_of, result_block, trajectory_meta
from core.store.review_repo import Decision, append_audit, unreviewed_broken_in, waivers_in
from core.store.row_versions import bump_rule
from core.store.tables import RuleRow
from core.store.tables_promotion import PromotionRow
from core.timeutil import utc_now

STANDING_SERIES = "R"
STATUSES = ("active", "retired", "superseded")
_RULE_REF = re.compile(r"^R-(\d+)$")


@dataclass(frozen=True)
class Promotion:
    id: int
    rule_id: int
    rule_version_id: int
    decision_id: int | None
    standing_id: str
    status: str
    superseded_by: str | None
    status_reason: str | None
    provenance: dict[str, Any]
    evidence: dict[str, Any]
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class ResultRef:
    """A replay result together with its run's identity (what an approval rests on)."""

    result_id: int
    run_id: int
    rule_id: int
    rule_version_id: int
    verdict: str
    reason: str
    run_status: str


@dataclass(frozen=True)
class MarkCounts:
    right: int
    wrong: int
    cant_tell: int


class PromotionRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    # -- approve / re-approve ------------------------------------------------------------

    # -- lifecycle -----------------------------------------------------------------------
    def retire(self, standing_id: str, actor: str, reason: str, expected_version: int | None = None) -> Promotion:
        with self._store.session() as session:
            return retire_in(session, standing_id, actor, reason, expected_version=expected_version)

    def supersede(self, standing_id: str, by_standing_id: str, actor: str, reason: str,
                  expected_version: int | None = None) -> Promotion:
        with self._store.session() as session:
            return supersede_in(session, standing_id, by_standing_id, actor, reason, expected_version=expected_version)

    # -- reads ---------------------------------------------------------------------------
    def get(self, standing_id: str) -> Promotion | None:
        with self._store.read_session() as session:
            row = session.exec(select(PromotionRow).where(PromotionRow.standing_id == standing_id)).first()
            return None if row is None else _promotion(row)

    def list(self, statuses: Sequence[str] | None = None, rule_id: int | None = None) -> list[Promotion]:
        with self._store.read_session() as session:
            query = select(PromotionRow)
            if statuses is not None:
                query = query.where(col(PromotionRow.status).in_(list(statuses)))
            if rule_id is not None:
                query = query.where(PromotionRow.rule_id == rule_id)
            rows = session.exec(query.order_by(col(PromotionRow.id))).all()
            return [_promotion(r) for r in rows]

    def active_for_rule(self, rule_id: int) -> Promotion | None:
        found = self.list(["active"], rule_id=rule_id)
        return found[0] if found else None

    def result_ref(self, run_id: int, rule_id: int) -> ResultRef | None:
        """The result of ``rule_id`` in ``run_id`` (a run replays one version per rule)."""
        rows = self._result_refs(
            "WHERE rr.run_id = :run AND rv.rule_id = :rule ORDER BY rr.id DESC", {"run": run_id, "rule": rule_id}
        )
        return rows[0] if rows else None

    def newest_complete_result_for_version(self, rule_version_id: int) -> ResultRef | None:
        rows = self._result_refs(
            "WHERE rr.rule_version_id = :v AND run.status = 'complete' ORDER BY run.id DESC LIMIT 1",
            {"v": rule_version_id},
        )
        return rows[0] if rows else None

    def newest_complete_results_per_rule(self, latest_version_only: bool = True) -> dict[int, ResultRef]:
        """For each rule, its result in the newest complete run that replayed it.

        With ``latest_version_only`` the result must be for the rule's current version: a
        verdict on text the rule no longer has is not a verdict on the rule.
        """
        version_filter = (
            "AND rr.rule_version_id = (SELECT v2.id FROM rule_version v2 WHERE v2.rule_id = rv.rule_id "
            "ORDER BY v2.version DESC LIMIT 1)"
            if latest_version_only else ""
        )
        refs = self._result_refs(f"WHERE run.status = 'complete' {version_filter} ORDER BY run.id", {})
        newest: dict[int, ResultRef] = {}
        for ref in refs:
            newest[ref.rule_id] = ref  # ascending run id: the last one wins
        return newest

    def _result_refs(self, where: str, params: dict[str, Any]) -> builtins.list[ResultRef]:
        with self._store.read_session() as session:
            rows = session.execute(
                text(
                    "SELECT rr.id, rr.run_id, rv.rule_id, rr.rule_version_id, rr.verdict, rr.reason, run.status "
                    "FROM replay_result rr JOIN rule_version rv ON rv.id = rr.rule_version_id "
                    f"JOIN replay_run run ON run.id = rr.run_id {where}"
                ),
                params,
            ).all()
        return [ResultRef(int(r[0]), int(r[1]), int(r[2]), int(r[3]), str(r[4]), str(r[5]), str(r[6])) for r in rows]

    def bucket_members(self, result_ids: Sequence[int]) -> dict[int, dict[str, builtins.list[tuple[int, str, str]]]]:
        """result id -> bucket -> [(trajectory pk, trajectory id, corpus)], ordered by id."""
        found: dict[int, dict[str, list[tuple[int, str, str]]]] = {int(r): {} for r in result_ids}
        if not result_ids:
            return found
        rows: list[tuple[int, str, int, str, str]] = []
        with self._store.read_session() as session:
            for result_id in dict.fromkeys(int(r) for r in result_ids):
                buckets = bucket_of(result_block(session, result_id))
                meta = trajectory_meta(session, list(buckets))
                rows.extend((result_id, bucket, pk, meta[pk].trajectory_id, meta[pk].corpus)
                            for pk, bucket in buckets.items() if pk in meta)
        rows.sort(key=lambda r: (r[3], r[2]))
        for result_id, bucket, pk, tid, corpus in rows:
            found[int(result_id)].setdefault(str(bucket), []).append((int(pk), str(tid), str(corpus)))
        return found

    def unreviewed_broken_any(self, result_id: int) -> builtins.list[str]:
        """Broken trajectories of a result that no reviewer has opened or waived."""
        with self._store.read_session() as session:
            return unreviewed_broken_in(session, None, result_id)

    def waivers(self, result_id: int, reviewer: str | None = None) -> builtins.list[dict[str, Any]]:
        with self._store.read_session() as session:
            return waivers_in(session, result_id, reviewer)

    def run_mark_counts(self, run_id: int) -> MarkCounts:
        """Human-vs-replay marks on a run's results: the latest mark per (reviewer, result, item)."""
        with self._store.read_session() as session:
            rows = session.execute(
                text(
                    """SELECT m.reviewer, m.result_id, m.trajectory_pk, m.mark FROM agreement_mark m
                       JOIN replay_result rr ON rr.id = m.result_id WHERE rr.run_id = :run ORDER BY m.id"""
                ),
                {"run": run_id},
            ).all()
        latest: dict[tuple[str, int, int | None], str] = {}
        for reviewer, result_id, trajectory_pk, mark in rows:
            latest[(str(reviewer), int(result_id), trajectory_pk)] = str(mark)
        counts = Counter(latest.values())
        return MarkCounts(counts.get("right", 0), counts.get("wrong", 0), counts.get("cant_tell", 0))

    def rule_data(self, rule_id: int) -> dict[str, Any]:
        """The mapping a rule was imported from (``rule.data_json``), or {} if none/unreadable."""
        with self._store.read_session() as session:
            row = session.get(RuleRow, rule_id)
            raw = None if row is None else row.data_json
        try:
            value = json.loads(raw) if raw else {}
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


# -- writes inside the caller's transaction (the decision service's one transaction) ------
def refuse_unreviewed_broken(session: Session, reviewer: str, result_id: int) -> None:
    missing = unreviewed_broken_in(session, reviewer, result_id)
    if missing:
        raise BrokenNotOpened(
            f"approval refused: {len(missing)} broken trajector{'y' if len(missing) == 1 else 'ies'} "
            f"not yet opened or waived ({', '.join(missing[:5])}{', …' if len(missing) > 5 else ''}); "
            "open each one or waive it with a reason",
            tuple(missing),
        )


def promote_in(
    session: Session, decision: Decision, rule_id: int, rule_version_id: int, run_id: int, reviewer: str,
    reason: str | None, provenance: dict[str, Any], evidence: dict[str, Any], extra_audit: dict[str, Any] | None = None,
) -> tuple[Promotion, bool]:
    """Make (or refresh) the standing rule of an approval just written in this transaction.

    An active promotion of the same rule is refreshed in place (re-approval: new evidence,
    same standing id); a retired or superseded one is history, so approving again allocates a
    new id.
    """
    now = utc_now()
    row = session.exec(
        select(PromotionRow).where(PromotionRow.rule_id == rule_id, PromotionRow.status == "active")
    ).first()
    created = row is None
    extra = extra_audit or {}
    if row is None:
        standing_id = _allocate_standing_id(session)
        row = PromotionRow(
            rule_id=rule_id, rule_version_id=rule_version_id, decision_id=decision.id,
            standing_id=standing_id, status="active", provenance_json=_dump(provenance),
            evidence_json=_dump(evidence), created_at=now, updated_at=now,
        )
        session.add(row)
        session.flush()
        append_audit(session, reviewer, "promote", "promotion", standing_id, reason,
                     after={"rule_id": rule_id, "rule_version_id": rule_version_id,
                            "decision": decision.id, "evidence": evidence, **extra}, run_id=run_id)
    else:
        old = {"rule_version_id": row.rule_version_id, "decision": row.decision_id,
               "evidence": json.loads(row.evidence_json)}
        row.rule_version_id, row.decision_id = rule_version_id, decision.id
        row.provenance_json, row.evidence_json, row.updated_at = _dump(provenance), _dump(evidence), now
        session.add(row)
        append_audit(session, reviewer, "reapprove", "promotion", row.standing_id, reason, before=old,
                     after={"rule_version_id": rule_version_id, "decision": decision.id, "evidence": evidence,
                            **extra}, run_id=run_id)
    session.flush()
    return _promotion(row), created


def retire_in(session: Session, standing_id: str, actor: str, reason: str,
              extra_audit: dict[str, Any] | None = None, expected_version: int | None = None) -> Promotion:
    """Retire an active standing rule; ``expected_version``: its rule's row version the actor saw."""
    row = _get_row(session, standing_id)
    # The version first: a rule another reviewer retired, superseded or re-approved since is a
    # conflict naming them (ConcurrentChangeError), not a bare "it is retired".
    bump_rule(session, row.rule_id, expected_version)
    if row.status != "active":
        raise PromotionError(f"cannot retire {standing_id}: it is {row.status}, not active")
    before = _state(row)
    row.status, row.status_reason, row.updated_at = "retired", reason, utc_now()
    session.add(row)
    append_audit(session, actor, "retire", "promotion", standing_id, reason, before=before,
                 after={**_state(row), **(extra_audit or {})})
    return _promotion(row)


def supersede_in(session: Session, standing_id: str, by_standing_id: str, actor: str, reason: str,
                 extra_audit: dict[str, Any] | None = None, expected_version: int | None = None) -> Promotion:
    """Replace a standing rule by an active one; ``expected_version`` as for ``retire_in`` (the
    superseded rule's version: that is the rule the write changes)."""
    if standing_id == by_standing_id:
        raise PromotionError(f"{standing_id} cannot supersede itself")
    row = _get_row(session, standing_id)
    successor = _get_row(session, by_standing_id)
    bump_rule(session, row.rule_id, expected_version)
    if row.status == "superseded":
        raise PromotionError(f"{standing_id} is already superseded by {row.superseded_by}")
    if successor.status != "active":
        raise PromotionError(f"the successor {by_standing_id} is {successor.status}, not active")
    before = _state(row)
    row.status, row.superseded_by, row.status_reason = "superseded", by_standing_id, reason
    row.updated_at = utc_now()
    session.add(row)
    append_audit(session, actor, "supersede", "promotion", standing_id, reason, before=before,
                 after={**_state(row), **(extra_audit or {})})
    return _promotion(row)


def active_in(session: Session, rule_id: int) -> Promotion | None:
    row = session.exec(
        select(PromotionRow).where(PromotionRow.rule_id == rule_id, PromotionRow.status == "active")
    ).first()
    return None if row is None else _promotion(row)


# -- helpers ---------------------------------------------------------------------------
def _max_imported(session: Session) -> int:
    refs = session.execute(text("SELECT rule_ref FROM rule WHERE rule_ref LIKE 'R-%'")).all()
    numbers = [int(m.group(1)) for (ref,) in refs if ref and (m := _RULE_REF.match(str(ref)))]
    return max(numbers, default=0)


def _next_value(session: Session) -> int:
    row = session.execute(
        text("SELECT next_value FROM id_counter WHERE name = :n"), {"n": STANDING_SERIES}
    ).first()
    stored = int(row[0]) if row else 1
    return max(stored, _max_imported(session) + 1)


def _allocate_standing_id(session: Session) -> str:
    # Inside the approval's write transaction: read and bump happen under one write lock.
    value = _next_value(session)
    session.execute(
        text(
            "INSERT INTO id_counter (name, next_value) VALUES (:n, :v) "
            "ON CONFLICT(name) DO UPDATE SET next_value = excluded.next_value"
        ),
        {"n": STANDING_SERIES, "v": value + 1},
    )
    return _format_id(value)


def _format_id(value: int) -> str:
    return f"{STANDING_SERIES}-{value:03d}"


def _get_row(session: Session, standing_id: str) -> PromotionRow:
    row = session.exec(select(PromotionRow).where(PromotionRow.standing_id == standing_id)).first()
    if row is None:
        raise PromotionError(f"no standing rule {standing_id!r} in this store")
    return row


def _state(row: PromotionRow) -> dict[str, Any]:
    return {"status": row.status, "superseded_by": row.superseded_by, "reason": row.status_reason}


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _promotion(row: PromotionRow) -> Promotion:
    return Promotion(
        id=row.id or 0, rule_id=row.rule_id, rule_version_id=row.rule_version_id, decision_id=row.decision_id,
        standing_id=row.standing_id, status=row.status, superseded_by=row.superseded_by,
        status_reason=row.status_reason, provenance=json.loads(row.provenance_json),
        evidence=json.loads(row.evidence_json), created_at=row.created_at, updated_at=row.updated_at,
    )
