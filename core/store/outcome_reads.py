"""Reading a result's outcomes: its stored block plus the derived score-0 ``missed`` rows.

A run stores per result one ``replay_outcome_block`` (``outcome_blocks``) with every pair
that cannot be derived, and its recall pool once (``replay_pool``: domain slice or all, the
excluded source, the run's largest trajectory key, and the values every score-0 missed pair
has). The rows a reader sees are the block's rows plus each pool failure with no row in the
block, with those values: exactly what the former ``replay_outcome`` view returned. The
derived rows follow the trajectory table as it is now, like the trajectory joins do.

Every function takes the caller's Session (reads inside its transaction) and reads only one
result's block; trajectory metadata is read for the rows asked for only (``trajectory_meta``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from sqlalchemy import text
from sqlmodel import Session

from core.store.outcome_blocks import BUCKET_CODE, BUCKETS, OutcomeBlock, decode
from core.store.postgres import json_values_sql

_EMPTY = OutcomeBlock(
    pk=np.empty(0, np.int64), bucket=np.empty(0, np.uint8), score=np.empty(0), token_f1=np.empty(0),
    bigram=np.empty(0), cosine=np.empty(0), threshold=np.empty(0), margin=np.empty(0),
    nulls=np.empty(0, np.uint8), view=np.empty(0, np.int16), floor=np.empty(0, np.int16), strings=(),
)


@dataclass(frozen=True)
class TrajectoryMeta:
    trajectory_id: str
    domain: str | None
    success: bool
    corpus: str
    line: int
    content_hash: str
    file: str


def stored_block(session: Session, result_id: int) -> OutcomeBlock:
    """The result's stored pairs (an empty block when the result stored none)."""
    data = session.execute(
        text("SELECT data FROM replay_outcome_block WHERE result_id = :res"), {"res": result_id}).scalar()
    return _EMPTY if data is None else decode(data, f"outcome block of replay result {result_id}")


def derived_pks(session: Session, result_id: int, stored: OutcomeBlock) -> npt.NDArray[np.int64]:
    """Trajectory keys of the result's derived missed rows, ascending (empty without a pool)."""
    pool = session.execute(
        text("SELECT domain, exclude_pk, exclude_tid, max_pk FROM replay_pool WHERE result_id = :res"),
        {"res": result_id}).first()
    if pool is None:
        return np.empty(0, np.int64)
    domain, exclude_pk, exclude_tid, max_pk = pool
    clauses = ["success = :no", "id <= :max_pk"]
    params: dict[str, object] = {"no": False, "max_pk": max_pk}
    for clause, name, value in (("domain = :domain", "domain", domain), ("id <> :xpk", "xpk", exclude_pk),
                                ("trajectory_id <> :xtid", "xtid", exclude_tid)):
        if value is not None:
            clauses.append(clause)
            params[name] = value
    pks = np.fromiter(
        session.execute(text(f"SELECT id FROM trajectory WHERE {' AND '.join(clauses)} ORDER BY id"),
                        params).scalars(), dtype=np.int64)
    return pks[~np.isin(pks, stored.pk)] if len(stored) else pks


def result_block(session: Session, result_id: int, buckets: Iterable[str] | None = None) -> OutcomeBlock:
    """Every row of the result (stored, then derived), or only those in ``buckets``."""
    every = stored = stored_block(session, result_id)
    wanted = None if buckets is None else {BUCKET_CODE[b] for b in buckets}
    if wanted is not None:
        stored = every.take(np.isin(every.bucket, list(wanted)))
    if wanted is not None and BUCKET_CODE["missed"] not in wanted:
        return stored
    extra = derived_pks(session, result_id, every)
    if not len(extra):
        return stored
    zero = session.execute(
        text("SELECT p.zero_view, p.zero_cosine, p.zero_margin, rr.threshold FROM replay_pool p "
             "JOIN replay_result rr ON rr.id = p.result_id WHERE p.result_id = :res"), {"res": result_id}).one()
    view, cosine, margin, threshold = zero
    strings = stored.strings
    view_code = -1
    if view is not None:
        strings = strings if view in strings else (*strings, view)
        view_code = strings.index(view)
    n = len(extra)

    def full(value: float) -> npt.NDArray[np.float64]:
        return np.full(n, value, dtype=np.float64)

    return OutcomeBlock(
        pk=np.concatenate([stored.pk, extra]),
        bucket=np.concatenate([stored.bucket, np.full(n, BUCKET_CODE["missed"], np.uint8)]),
        score=np.concatenate([stored.score, full(0.0)]),
        token_f1=np.concatenate([stored.token_f1, full(0.0)]),
        bigram=np.concatenate([stored.bigram, full(0.0)]),
        cosine=np.concatenate([stored.cosine, full(0.0 if cosine is None else cosine)]),
        threshold=np.concatenate([stored.threshold, full(threshold)]),
        margin=np.concatenate([stored.margin, full(margin)]),
        nulls=np.concatenate([stored.nulls, np.full(n, 4 if cosine is None else 0, np.uint8)]),
        view=np.concatenate([stored.view, np.full(n, view_code, np.int16)]),
        floor=np.concatenate([stored.floor, np.full(n, -1, np.int16)]),
        strings=strings,
        spans=None if stored.spans is None else (*stored.spans, *([None] * n)),
    )


