"""Ground-truth labels, their history and adjudications: the reads (``LabelRepository``).

Plain reads, no policy. The writes are the label service's (``core.labels.service``: who may
label, reasons, no-op saves, merge conflicts, rulings), run through the session-level SQL in
``core.store.label_writes`` inside the service's one transaction. History and adjudications
are append-only (database triggers).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import text as sql
from sqlmodel import Session, col, select

from core.domain.errors import UnknownTrajectory
from core.domain.labels import (
    Adjudication,
    GroundTruth,
    Label,
    LabelFilter,
    LabelHistoryEntry,
    LabelQueueRow,
    LabelText,
    TrajectoryKey,
)
from core.store.engine import Store
from core.store.label_rows import KEY_SQL, adjudication_of, label_of, queue_sql, resolve_ground_truth
from core.store.label_writes import trajectory_key_in
from core.store.tables_labels import AdjudicationRow, LabelHistoryRow, LabelRow


class LabelRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    # -- trajectory keys -----------------------------------------------------------------
    def key_of(self, trajectory_pk: int) -> TrajectoryKey:
        with self._store.read_session() as session:
            return self._key(session, trajectory_pk)

    def _key(self, session: Session, trajectory_pk: int) -> TrajectoryKey:
        key = trajectory_key_in(session, trajectory_pk)
        if key is None:
            raise UnknownTrajectory(f"no trajectory #{trajectory_pk} in {self._store.path}")
        return key

    def find_trajectory(self, key: TrajectoryKey) -> tuple[int | None, str]:
        """The local trajectory for a key from another store: (pk, how) or (None, "unmatched").

        Exact (corpus, file, line, id, content hash) first; then the same record moved to
        another line of the same file; never a record whose content differs.
        """
        with self._store.read_session() as session:
            rows = session.execute(
                sql(KEY_SQL + " WHERE c.name = :corpus AND f.path = :file AND t.trajectory_id = :tid"
                    " AND t.content_hash = :hash ORDER BY t.line"),
                {"corpus": key.corpus, "file": key.file, "tid": key.trajectory_id, "hash": key.record_hash},
            ).mappings().all()
        exact = [r for r in rows if int(r["line"]) == key.line]
        if exact:
            return int(exact[0]["id"]), "exact"
        if len(rows) == 1:
            return int(rows[0]["id"]), "moved"
        return None, "unmatched" if not rows else "ambiguous"

    # -- labels ----------------------------------------------------------------------------
    def get(self, trajectory_pk: int, reviewer: str) -> Label | None:
        labels = [lb for lb in self.labels_for(trajectory_pk) if lb.reviewer == reviewer]
        return labels[0] if labels else None

    def labels_for(self, trajectory_pk: int) -> list[Label]:
        return self.labels(trajectory_pks=[trajectory_pk])

    def labels(
        self, corpus: str | None = None, reviewer: str | None = None, trajectory_pks: Sequence[int] | None = None,
        include_orphans: bool = False,
    ) -> list[Label]:
        with self._store.read_session() as session:
            query = select(LabelRow).order_by(LabelRow.corpus, LabelRow.file, col(LabelRow.line), LabelRow.reviewer)
            if corpus is not None:
                query = query.where(LabelRow.corpus == corpus)
            if reviewer is not None:
                query = query.where(LabelRow.reviewer == reviewer)
            if trajectory_pks is not None:
                query = query.where(col(LabelRow.trajectory_pk).in_(list(trajectory_pks)))
            elif not include_orphans:
                query = query.where(col(LabelRow.trajectory_pk).is_not(None))
            rows = session.exec(query).all()
            hashes = self._hashes(session, [r.trajectory_pk for r in rows if r.trajectory_pk is not None])
            return [label_of(r, hashes.get(r.trajectory_pk or -1)) for r in rows]

    @staticmethod
    def _hashes(session: Session, pks: Sequence[int]) -> dict[int, str]:
        found: dict[int, str] = {}
        for start in range(0, len(pks), 500):
            chunk = list(pks[start : start + 500])
            marks = ",".join(str(int(p)) for p in chunk)
            for pk, h in session.execute(sql(f"SELECT id, content_hash FROM trajectory WHERE id IN ({marks})")):
                found[int(pk)] = str(h)
        return found

    def reviewers(self) -> list[str]:
        with self._store.read_session() as session:
            rows = session.execute(sql("SELECT DISTINCT reviewer FROM label ORDER BY reviewer")).all()
            return [str(r[0]) for r in rows]

    def history(self, label_id: int) -> list[LabelHistoryEntry]:
        with self._store.read_session() as session:
            rows = session.exec(
                select(LabelHistoryRow).where(LabelHistoryRow.label_id == label_id).order_by(col(LabelHistoryRow.id))
            ).all()
            return [
                LabelHistoryEntry(
                    id=r.id or 0, label_id=r.label_id, actor=r.actor, action=r.action, at=r.at,
                    before=None if r.before_json is None else LabelText.from_dict(json.loads(r.before_json)),
                    after=LabelText.from_dict(json.loads(r.after_json)), reason=r.reason,
                )
                for r in rows
            ]

    # -- labelling queue ------------------------------------------------------------------
    def queue(self, reviewer: str, flt: LabelFilter | None = None, offset: int = 0, limit: int = 200) -> list[LabelQueueRow]:
        query, params = queue_sql(reviewer, flt or LabelFilter())
        with self._store.read_session() as session:
            rows = session.execute(
                sql(query + " ORDER BY c.name, f.path, t.line LIMIT :limit OFFSET :offset"),
                dict(params, limit=limit, offset=offset),
            ).mappings().all()
        result: list[LabelQueueRow] = []
        for r in rows:
            mine = None
            if r["my_trigger"] is not None:
                mine = LabelText(r["my_trigger"], r["my_directive"]).sentence()
            result.append(
                LabelQueueRow(
                    trajectory_pk=int(r["id"]), trajectory_id=r["trajectory_id"], corpus=r["corpus"], file=r["file"],
                    line=int(r["line"]), domain=r["domain"], success=bool(r["success"]),
                    failure_class=r["failure_class"], imported_rule=r["expected_rule"], my_label=mine,
                    labels=int(r["labels"]), adjudicated=bool(r["adjudicated"]),
                )
            )
        return result

    def count_queue(self, reviewer: str, flt: LabelFilter | None = None) -> int:
        query, params = queue_sql(reviewer, flt or LabelFilter())
        with self._store.read_session() as session:
            return int(session.execute(sql(f"SELECT count(*) FROM ({query}) AS queue"), params).scalar_one())

    # -- adjudication ---------------------------------------------------------------------
    def adjudications(self, trajectory_pk: int | None = None, corpus: str | None = None) -> list[Adjudication]:
        """Every adjudication, oldest first (the last one per trajectory is in force)."""
        with self._store.read_session() as session:
            query = select(AdjudicationRow).order_by(col(AdjudicationRow.created_at), col(AdjudicationRow.id))
            if trajectory_pk is not None:
                query = query.where(AdjudicationRow.trajectory_pk == trajectory_pk)
            if corpus is not None:
                query = query.where(AdjudicationRow.corpus == corpus)
            return [adjudication_of(r) for r in session.exec(query).all()]

    # -- ground truth ---------------------------------------------------------------------
    def ground_truth(self, trajectory_pk: int, reviewer: str | None = None) -> GroundTruth:
        found = self._ground_truths("t.id = :pk", {"pk": trajectory_pk}, reviewer)
        if trajectory_pk not in found:
            raise UnknownTrajectory(f"no trajectory #{trajectory_pk} in {self._store.path}")
        return found[trajectory_pk]

    def ground_truths(self, corpus: str, reviewer: str | None = None) -> dict[int, GroundTruth]:
        return self._ground_truths("c.name = :corpus", {"corpus": corpus}, reviewer)

    def _ground_truths(self, where: str, params: dict[str, Any], reviewer: str | None) -> dict[int, GroundTruth]:
        with self._store.read_session() as session:
            trajectories = session.execute(
                sql(f"SELECT t.id, t.expected_rule FROM trajectory t JOIN corpus c ON c.id = t.corpus_id "
                    f"WHERE {where} ORDER BY t.id"),
                params,
            ).all()
            pks = [int(r[0]) for r in trajectories]
            labels: dict[int, list[LabelRow]] = {}
            adjudicated: dict[int, AdjudicationRow] = {}
            for start in range(0, len(pks), 500):
                chunk = pks[start : start + 500]
                for row in session.exec(select(LabelRow).where(col(LabelRow.trajectory_pk).in_(chunk))).all():
                    labels.setdefault(row.trajectory_pk or -1, []).append(row)
                for adj in session.exec(
                    select(AdjudicationRow).where(col(AdjudicationRow.trajectory_pk).in_(chunk))
                    .order_by(col(AdjudicationRow.created_at), col(AdjudicationRow.id))
                ).all():
                    adjudicated[adj.trajectory_pk or -1] = adj
        return {
            int(pk): resolve_ground_truth(int(pk), expected, labels.get(int(pk), []), adjudicated.get(int(pk)), reviewer)
            for pk, expected in trajectories
        }
