"""Replay runs, per-rule results and per-pair outcomes.

A run row is written first with status ``running``; results are saved as they finish; the
run becomes ``complete`` only at the end. A cancelled or crashed run is never mistaken for a
complete one, which is what later screens (evidence, stale approvals) rely on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, text
from sqlmodel import col, select

from core.replay.types import PoolInfo, RuleResult
from core.store.engine import Store
from core.store.tables import ReplayOutcomeRow, ReplayResultRow, ReplayRunRow
from core.timeutil import utc_now


@dataclass(frozen=True)
class RunInfo:
    id: int
    started_at: str
    finished_at: str | None
    status: str
    profile: str
    config: dict[str, Any]
    config_hash: str
    corpus_hash: str
    model_id: str | None
    semantic_state: str
    pairs: int
    seconds: float | None
    scope: str | None
    results: int


@dataclass(frozen=True)
class StoredResult:
    id: int
    run_id: int
    rule_id: int
    rule_version_id: int
    version: int
    origin: str
    kind: str
    trigger: str
    directive: str
    domain: str | None
    source_trajectory: str | None
    verdict: str
    reason: str
    threshold: float
    prevented_n: int
    broken_n: int
    near_miss_n: int
    missed_n: int
    precision: float | None
    precision_ci: tuple[float, float] | None
    recall: float | None
    recall_ci: tuple[float, float] | None
    recall_pool: dict[str, Any]
    precision_pool: dict[str, Any]
    attribution: str | None


@dataclass(frozen=True)
class StoredOutcome:
    trajectory_pk: int
    trajectory_id: str
    corpus: str
    domain: str | None
    success: bool
    bucket: str
    score: float
    token_f1: float | None
    bigram: float | None
    cosine: float | None
    view: str | None
    floor: str | None
    threshold: float
    margin: float
    spans: tuple[tuple[str, int, int, str], ...] = ()


def _pool_json(pool: PoolInfo) -> str:
    return json.dumps({"kind": pool.kind, "size": pool.size, "failures": pool.failures, "scoped": pool.scoped})


class ReplayRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    def start_run(
        self, profile: str, config: Mapping[str, Any], config_hash: str, corpus_hash: str,
        model_id: str | None, semantic_state: str, scope: str | None,
    ) -> int:
        with self._store.session() as session:
            row = ReplayRunRow(
                started_at=utc_now(), status="running", profile=profile,
                config_json=json.dumps(dict(config), sort_keys=True, default=str), config_hash=config_hash,
                corpus_hash=corpus_hash, model_id=model_id, semantic_state=semantic_state, scope=scope,
            )
            session.add(row)
            session.flush()
            assert row.id is not None
            return row.id

    def save_results(
        self, run_id: int, results: Sequence[RuleResult], version_by_key: Mapping[str, int],
        spans: Mapping[tuple[str, int], Sequence[tuple[str, int, int, str]]] | None = None,
    ) -> None:
        """Save a batch of finished rule results and their pair outcomes in one transaction.

        ``spans`` maps (rule key, trajectory key) to highlight spans (field, start, end, kind)
        into the record's original text, so the evidence viewer never has to re-match.
        """
        spans = spans or {}
        with self._store.session() as session:
            for result in results:
                row = ReplayResultRow(
                    run_id=run_id, rule_version_id=version_by_key[result.rule_key], verdict=result.verdict,
                    reason=result.reason, threshold=result.threshold, prevented_n=len(result.prevented),
                    broken_n=len(result.broken), near_miss_n=len(result.near_miss), missed_n=len(result.missed),
                    precision=result.precision,
                    precision_lo=result.precision_ci[0] if result.precision_ci else None,
                    precision_hi=result.precision_ci[1] if result.precision_ci else None,
                    recall=result.recall,
                    recall_lo=result.recall_ci[0] if result.recall_ci else None,
                    recall_hi=result.recall_ci[1] if result.recall_ci else None,
                    recall_pool_json=_pool_json(result.recall_pool),
                    precision_pool_json=_pool_json(result.precision_pool), attribution=result.attribution,
                )
                session.add(row)
                session.flush()
                outcome_rows = [
                    {
                        "result_id": row.id, "trajectory_pk": o.trajectory_key, "bucket": o.bucket,
                        "score": o.score, "token_f1": o.token_f1, "bigram": o.bigram, "cosine": o.cosine,
                        "view": o.view, "floor": o.floor, "threshold": o.threshold, "margin": o.margin,
                        "spans_json": json.dumps([list(x) for x in spans.get((result.rule_key, o.trajectory_key), ())]),
                    }
                    for o in result.outcomes
                ]
                if outcome_rows:
                    session.execute(insert(ReplayOutcomeRow), outcome_rows)

    def finish_run(
        self, run_id: int, status: str, pairs: int, seconds: float,
        config: Mapping[str, Any] | None = None, config_hash: str | None = None,
        corpus_hash: str | None = None, semantic_state: str | None = None,
    ) -> None:
        """Close a run; the configuration snapshot is final only once replay has built it."""
        with self._store.session() as session:
            row = session.get(ReplayRunRow, run_id)
            if row is None:
                return
            row.status, row.pairs, row.seconds, row.finished_at = status, pairs, seconds, utc_now()
            if config is not None:
                row.config_json = json.dumps(dict(config), sort_keys=True, default=str)
            if config_hash is not None:
                row.config_hash = config_hash
            if corpus_hash is not None:
                row.corpus_hash = corpus_hash
            if semantic_state is not None:
                row.semantic_state = semantic_state

    def runs(self) -> list[RunInfo]:
        with self._store.read_session() as session:
            counts = dict(
                session.execute(text("SELECT run_id, count(*) FROM replay_result GROUP BY run_id")).all()
            )
            rows = session.exec(select(ReplayRunRow).order_by(col(ReplayRunRow.id).desc())).all()
            return [_run_info(r, int(counts.get(r.id, 0))) for r in rows]

    def get_run(self, run_id: int) -> RunInfo | None:
        return next((r for r in self.runs() if r.id == run_id), None)

    def latest_complete_run(self) -> RunInfo | None:
        return next((r for r in self.runs() if r.status == "complete"), None)

    def results(self, run_id: int) -> list[StoredResult]:
        with self._store.read_session() as session:
            rows = session.execute(
                text(
                    """SELECT rr.*, rv.rule_id, rv.version, rv.trigger, rv.directive,
                              r.origin, r.kind, r.domain AS rule_domain, r.source_trajectory
                       FROM replay_result rr
                       JOIN rule_version rv ON rv.id = rr.rule_version_id
                       JOIN rule r ON r.id = rv.rule_id
                       WHERE rr.run_id = :run ORDER BY r.id"""
                ),
                {"run": run_id},
            ).mappings().all()
            return [_stored_result(r) for r in rows]

    def outcomes(self, result_id: int, bucket: str | None = None) -> list[StoredOutcome]:
        query = """SELECT o.*, t.trajectory_id, t.domain, t.success, c.name AS corpus
                   FROM replay_outcome o JOIN trajectory t ON t.id = o.trajectory_pk
                   JOIN corpus c ON c.id = t.corpus_id WHERE o.result_id = :result"""
        params: dict[str, Any] = {"result": result_id}
        if bucket is not None:
            query += " AND o.bucket = :bucket"
            params["bucket"] = bucket
        with self._store.read_session() as session:
            rows = session.execute(text(query + " ORDER BY o.score DESC, t.id"), params).mappings().all()
            return [
                StoredOutcome(
                    trajectory_pk=r["trajectory_pk"], trajectory_id=r["trajectory_id"], corpus=r["corpus"],
                    domain=r["domain"], success=bool(r["success"]), bucket=r["bucket"], score=r["score"],
                    token_f1=r["token_f1"], bigram=r["bigram"], cosine=r["cosine"], view=r["view"],
                    floor=r["floor"], threshold=r["threshold"], margin=r["margin"],
                    spans=tuple(tuple(x) for x in json.loads(r["spans_json"] or "[]")),  # type: ignore[misc]
                )
                for r in rows
            ]


def _ci(lo: float | None, hi: float | None) -> tuple[float, float] | None:
    return (lo, hi) if lo is not None and hi is not None else None


def _stored_result(r: Any) -> StoredResult:
    return StoredResult(
        id=r["id"], run_id=r["run_id"], rule_id=r["rule_id"], rule_version_id=r["rule_version_id"],
        version=r["version"], origin=r["origin"], kind=r["kind"], trigger=r["trigger"], directive=r["directive"],
        domain=r["rule_domain"], source_trajectory=r["source_trajectory"], verdict=r["verdict"], reason=r["reason"],
        threshold=r["threshold"], prevented_n=r["prevented_n"], broken_n=r["broken_n"],
        near_miss_n=r["near_miss_n"], missed_n=r["missed_n"], precision=r["precision"],
        precision_ci=_ci(r["precision_lo"], r["precision_hi"]), recall=r["recall"],
        recall_ci=_ci(r["recall_lo"], r["recall_hi"]), recall_pool=json.loads(r["recall_pool_json"]),
        precision_pool=json.loads(r["precision_pool_json"]), attribution=r["attribution"],
    )


def _run_info(row: ReplayRunRow, results: int) -> RunInfo:
    return RunInfo(
        id=row.id or 0, started_at=row.started_at, finished_at=row.finished_at, status=row.status,
        profile=row.profile, config=json.loads(row.config_json), config_hash=row.config_hash,
        corpus_hash=row.corpus_hash, model_id=row.model_id, semantic_state=row.semantic_state, pairs=row.pairs,
        seconds=row.seconds, scope=row.scope, results=results,
    )
