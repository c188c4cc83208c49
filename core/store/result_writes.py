"""The write of a run's results: each result row, its outcomes as one columnar block, and the
pool from which its score-0 ``missed`` rows are derived instead of stored.

``ReplayRepository.save_results`` (``replay_repo``) calls ``save_results`` here; the reads of
runs and results stay in ``replay_repo``, and the derived rows are ``outcome_reads``'s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from core.replay.types import PoolInfo, RuleResult
from core.store.engine import Store
from core.store.outcome_blocks import BUCKET_CODE, OutcomeBlock
from core.store.outcome_blocks import build as build_block
from core.store.outcome_blocks import to_bytes as block_bytes
from core.store.postgres import driver_sql


def save_results(
    store: Store, run_id: int, results: Sequence[RuleResult], version_by_key: Mapping[str, int],
    spans: Mapping[tuple[str, int], Sequence[tuple[str, int, int, str]]] | None = None,
    max_trajectory_pk: int | None = None,
) -> None:
    """Save a chunk of finished rule results and their pair outcomes in one transaction.

    Plain ``executemany`` inserts (no ORM objects): saving must not cost more than scoring.
    Each result's outcomes are one columnar block (``outcome_blocks``), one row per result,
    not per pair. Result ids are assigned here (max + 1 …) inside the write transaction.
    ``spans`` is optional: highlight spans are normally explained when a row is shown
    (``evidence_spans``).

    With ``max_trajectory_pk`` (the run's largest trajectory key) and a result's
    ``recall_spec``, the score-0 ``missed`` rows are not stored: the pool is stored once
    and ``outcome_reads`` derives them. Readers see the same rows.
    """
    if not results:
        return
    spans = spans or {}
    with store.session() as session:
        connection = session.connection()
        # Take the write lock first so the max(id) read below cannot go stale.
        connection.exec_driver_sql(driver_sql(connection, "UPDATE replay_run SET pairs = pairs WHERE id = ?"), (run_id,))
        result_ids = _new_result_ids(connection, len(results))
        result_rows = []
        block_rows: list[tuple[int, int, bytes]] = []
        pool_rows = []
        for result_id, result in zip(result_ids, results, strict=True):
            p_ci, r_ci = result.precision_ci, result.recall_ci
            result_rows.append((
                result_id, run_id, version_by_key[result.rule_key], result.verdict, result.reason,
                result.threshold, len(result.prevented), len(result.broken), len(result.near_miss),
                len(result.missed), result.precision, p_ci[0] if p_ci else None, p_ci[1] if p_ci else None,
                result.recall, r_ci[0] if r_ci else None, r_ci[1] if r_ci else None,
                _pool_json(result.recall_pool), _pool_json(result.precision_pool), result.attribution,
            ))
            given = None
            if spans:
                found = (spans.get((result.rule_key, o.trajectory_key)) for o in result.outcomes)
                given = [None if x is None else json.dumps([list(s) for s in x]) for x in found]
            block = build_block(result.outcomes, given)
            zero = _zero_missed(result, block) if max_trajectory_pk is not None and not spans else None
            if zero is not None:
                spec = result.recall_spec
                assert spec is not None
                pool_rows.append((result_id, spec.domain, spec.exclude_key, spec.exclude_id, max_trajectory_pk,
                                  zero.view, zero.cosine, zero.margin))
                block = block.take(~_derivable(block, zero))
            if len(block):
                block_rows.append((result_id, len(block), block_bytes(block)))
        connection.exec_driver_sql(driver_sql(connection, _INSERT_RESULT), result_rows)
        if pool_rows:
            connection.exec_driver_sql(driver_sql(connection, _INSERT_POOL), pool_rows)
        if block_rows:
            connection.exec_driver_sql(driver_sql(connection, _INSERT_BLOCK), block_rows)


def _pool_json(pool: PoolInfo) -> str:
    return json.dumps({"kind": pool.kind, "size": pool.size, "failures": pool.failures, "scoped": pool.scoped})


_INSERT_RESULT = (
    "INSERT INTO replay_result (id, run_id, rule_version_id, verdict, reason, threshold, prevented_n, broken_n, "
    "near_miss_n, missed_n, precision, precision_lo, precision_hi, recall, recall_lo, recall_hi, "
    "recall_pool_json, precision_pool_json, attribution) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_BLOCK = "INSERT INTO replay_outcome_block (result_id, n, data) VALUES (?, ?, ?)"
_INSERT_POOL = (
    "INSERT INTO replay_pool (result_id, domain, exclude_pk, exclude_tid, max_pk, zero_view, zero_cosine, "
    "zero_margin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


class _ZeroPair(NamedTuple):
    """The values a result's derivable missed pairs share (what the pool row stores)."""

    view: str | None
    cosine: float | None
    threshold: float
    margin: float


def _zero_missed(result: RuleResult, block: OutcomeBlock) -> _ZeroPair | None:
    """The values every derivable missed pair of this result has (score 0, no parts, no
    floor), taken from its first such pair in ``block`` (the result's outcomes); None when
    there is none (nothing to derive)."""
    if result.recall_spec is None or not len(block):
        return None
    found = np.flatnonzero(
        (block.bucket == BUCKET_CODE["missed"]) & (block.score == 0.0) & (block.token_f1 == 0.0)
        & (block.bigram == 0.0) & ((block.nulls & 3) == 0) & (block.floor == -1)
        & (((block.nulls & 4) != 0) | (block.cosine == 0.0)))
    if not found.size:
        return None
    i = int(found[0])
    view = int(block.view[i])
    return _ZeroPair(view=None if view < 0 else block.strings[view],
                     cosine=None if block.nulls[i] & 4 else float(block.cosine[i]),
                     threshold=float(block.threshold[i]), margin=float(block.margin[i]))


def _derivable(block: OutcomeBlock, zero: _ZeroPair) -> npt.NDArray[np.bool_]:
    """Rows of ``block`` the pool derives exactly (what ``outcome_reads`` writes for a derived
    row): missed, score and parts 0 (not None), no floor, the zero pair's view, cosine,
    threshold and margin."""
    view = -1 if zero.view is None else (block.strings.index(zero.view) if zero.view in block.strings else -2)
    same = ((block.bucket == BUCKET_CODE["missed"]) & (block.score == 0.0) & (block.token_f1 == 0.0)
            & (block.bigram == 0.0) & ((block.nulls & 3) == 0) & (block.floor == -1) & (block.view == view)
            & (block.threshold == zero.threshold) & (block.margin == zero.margin))
    rows: npt.NDArray[np.bool_]
    if zero.cosine is None:
        rows = same & ((block.nulls & 4) != 0)
    else:
        rows = same & ((block.nulls & 4) == 0) & (block.cosine == zero.cosine)
    return rows


def _new_result_ids(connection: Any, count: int) -> list[int]:
    """Ids for ``count`` new results, known before the rows are written (their blocks and pools
    point at them). SQLite: max + 1 … under the write lock taken before. PostgreSQL: drawn from the
    id sequence (``nextval`` needs only USAGE; a team login may not ``setval``, which could rewind
    the sequence into other logins' ids)."""
    if connection.dialect.name == "postgresql":
        rows = connection.exec_driver_sql(
            "SELECT nextval(pg_get_serial_sequence('replay_result', 'id')) FROM generate_series(1, %(n)s)",
            {"n": count}).scalars().all()
        return [int(r) for r in rows]
    first = int(connection.exec_driver_sql("SELECT coalesce(max(id), 0) FROM replay_result").scalar() or 0) + 1
    return list(range(first, first + count))
