"""Replay runs, per-rule results and per-pair outcomes.

A run row is written first with status ``running``; results are saved as they finish; the
run becomes ``complete`` only at the end. A cancelled or crashed run is never mistaken for a
complete one, which is what later screens (evidence, stale approvals) rely on. The result rows,
outcome blocks and pools are written by ``result_writes`` (``ReplayRepository.save_results``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import text
from sqlmodel import col, select

from core.replay.types import RuleResult
from core.store import result_writes
from core.store.dto import RuleInfo, RuleVersionInfo
from core.store.engine import Store
from core.store.evidence_spans import SpanSource, spans_for
from core.store.outcome_blocks import OutcomeBlock
from core.store.outcome_reads import in_evidence_order, result_block, trajectory_meta
from core.store.tables import ReplayRunRow
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
    started_by: str | None = None  # the login that ran it (team store); None on a file or before 0016


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
    stored_spans: tuple[tuple[str, int, int, str], ...] | None = None
    span_source: SpanSource | None = field(default=None, repr=False, compare=False)

    @property
    def spans(self) -> tuple[tuple[str, int, int, str], ...]:
        """Highlights into the record: stored by runs made before spans became lazy, else
        explained on first use (cached), so a run never pays for rows nobody opens."""
        if self.stored_spans is not None:
            return self.stored_spans
        if self.span_source is None:
            return ()
        return spans_for(self.span_source)


def outcome_from_row(store: Store, r: Any) -> StoredOutcome:
    """A ``replay_outcome`` row joined with its trajectory (trajectory_id, domain, success, corpus)."""
    stored = r["spans_json"]
    return StoredOutcome(
        trajectory_pk=r["trajectory_pk"], trajectory_id=r["trajectory_id"], corpus=r["corpus"],
        domain=r["domain"], success=bool(r["success"]), bucket=r["bucket"], score=r["score"],
        token_f1=r["token_f1"], bigram=r["bigram"], cosine=r["cosine"], view=r["view"],
        floor=r["floor"], threshold=r["threshold"], margin=r["margin"],
        stored_spans=None if stored is None else tuple(tuple(x) for x in json.loads(stored)),
        span_source=SpanSource(store, int(r["result_id"]), int(r["trajectory_pk"]), r["cosine"]),
    )


_RULES_FOR_REPLAY = """
    SELECT r.id, r.origin, r.kind, c.name, r.rule_ref, r.status, r.source_trajectory, r.source_trajectory_pk,
           r.domain, v.id, v.version, v.trigger, v.context_json, v.signature, v.directive, v.because,
           v.confidence, v.author, v.note, v.created_at
    FROM rule r
    JOIN rule_version v ON v.rule_id = r.id
         AND v.version = (SELECT max(v2.version) FROM rule_version v2 WHERE v2.rule_id = r.id)
    LEFT JOIN corpus c ON c.id = r.corpus_id
