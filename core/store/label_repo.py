"""Ground-truth labels, their history and adjudications: every query about them lives here.

Each save is one committed transaction writing the label, its history row and an audit event
together. Saving the text that is already stored writes nothing (autosave can call ``save``
on every keystroke pause). History and adjudications are append-only (database triggers).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import text as sql
from sqlmodel import Session, col, select

from core.domain.errors import ReasonRequired, UnknownTrajectory
from core.domain.labels import (
    Adjudication,
    GroundTruth,
    Label,
    LabelFilter,
    LabelHistoryEntry,
    LabelQueueRow,
    LabelText,
    SaveResult,
    TrajectoryKey,
)
from core.store.engine import Store
from core.store.label_rows import (
    KEY_SQL,
    adjudication_of,
    current_adjudication_row,
    key_of_row,
    label_of,
    queue_sql,
    resolve_ground_truth,
    text_of,
)
from core.store.review_repo import append_audit
from core.store.row_versions import check_adjudication
from core.store.tables_labels import AdjudicationRow, LabelHistoryRow, LabelRow
from core.timeutil import utc_now


class LabelRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    # -- trajectory keys -----------------------------------------------------------------
    def key_of(self, trajectory_pk: int) -> TrajectoryKey:
        with self._store.read_session() as session:
            return self._key(session, trajectory_pk)

    def _key(self, session: Session, trajectory_pk: int) -> TrajectoryKey:
        row = session.execute(sql(KEY_SQL + " WHERE t.id = :pk"), {"pk": trajectory_pk}).mappings().first()
        if row is None:
            raise UnknownTrajectory(f"no trajectory #{trajectory_pk} in {self._store.path}")
        return key_of_row(row)

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
    def save(self, trajectory_pk: int, reviewer: str, text: LabelText, reason: str | None = None) -> SaveResult:
        """Save ``reviewer``'s label for a trajectory; identical text is a no-op."""
        reviewer = reviewer.strip()
        if not reviewer:
            raise ValueError("a label needs a reviewer")
        new = text.normalised()
        new_hash = new.content_hash()
        now = utc_now()
        with self._store.session() as session:
            key = self._key(session, trajectory_pk)
            row = session.exec(
                select(LabelRow).where(LabelRow.trajectory_pk == trajectory_pk, LabelRow.reviewer == reviewer)
            ).first()
            if row is not None and row.content_hash == new_hash and row.record_hash == key.record_hash:
                return SaveResult(label_of(row, key.record_hash), changed=False)
            if row is None:
                before = None
                action = "save"
                row = LabelRow(
                    trajectory_pk=trajectory_pk, corpus=key.corpus, file=key.file, line=key.line,
                    trajectory_id=key.trajectory_id, record_hash=key.record_hash, reviewer=reviewer,
                    trigger=new.trigger, directive=new.directive, variants_json=json.dumps(list(new.variants)),
                    note=new.note, content_hash=new_hash, origin="local", created_at=now, updated_at=now,
                )
                session.add(row)
            else:
                before = text_of(row)
                # Same words on a record that changed since: the reviewer confirms them for it.
                action = "save" if row.content_hash != new_hash else "reconfirm"
                row.trigger, row.directive, row.note = new.trigger, new.directive, new.note
                row.variants_json = json.dumps(list(new.variants))
                row.content_hash, row.updated_at = new_hash, now
                row.line, row.record_hash = key.line, key.record_hash
            session.flush()
            assert row.id is not None
            self._history(session, row.id, reviewer, action, before, new, reason, now)
            append_audit(session, reviewer, f"label_{action}", "trajectory", trajectory_pk, reason,
                         before=None if before is None else before.to_dict(), after=new.to_dict())
            return SaveResult(label_of(row, key.record_hash), changed=True)

    @staticmethod
    def _history(
        session: Session, label_id: int, actor: str, action: str, before: LabelText | None, after: LabelText,
        reason: str | None, at: str,
    ) -> None:
        session.add(
            LabelHistoryRow(
                label_id=label_id, actor=actor, action=action, at=at,
                before_json=None if before is None else json.dumps(before.to_dict(), ensure_ascii=False),
                after_json=json.dumps(after.to_dict(), ensure_ascii=False), reason=reason,
            )
        )

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

    def import_label(
        self, trajectory_pk: int | None, key: TrajectoryKey, reviewer: str, text: LabelText, created_at: str,
        updated_at: str, origin: str, importer: str,
    ) -> tuple[str, Label | None]:
        """Merge one label from another store: ("added" | "same" | "conflict", label).

        The same reviewer with other words here is a conflict: nothing is overwritten.
        """
        new = text.normalised()
        new_hash = new.content_hash()
        with self._store.session() as session:
            query = select(LabelRow).where(LabelRow.reviewer == reviewer)
            if trajectory_pk is not None:
                query = query.where(LabelRow.trajectory_pk == trajectory_pk)
            else:
                query = query.where(
                    col(LabelRow.trajectory_pk).is_(None), LabelRow.corpus == key.corpus, LabelRow.file == key.file,
                    LabelRow.trajectory_id == key.trajectory_id, LabelRow.record_hash == key.record_hash,
                )
            existing = session.exec(query).first()
            if existing is not None:
                state = "same" if existing.content_hash == new_hash else "conflict"
                return state, label_of(existing)
            row = LabelRow(
                trajectory_pk=trajectory_pk, corpus=key.corpus, file=key.file, line=key.line,
                trajectory_id=key.trajectory_id, record_hash=key.record_hash, reviewer=reviewer,
                trigger=new.trigger, directive=new.directive, variants_json=json.dumps(list(new.variants)),
                note=new.note, content_hash=new_hash, origin=origin, created_at=created_at, updated_at=updated_at,
            )
            session.add(row)
            session.flush()
            assert row.id is not None
            self._history(session, row.id, importer, "import", None, new, f"{origin} ({reviewer}'s label)", utc_now())
            append_audit(session, importer, "label_import", "trajectory", trajectory_pk or key.to_json(), origin,
                         after=dict(new.to_dict(), reviewer=reviewer))
            return "added", label_of(row)

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
    def adjudicate(
        self, trajectory_pk: int, lead: str, text: LabelText, reason: str, chosen_reviewer: str | None = None,
        expected_current: int | None = None,
    ) -> Adjudication:
        """A lead's ruling. ``expected_current``: the id of the adjudication the lead saw (0: none);
        another lead's ruling since is refused with who ruled what (``row_versions``)."""
        reason = (reason or "").strip()
        if not reason:
            raise ReasonRequired("an adjudication needs a reason")
        new = text.normalised()
        with self._store.session() as session:
            key = self._key(session, trajectory_pk)
            check_adjudication(session, trajectory_pk, expected_current)
            before = current_adjudication_row(session, trajectory_pk)
            row = AdjudicationRow(
                trajectory_pk=trajectory_pk, corpus=key.corpus, file=key.file, line=key.line,
                trajectory_id=key.trajectory_id, record_hash=key.record_hash, lead=lead,
                chosen_reviewer=chosen_reviewer, trigger=new.trigger, directive=new.directive,
                variants_json=json.dumps(list(new.variants)), note=new.note, reason=reason,
                content_hash=new.content_hash(), origin="local", created_at=utc_now(),
            )
            session.add(row)
            session.flush()
            append_audit(
                session, lead, "adjudicate", "trajectory", trajectory_pk, reason,
                before=None if before is None else dict(text_of(before).to_dict(), lead=before.lead),
                after=dict(new.to_dict(), chosen_reviewer=chosen_reviewer),
            )
            return adjudication_of(row)

    def import_adjudication(
        self, trajectory_pk: int | None, key: TrajectoryKey, lead: str, chosen_reviewer: str | None, text: LabelText,
        reason: str, created_at: str, origin: str, importer: str,
    ) -> tuple[str, Adjudication | None]:
        """("added" | "same" | "conflict", adjudication). A different ruling in force here is a conflict."""
        new = text.normalised()
        new_hash = new.content_hash()
        with self._store.session() as session:
            current = current_adjudication_row(session, trajectory_pk)
            if current is None and trajectory_pk is None:
                current = session.exec(
                    select(AdjudicationRow).where(
                        col(AdjudicationRow.trajectory_pk).is_(None), AdjudicationRow.corpus == key.corpus,
                        AdjudicationRow.file == key.file, AdjudicationRow.trajectory_id == key.trajectory_id,
                        AdjudicationRow.record_hash == key.record_hash,
                    ).order_by(col(AdjudicationRow.created_at).desc())
                ).first()
            if current is not None:
                return ("same" if current.content_hash == new_hash else "conflict"), adjudication_of(current)
            row = AdjudicationRow(
                trajectory_pk=trajectory_pk, corpus=key.corpus, file=key.file, line=key.line,
                trajectory_id=key.trajectory_id, record_hash=key.record_hash, lead=lead,
                chosen_reviewer=chosen_reviewer, trigger=new.trigger, directive=new.directive,
                variants_json=json.dumps(list(new.variants)), note=new.note, reason=reason, content_hash=new_hash,
                origin=origin, created_at=created_at,
            )
            session.add(row)
            session.flush()
            append_audit(session, importer, "adjudication_import", "trajectory", trajectory_pk or key.to_json(),
                         reason, after=dict(new.to_dict(), lead=lead))
            return "added", adjudication_of(row)

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
        with self._store.session() as session:
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
