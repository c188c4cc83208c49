"""Writing many imported trajectory files in few transactions.

Why batches: each unit of work opens a connection (the store uses one per session), so an
import that spent three write transactions and three reads per file took 9 ms a file
whatever its size; 50,000 one-record files took 450 s, and 223 s even when nothing had
changed. Now the importer reads every stored file hash in one query, skips unchanged files
without touching the store, and writes changed files in batches, each batch one
transaction holding the files' rows, their records and their new hashes.

The guarantee is unchanged: a file's hash is committed in the same transaction as its
records, so a killed import leaves each file either fully imported with its new hash or
with its old hash (or none), and the next import reads it again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, delete, insert, update
from sqlmodel import Session, col, select

from core.store.corpus_repo import StoredRecordKey
from core.store.engine import Store
from core.store.tables import AgreementMarkRow, EvidenceViewRow, SourceFileRow, TrajectoryRow, WaiverRow
from core.timeutil import utc_now

_PEOPLES_WORK = (EvidenceViewRow, WaiverRow, AgreementMarkRow)

# A batch closes at whichever comes first: enough files to make the commit cheap per file,
# few enough records that the write lock is held for well under a second (other writers
# wait for it) and a killed import repeats little.
MAX_FILES_PER_BATCH = 500
MAX_RECORDS_PER_BATCH = 5_000


@dataclass(frozen=True)
class FileChange:
    """One trajectory file whose bytes differ from what the store last imported."""

    corpus_id: int
    path: str
    content_hash: str
    size: int
    records: Sequence[dict[str, Any]]  # column values of each record (``file_id`` is added here)
    corpus: str = ""  # the corpus's name, for the caller's counts


@dataclass(frozen=True)
class FileOutcome:
    path: str
    inserted: int
    updated: int
    removed: int
    unchanged: int
    kept: int = 0  # dropped from the file but kept: reviewers' work points at them


def stored_file_hashes(store: Store, corpus_ids: Iterable[int]) -> dict[tuple[int, str], str]:
    """(corpus id, path) -> stored content hash of every file of these corpora, in one query."""
    ids = sorted(set(corpus_ids))
    if not ids:
        return {}
    with store.read_session() as session:
        rows = session.execute(
            select(SourceFileRow.corpus_id, SourceFileRow.path, SourceFileRow.content_hash)
            .where(col(SourceFileRow.corpus_id).in_(ids))
        ).all()
    return {(int(r[0]), str(r[1])): str(r[2]) for r in rows}


def batches(changes: Iterable[FileChange]) -> Iterator[list[FileChange]]:
    """Group changed files into batches bounded by files and records (a big file is alone)."""
    batch: list[FileChange] = []
    records = 0
    for change in changes:
        if batch and (len(batch) >= MAX_FILES_PER_BATCH or records + len(change.records) > MAX_RECORDS_PER_BATCH):
            yield batch
            batch, records = [], 0
        batch.append(change)
        records += len(change.records)
    if batch:
        yield batch


def write_trajectory_files(store: Store, batch: Sequence[FileChange]) -> list[FileOutcome]:
    """Reconcile and write every file of ``batch`` in one transaction, hashes included.

    A few statements per batch, not per file: the file rows, their stored records, the
    removals and the inserts each go in one statement (updates of edited records stay one
    each; they are rare)."""
    outcomes: list[FileOutcome] = []
    with store.session() as session:
        file_ids = _upsert_files(session, batch)
        stored = _records_of_files(session, file_ids)
        inserts: list[dict[str, Any]] = []
        updates: list[tuple[int, dict[str, Any]]] = []
        removals: list[int] = []
        reconciled = [reconcile(stored.get(file_id, []), change.records) for change, file_id in
                      zip(batch, file_ids, strict=True)]
        referenced = referenced_trajectories(session, [pk for r in reconciled for pk in r[2]])
        kept: list[int] = []
        for change, file_id, (added, changed, removed, unchanged) in zip(batch, file_ids, reconciled, strict=True):
            inserts.extend(dict(values, file_id=file_id) for values in added)
            updates.extend(changed)
            removals.extend(pk for pk in removed if pk not in referenced)
            kept.extend(pk for pk in removed if pk in referenced)
            held = sum(1 for pk in removed if pk in referenced)
            outcomes.append(FileOutcome(change.path, len(added), len(changed), len(removed) - held, unchanged, held))
        _apply(session, inserts, updates, removals, kept)
    return outcomes


def _upsert_files(session: Session, batch: Sequence[FileChange]) -> list[int]:
    """The id of each file's row (created if new), with its new hash and size set."""
    existing = _file_ids(session, batch)
    now = utc_now()
    known = [(existing[(c.corpus_id, c.path)], c) for c in batch if (c.corpus_id, c.path) in existing]
    if known:
        # On the connection: a plain executemany (the ORM session would want primary keys by name).
        session.connection().execute(
            update(SourceFileRow).where(col(SourceFileRow.id) == bindparam("file_id")).values(
                kind="trajectories", content_hash=bindparam("new_hash"), size=bindparam("new_size"), imported_at=now),
            [{"file_id": file_id, "new_hash": c.content_hash, "new_size": c.size} for file_id, c in known],
        )
    new = [c for c in batch if (c.corpus_id, c.path) not in existing]
    if new:
        session.execute(insert(SourceFileRow), [
            {"corpus_id": c.corpus_id, "path": c.path, "kind": "trajectories", "content_hash": c.content_hash,
             "size": c.size, "imported_at": now} for c in new
        ])
        existing.update(_file_ids(session, new))
    return [existing[(c.corpus_id, c.path)] for c in batch]