"""


class ReplayRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    def rules_for_replay(self, ids: Sequence[int] | None = None, kinds: Sequence[str] | None = None) -> list[RuleInfo]:
        """Each rule with its newest version, like ``RuleRepository.list_rules`` but with one
        plain query (the ORM rows cost a tenth of a small replay)."""
        clauses: list[str] = []
        params: dict[str, Any] = {}
        for name, values in (("r.id", ids), ("r.kind", kinds)):
            if values is None:
                continue
            marks = []
            for i, value in enumerate(values):
                key = f"{name[2:]}{i}"
                params[key] = value
                marks.append(f":{key}")
            clauses.append(f"{name} IN ({', '.join(marks) or 'NULL'})")
        sql = _RULES_FOR_REPLAY + (" WHERE " + " AND ".join(clauses) if clauses else "") + " ORDER BY r.id"
        with self._store.read_session() as session:
            rows = session.execute(text(sql), params).all()
        return [
            RuleInfo(
                id=int(r[0]), origin=r[1], kind=r[2], corpus=r[3], rule_ref=r[4], status=r[5],
                source_trajectory=r[6], source_trajectory_pk=r[7], domain=r[8],
                latest=RuleVersionInfo(
                    id=int(r[9]), rule_id=int(r[0]), version=int(r[10]), trigger=r[11],
                    context=tuple(json.loads(r[12])), signature=r[13], directive=r[14], because=r[15],
                    confidence=r[16], author=r[17], note=r[18], created_at=r[19],
                ),
            )
            for r in rows
        ]

    def start_run(
        self, profile: str, config: Mapping[str, Any], config_hash: str, corpus_hash: str,
        model_id: str | None, semantic_state: str, scope: str | None,
    ) -> int:
        with self._store.session() as session:
            # A plain insert (the write lock is held, so max(id) is this row's id).
            session.execute(
                text("INSERT INTO replay_run (started_at, status, profile, config_json, config_hash, corpus_hash, "
                     "model_id, semantic_state, scope, pairs, started_by) VALUES (:at, 'running', :profile, :config, "
                     ":hash, :corpus_hash, :model, :semantic, :scope, 0, :login)"),
                {"at": utc_now(), "profile": profile, "config": json.dumps(dict(config), sort_keys=True, default=str),
                 "hash": config_hash, "corpus_hash": corpus_hash, "model": model_id, "semantic": semantic_state,
                 "scope": scope, "login": self._store.login()},  # None on a file; the server enforces it for logins
            )
            return int(session.execute(text("SELECT max(id) FROM replay_run")).scalar_one())

    def save_results(
        self, run_id: int, results: Sequence[RuleResult], version_by_key: Mapping[str, int],
        spans: Mapping[tuple[str, int], Sequence[tuple[str, int, int, str]]] | None = None,
        max_trajectory_pk: int | None = None,
    ) -> None:
        """Save a chunk of finished rule results and their pair outcomes in one transaction
        (``result_writes.save_results``)."""
        result_writes.save_results(self._store, run_id, results, version_by_key, spans, max_trajectory_pk)

    def finish_run(
        self, run_id: int, status: str, pairs: int, seconds: float,
        config: Mapping[str, Any] | None = None, config_hash: str | None = None,
        corpus_hash: str | None = None, semantic_state: str | None = None,
    ) -> None:
        """Close a run; the configuration snapshot is final only once replay has built it."""
        values: dict[str, Any] = {"status": status, "pairs": pairs, "seconds": seconds, "finished_at": utc_now()}
        if config is not None:
            values["config_json"] = json.dumps(dict(config), sort_keys=True, default=str)
        if config_hash is not None:
            values["config_hash"] = config_hash
        if corpus_hash is not None:
            values["corpus_hash"] = corpus_hash
        if semantic_state is not None:
            values["semantic_state"] = semantic_state
        assignments = ", ".join(f"{name} = :{name}" for name in values)  # names from this code, never input
        with self._store.session() as session:
            session.execute(text(f"UPDATE replay_run SET {assignments} WHERE id = :run_id"), dict(values, run_id=run_id))

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
                text(RESULT_WITH_RULE_SQL + " WHERE rr.run_id = :run ORDER BY r.id"), {"run": run_id},
            ).mappings().all()
            return [_stored_result(r) for r in rows]

    def outcomes(self, result_id: int, bucket: str | None = None) -> list[StoredOutcome]:
        """The result's rows (of one bucket), by score descending then trajectory key."""
        with self._store.read_session() as session:
            block = in_evidence_order(result_block(session, result_id, None if bucket is None else (bucket,)))
            return stored_outcomes(self._store, session, result_id, block)


def stored_outcomes(store: Store, session: Any, result_id: int, block: OutcomeBlock) -> list[StoredOutcome]:
    """``block``'s rows joined with their trajectories (rows whose trajectory is gone are left out)."""
    meta = trajectory_meta(session, block.pk)
    found = []
    for r in block.rows():
        t = meta.get(r["trajectory_pk"])
        if t is not None:
            found.append(outcome_from_row(store, dict(
                r, result_id=result_id, trajectory_id=t.trajectory_id, domain=t.domain, success=t.success,
                corpus=t.corpus)))
    return found


def _ci(lo: float | None, hi: float | None) -> tuple[float, float] | None:
    return (lo, hi) if lo is not None and hi is not None else None


# A stored result with its rule's text and origin (what ``_stored_result`` reads).
RESULT_WITH_RULE_SQL = """SELECT rr.*, rv.rule_id, rv.version, rv.trigger, rv.directive,
                                 r.origin, r.kind, r.domain AS rule_domain, r.source_trajectory
                          FROM replay_result rr
                          JOIN rule_version rv ON rv.id = rr.rule_version_id
                          JOIN rule r ON r.id = rv.rule_id"""


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
        seconds=row.seconds, scope=row.scope, results=results, started_by=row.started_by,
    )
