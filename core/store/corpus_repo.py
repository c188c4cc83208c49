"""Corpora, source files and trajectories: every query about them lives here."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Integer, cast, delete, func, insert, or_, text, update
from sqlmodel import col, select

from core.store.dto import CorpusInfo, TrajectoryDetail, TrajectorySummary
from core.store.engine import Store
from core.store.postgres import json_values_sql
from core.store.tables import CorpusRow, RuleRow, SourceFileRow, TrajectoryRow
from core.timeutil import utc_now


@dataclass(frozen=True)
class StoredRecordKey:
    """What the importer needs to reconcile a file's records with the store."""

    id: int
    line: int
    trajectory_id: str
    content_hash: str


@dataclass(frozen=True)
class TrajectoryFilter:
    text: str = ""
    corpus: str | None = None
    domain: str | None = None
    success: bool | None = None
    has_expected_rule: bool | None = None
    # Restrict to these primary keys (a filter computed outside SQL, e.g. the gate); None: no restriction.
    pks: tuple[int, ...] | None = None


class CorpusRepository:
    def __init__(self, store: Store) -> None:
        self._store = store
        # SQLite's LIKE already ignores ASCII case, exactly as its lower() folds it, so the
        # text filter skips four lower() calls a row there; elsewhere ILIKE.
        self._dialect = store.engine.dialect.name

    # -- corpora -----------------------------------------------------------------------
    def ensure_corpus(self, name: str, role: str, role_source: str) -> int:
        """Create the corpus if new; a role the user set by hand is never overwritten."""
        with self._store.session() as session:
            row = session.exec(select(CorpusRow).where(CorpusRow.name == name)).first()
            if row is None:
                row = CorpusRow(name=name, role=role, role_source=role_source, created_at=utc_now())
                session.add(row)
                session.flush()
            elif row.role_source != "user" and (row.role, row.role_source) != (role, role_source):
                row.role, row.role_source = role, role_source
            assert row.id is not None
            return row.id

    def corpus_ids(self) -> dict[str, int]:
        """Name -> id for every corpus (one cheap query; no counts)."""
        with self._store.read_session() as session:
            return {str(name): int(cid) for cid, name in session.execute(select(CorpusRow.id, CorpusRow.name)).all()}

    def role_of(self, name: str) -> tuple[str, str] | None:
        """(role, how it was decided) of one corpus, or None if there is no such corpus."""
        with self._store.read_session() as session:
            row = session.exec(select(CorpusRow).where(CorpusRow.name == name)).first()
            return (row.role, row.role_source) if row else None

    def list_corpora(self) -> list[CorpusInfo]:
        with self._store.read_session() as session:
            traj_counts = dict(
                session.execute(
                    select(TrajectoryRow.corpus_id, func.count()).group_by(col(TrajectoryRow.corpus_id))
                ).all()
            )
            rule_counts = dict(
                session.execute(select(RuleRow.corpus_id, func.count()).group_by(col(RuleRow.corpus_id))).all()
            )
            rows = session.exec(select(CorpusRow).order_by(CorpusRow.name)).all()
            return [
                CorpusInfo(
                    id=r.id or 0,
                    name=r.name,
                    role=r.role,
                    role_source=r.role_source,
                    trajectories=int(traj_counts.get(r.id, 0)),
                    rules=int(rule_counts.get(r.id, 0)),
                )
                for r in rows
            ]

    # -- files -------------------------------------------------------------------------
    def file_hash(self, corpus_id: int, path: str) -> str | None:
        with self._store.read_session() as session:
            row = session.exec(
                select(SourceFileRow).where(SourceFileRow.corpus_id == corpus_id, SourceFileRow.path == path)
            ).first()
            return row.content_hash if row else None

    def upsert_file(self, corpus_id: int, path: str, kind: str, content_hash: str, size: int) -> int:
        with self._store.session() as session:
            row = session.exec(
                select(SourceFileRow).where(SourceFileRow.corpus_id == corpus_id, SourceFileRow.path == path)
            ).first()
            if row is None:
                row = SourceFileRow(
                    corpus_id=corpus_id, path=path, kind=kind, content_hash=content_hash,
                    size=size, imported_at=utc_now(),
                )
                session.add(row)
                session.flush()
            else:
                row.kind, row.content_hash, row.size, row.imported_at = kind, content_hash, size, utc_now()
            assert row.id is not None
            return row.id

    def set_file_hash(self, file_id: int, content_hash: str) -> None:
        with self._store.session() as session:
            session.execute(
                update(SourceFileRow).where(col(SourceFileRow.id) == file_id).values(content_hash=content_hash)
            )

    def file_id(self, corpus_id: int, path: str) -> int | None:
        with self._store.read_session() as session:
            row = session.exec(
                select(SourceFileRow).where(SourceFileRow.corpus_id == corpus_id, SourceFileRow.path == path)
            ).first()
            return row.id if row else None

    # -- trajectories: writes ----------------------------------------------------------
    def records_of_file(self, file_id: int) -> list[StoredRecordKey]:
        with self._store.read_session() as session:
            rows = session.execute(
                select(TrajectoryRow.id, TrajectoryRow.line, TrajectoryRow.trajectory_id, TrajectoryRow.content_hash)
                .where(TrajectoryRow.file_id == file_id)
                .order_by(col(TrajectoryRow.line))
            ).all()
            return [StoredRecordKey(int(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]

    def apply_file_changes(
        self,
        file_id: int,
        inserts: Sequence[dict[str, Any]],
        updates: Sequence[tuple[int, dict[str, Any]]],
        removals: Iterable[int],
        content_hash: str | None = None,
    ) -> None:
        """Reconcile one file in a single transaction, so a file is never half-imported.

        ``content_hash`` is the file's new hash, committed with its records: a file whose
        hash is stored is a file whose records are stored (see ``core.importing``).
        """
        with self._store.session() as session:
            if content_hash is not None:
                session.execute(
                    update(SourceFileRow).where(col(SourceFileRow.id) == file_id).values(content_hash=content_hash)
                )
            removal_ids = list(removals)
            if removal_ids:
                # Free the (file, line) slots first: updated records may move onto them.
                session.execute(delete(TrajectoryRow).where(col(TrajectoryRow.id).in_(removal_ids)))
            # Park updated rows on negative lines first so moved records never collide on
            # the UNIQUE(file_id, line) constraint while they swap places.
            for row_id, _values in updates:
                session.execute(update(TrajectoryRow).where(col(TrajectoryRow.id) == row_id).values(line=-row_id))
            for row_id, values in updates:
                session.execute(update(TrajectoryRow).where(col(TrajectoryRow.id) == row_id).values(**values))
            if inserts:
                session.execute(insert(TrajectoryRow), [dict(values, file_id=file_id) for values in inserts])

    # -- trajectories: reads -----------------------------------------------------------
    def count_trajectories(self, flt: TrajectoryFilter | None = None) -> int:
        with self._store.read_session() as session:
            query = select(func.count()).select_from(TrajectoryRow).join(CorpusRow)
            query = _apply_filter(query, flt or TrajectoryFilter(), self._dialect)
            return int(session.execute(query).scalar_one())

    def list_trajectories(
        self, flt: TrajectoryFilter | None = None, offset: int = 0, limit: int = 200,
        order_by: str = "id", descending: bool = False,
    ) -> list[TrajectorySummary]:
        columns = {
            "id": TrajectoryRow.id, "trajectory_id": TrajectoryRow.trajectory_id, "corpus": CorpusRow.name,
            "domain": TrajectoryRow.domain, "success": TrajectoryRow.success,
            "failure_class": TrajectoryRow.failure_class, "expected_rule": TrajectoryRow.expected_rule,
        }
        sort_column = col(columns.get(order_by, TrajectoryRow.id))
        with self._store.read_session() as session:
            query = select(  # type: ignore[call-overload]  # sqlmodel's select() is typed for up to 4 columns
                TrajectoryRow.id, TrajectoryRow.trajectory_id, CorpusRow.name, TrajectoryRow.domain,
                TrajectoryRow.success, TrajectoryRow.failure_class, TrajectoryRow.expected_rule,
            ).join(CorpusRow)
            flt = flt or TrajectoryFilter()
            order = (sort_column.desc() if descending else sort_column, col(TrajectoryRow.id))
            # The page's ids first, from narrow indexes, then those rows: a sort no index
            # answers (success descending, ids ascending) or a text filter (which tests every
            # row) then reads the covering index ix_trajectory_search, not the wide table rows
            # with their records. With a text filter the ids are ordered by expressions no index
            # answers (``_unindexed``): an ordered index would make SQLite walk the table rows
            # in that order, testing each, to skip a sort of the (few) matches.
            ids = _apply_filter(select(TrajectoryRow.id).join(CorpusRow), flt, self._dialect)
            if flt.text:
                key = _unindexed(columns.get(order_by, TrajectoryRow.id), order_by)
                ids = ids.order_by(key.desc() if descending else key, cast(TrajectoryRow.id, Integer))
            else:
                ids = ids.order_by(*order)
            ids = ids.offset(offset).limit(limit)
            query = query.where(col(TrajectoryRow.id).in_(ids.scalar_subquery())).order_by(*order)
            rows = session.execute(query).all()
            return [
                TrajectorySummary(
                    id=int(r[0]), trajectory_id=r[1], corpus=r[2], domain=r[3], success=bool(r[4]),
                    failure_class=r[5], has_expected_rule=bool(r[6]),
                )
                for r in rows
            ]

    def get_trajectory(self, trajectory_pk: int) -> TrajectoryDetail | None:
        details = self.get_trajectories([trajectory_pk])
        return details[0] if details else None

    def get_trajectories(self, ids: Sequence[int] | None = None, corpus: str | None = None) -> list[TrajectoryDetail]:
        with self._store.read_session() as session:
            query = (
                select(TrajectoryRow, CorpusRow.name, SourceFileRow.path)
                .join(CorpusRow, col(CorpusRow.id) == col(TrajectoryRow.corpus_id))
                .join(SourceFileRow, col(SourceFileRow.id) == col(TrajectoryRow.file_id))
            )
            if ids is not None:
                query = query.where(col(TrajectoryRow.id).in_(list(ids)))
            if corpus is not None:
                query = query.where(CorpusRow.name == corpus)
            rows = session.execute(query.order_by(col(SourceFileRow.path), col(TrajectoryRow.line))).all()
            return [_detail(r[0], r[1], r[2]) for r in rows]

    def corpus_records(self, corpus: str) -> list[tuple[str, dict[str, Any]]]:
        """(file path, original object) for every record of a corpus, in file order."""
        return [(d.file, d.record) for d in self.get_trajectories(corpus=corpus)]

    def domains(self) -> list[str]:
        with self._store.read_session() as session:
            rows = session.execute(
                select(TrajectoryRow.domain).where(col(TrajectoryRow.domain).is_not(None)).distinct()
            ).all()
            return sorted(str(r[0]) for r in rows)

    def trajectory_pks(self) -> list[int]:
        """Every trajectory's primary key, ascending (lets a long scan read the records in chunks)."""
        with self._store.read_session() as session:
            return [int(r[0]) for r in session.execute(select(TrajectoryRow.id).order_by(col(TrajectoryRow.id))).all()]

    def task_pool(self) -> list[tuple[int, str, bool]]:
        """(pk, task, success) of every trajectory, by pk: the injection pool without the records."""
        with self._store.read_session() as session:
            query = select(TrajectoryRow.id, TrajectoryRow.task, TrajectoryRow.success).order_by(col(TrajectoryRow.id))
            return [(int(r[0]), str(r[1]), bool(r[2])) for r in session.execute(query).all()]


def _unindexed(column: Any, name: str) -> Any:
    """The same order as ``column`` through an expression that no index provides."""
    if name in ("id", "success"):
        return cast(column, Integer)
    return col(column).concat("")  # NULL || '' stays NULL: NULLs still sort first


def _apply_filter(query: Any, flt: TrajectoryFilter, dialect: str = "sqlite") -> Any:
    like_ignores_case = dialect == "sqlite"  # SQLite's LIKE ignores ASCII case; PostgreSQL has ILIKE
    if flt.pks is not None:
        # One JSON parameter instead of one per id: no SQLite variable limit on big corpora.
        query = query.where(col(TrajectoryRow.id).in_(text(json_values_sql(dialect, "loop_pks", integer=True)).bindparams(
            loop_pks=json.dumps(list(flt.pks)))))
    if flt.corpus:
        query = query.where(CorpusRow.name == flt.corpus)
    if flt.domain:
        query = query.where(TrajectoryRow.domain == flt.domain)
    if flt.success is not None:
        query = query.where(TrajectoryRow.success == flt.success)
    if flt.has_expected_rule is True:
        query = query.where(col(TrajectoryRow.expected_rule).is_not(None), TrajectoryRow.expected_rule != "")
    elif flt.has_expected_rule is False:
        query = query.where(or_(col(TrajectoryRow.expected_rule).is_(None), col(TrajectoryRow.expected_rule) == ""))
    if flt.text:
        pattern = f"%{flt.text}%"
        columns = (TrajectoryRow.trajectory_id, TrajectoryRow.task, TrajectoryRow.failure_class, TrajectoryRow.domain)
        query = query.where(or_(*(col(c).like(pattern) if like_ignores_case else col(c).ilike(pattern)
                                  for c in columns)))
    return query


def _detail(row: TrajectoryRow, corpus: str, file: str) -> TrajectoryDetail:
    return TrajectoryDetail(
        id=row.id or 0, trajectory_id=row.trajectory_id, corpus=corpus, file=file, line=row.line,
        domain=row.domain, success=bool(row.success), failure_class=row.failure_class,
        failure_point=row.failure_point, task=row.task, expected_outcome=row.expected_outcome,
        expected_rule=row.expected_rule, role=row.role, raw_text=row.raw_text, record_json=row.record_json,
    )