def bucket_counts(session: Session, result_id: int) -> dict[str, int]:
    """Rows per bucket (only buckets with rows), derived missed rows included."""
    stored = stored_block(session, result_id)
    counts = np.bincount(stored.bucket, minlength=len(BUCKETS))
    counts[BUCKET_CODE["missed"]] += len(derived_pks(session, result_id, stored))
    return {BUCKETS[i]: int(n) for i, n in enumerate(counts.tolist()) if n}


def in_evidence_order(block: OutcomeBlock) -> OutcomeBlock:
    """Score descending, then trajectory key: the evidence table's order."""
    return block.take(np.lexsort((block.pk, -block.score)))


def trajectory_meta(session: Session, pks: Sequence[int] | npt.NDArray[np.int64]) -> dict[int, TrajectoryMeta]:
    """Metadata of the given trajectories (one query per 20,000 keys; missing keys are absent)."""
    found: dict[int, TrajectoryMeta] = {}
    values = [int(pk) for pk in pks]
    for start in range(0, len(values), 20_000):
        rows = session.execute(
            text("SELECT t.id, t.trajectory_id, t.domain, t.success, c.name, t.line, t.content_hash, f.path "
                 "FROM trajectory t JOIN corpus c ON c.id = t.corpus_id JOIN source_file f ON f.id = t.file_id "
                 f"WHERE t.id IN ({json_values_sql(session, 'pks', integer=True)})"),
            {"pks": json.dumps(values[start:start + 20_000])}).all()
        for r in rows:
            found[int(r[0])] = TrajectoryMeta(str(r[1]), r[2], bool(r[3]), str(r[4]), int(r[5]), str(r[6]), str(r[7]))
    return found


def bucket_of(block: OutcomeBlock) -> dict[int, str]:
    """Trajectory key -> bucket name."""
    return {pk: BUCKETS[b] for pk, b in zip(block.pk.tolist(), block.bucket.tolist(), strict=True)}


@dataclass(frozen=True)
class RunOutcomeSize:
    rows: int  # outcome rows readers see (stored + derived)
    stored: int  # pairs stored in blocks
    block_bytes: int  # bytes of those blocks


def run_outcome_size(session: Session, run_id: int) -> RunOutcomeSize:
    """How many outcome rows a run has and how many it stored, counted without building them:
    the trajectory table is read once and each pool is evaluated on its columns."""
    stored, size = session.execute(text(
        "SELECT coalesce(sum(b.n), 0), coalesce(sum(length(b.data)), 0) FROM replay_outcome_block b "
        "JOIN replay_result r ON r.id = b.result_id WHERE r.run_id = :run"), {"run": run_id}).one()
    pools = session.execute(text(
        "SELECT p.result_id, p.domain, p.exclude_pk, p.exclude_tid, p.max_pk FROM replay_pool p "
        "JOIN replay_result r ON r.id = p.result_id WHERE r.run_id = :run"), {"run": run_id}).all()
    derived = 0
    if pools:
        rows = session.execute(text("SELECT id, success, domain, trajectory_id FROM trajectory")).all()
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        failed = ~np.array([bool(r[1]) for r in rows], dtype=np.bool_)
        domains = np.array([r[2] for r in rows], dtype=object)
        tids = np.array([r[3] for r in rows], dtype=object)
        for result_id, domain, exclude_pk, exclude_tid, max_pk in pools:
            pool = failed & (ids <= max_pk)
            if domain is not None:
                pool &= domains == domain
            if exclude_pk is not None:
                pool &= ids != exclude_pk
            if exclude_tid is not None:
                pool &= tids != exclude_tid
            derived += int(pool.sum()) - int(np.isin(stored_block(session, result_id).pk, ids[pool]).sum())
    return RunOutcomeSize(rows=int(stored) + derived, stored=int(stored), block_bytes=int(size))