def _file_ids(session: Session, files: Sequence[FileChange]) -> dict[tuple[int, str], int]:
    by_corpus: dict[int, list[str]] = defaultdict(list)
    for change in files:
        by_corpus[change.corpus_id].append(change.path)
    found: dict[tuple[int, str], int] = {}
    for corpus_id, paths in by_corpus.items():
        for part in _chunked(paths):
            rows = session.execute(
                select(SourceFileRow.id, SourceFileRow.path)
                .where(SourceFileRow.corpus_id == corpus_id, col(SourceFileRow.path).in_(part))
            ).all()
            found.update({(corpus_id, str(path)): int(file_id) for file_id, path in rows})
    return found


def _records_of_files(session: Session, file_ids: Sequence[int]) -> dict[int, list[StoredRecordKey]]:
    found: dict[int, list[StoredRecordKey]] = defaultdict(list)
    for part in _chunked(list(file_ids)):
        rows = session.execute(
            select(  # type: ignore[call-overload]  # sqlmodel types select() for up to 4 columns
                TrajectoryRow.file_id, TrajectoryRow.id, TrajectoryRow.line, TrajectoryRow.trajectory_id,
                TrajectoryRow.content_hash)
            .where(col(TrajectoryRow.file_id).in_(part))
            .order_by(col(TrajectoryRow.file_id), col(TrajectoryRow.line))
        ).all()
        for r in rows:
            found[int(r[0])].append(StoredRecordKey(int(r[1]), int(r[2]), str(r[3]), str(r[4])))
    return found


def referenced_trajectories(session: Session, trajectory_pks: Sequence[int]) -> set[int]:
    """The trajectories among ``trajectory_pks`` that a reviewer's work points at.

    Opened evidence, waivers and agreement marks are people's work: since revision
    0011_team_guard the store refuses to delete a trajectory they point at (it used to cascade
    and silently remove that work), so an import keeps such a record instead of failing."""
    found: set[int] = set()
    for part in _chunked(list(trajectory_pks)):
        for table in _PEOPLES_WORK:
            rows = session.execute(
                select(table.trajectory_pk).where(col(table.trajectory_pk).in_(part)).distinct()).all()
            found.update(int(r[0]) for r in rows)
    return found


def _apply(session: Session, inserts: Sequence[dict[str, Any]], updates: Sequence[tuple[int, dict[str, Any]]],
           removals: Sequence[int], kept: Sequence[int] = ()) -> None:
    for part in _chunked(list(removals)):
        # Free the (file, line) slots first: updated records may move onto them.
        session.execute(delete(TrajectoryRow).where(col(TrajectoryRow.id).in_(part)))
    for row_id in kept:
        # A kept record leaves its (file, line) slot to the file's records: a negative line
        # says "no longer in the file" (the same parking the updates below use, by row id).
        session.execute(update(TrajectoryRow).where(col(TrajectoryRow.id) == row_id).values(line=-row_id))
    # Park updated rows on negative lines first so moved records never collide on the
    # UNIQUE(file_id, line) constraint while they swap places.
    for row_id, _values in updates:
        session.execute(update(TrajectoryRow).where(col(TrajectoryRow.id) == row_id).values(line=-row_id))
    for row_id, values in updates:
        session.execute(update(TrajectoryRow).where(col(TrajectoryRow.id) == row_id).values(**values))
    if inserts:
        session.execute(insert(TrajectoryRow), list(inserts))


def _chunked(values: list[Any], size: int = 500) -> Iterator[list[Any]]:
    """Slices short enough for any back end's limit on bound parameters."""
    for start in range(0, len(values), size):
        yield values[start:start + size]


def reconcile(
    stored: list[StoredRecordKey], incoming: Sequence[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[tuple[int, dict[str, Any]]], list[int], int]:
    """Match a changed file's records to what the store holds.

    Identical content is matched first (a record that only moved keeps its row), then the
    n-th occurrence of a trajectory id to the n-th stored one (an edited record is updated
    in place, so replay outcomes and labels that point at it survive).
    """
    by_hash: dict[str, list[StoredRecordKey]] = defaultdict(list)
    for key in stored:
        by_hash[key.content_hash].append(key)
    used: set[int] = set()
    updates: list[tuple[int, dict[str, Any]]] = []
    pending: list[dict[str, Any]] = []
    unchanged = 0
    for values in incoming:
        candidates = [k for k in by_hash.get(values["content_hash"], []) if k.id not in used]
        if candidates:
            key = candidates[0]
            used.add(key.id)
            if key.line != values["line"]:
                updates.append((key.id, {"line": values["line"], "end_line": values["end_line"]}))
            unchanged += 1
        else:
            pending.append(values)
    by_id: dict[str, list[StoredRecordKey]] = defaultdict(list)
    for key in stored:
        if key.id not in used:
            by_id[key.trajectory_id].append(key)
    inserts: list[dict[str, Any]] = []
    for values in pending:
        candidates = by_id.get(values["trajectory_id"], [])
        if candidates:
            key = candidates.pop(0)
            used.add(key.id)
            updates.append((key.id, values))
        else:
            inserts.append(values)
    removals = [k.id for k in stored if k.id not in used]
    # A record counted unchanged above only moved; do not report it as updated.
    return inserts, updates, removals, unchanged
