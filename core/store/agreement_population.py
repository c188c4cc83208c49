"""The population a blind agreement session samples from: replay's decisions on one run.

One verdict item per rule result, and one evidence item per rule x trajectory in prevented /
broken / near_miss / missed, with whether the trajectory failed (the scope question is asked
only then) and the rule's recall-pool kind.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import text as sql

from core.domain.agreement import EVIDENCE_BUCKETS, FIRING_OF_BUCKET, IN_SCOPE, PopulationItem
from core.store.engine import Store
from core.store.outcome_reads import bucket_of, result_block, trajectory_meta


def population(store: Store, run_id: int, rule_kinds: Sequence[str] | None = None,
               by_corpus: bool = False) -> list[PopulationItem]:
    kinds_sql = ""
    params: dict[str, Any] = {"run": run_id}
    if rule_kinds is not None and not rule_kinds:
        return []
    if rule_kinds is not None:
        kinds_sql = " AND r.kind IN (" + ",".join(f":k{i}" for i in range(len(rule_kinds))) + ")"
        params.update({f"k{i}": k for i, k in enumerate(rule_kinds)})
    items: list[PopulationItem] = []
    with store.read_session() as session:
        results = session.execute(
            sql(
                """SELECT rr.id, rr.verdict, r.origin, rv.version, rv.trigger, rv.directive, c.name AS corpus
                   FROM replay_result rr JOIN rule_version rv ON rv.id = rr.rule_version_id
                   JOIN rule r ON r.id = rv.rule_id LEFT JOIN corpus c ON c.id = r.corpus_id
                   WHERE rr.run_id = :run""" + kinds_sql
            ),
            params,
        ).mappings().all()
        for r in results:
            items.append(PopulationItem(
                kind="verdict", result_id=int(r["id"]), rule_origin=r["origin"], rule_version=int(r["version"]),
                trigger=r["trigger"], directive=r["directive"], trajectory_pk=None, trajectory_key=None,
                corpus=r["corpus"], replay_answer=r["verdict"], stratum=f"verdict:{r['verdict']}",
            ))
        outcomes: list[dict[str, Any]] = []
        for r in results:
            block = result_block(session, int(r["id"]), EVIDENCE_BUCKETS)
            meta = trajectory_meta(session, block.pk)
            pool = session.execute(sql("SELECT recall_pool_json FROM replay_result WHERE id = :id"),
                                   {"id": r["id"]}).scalar()
            for pk, bucket in bucket_of(block).items():
                t = meta.get(pk)
                if t is not None:
                    outcomes.append({
                        "result_id": r["id"], "bucket": bucket, "origin": r["origin"], "version": r["version"],
                        "trigger": r["trigger"], "directive": r["directive"], "pk": pk, "line": t.line,
                        "trajectory_id": t.trajectory_id, "content_hash": t.content_hash, "corpus": t.corpus,
                        "file": t.file, "success": t.success, "recall_pool_json": pool,
                    })
        for o in outcomes:
            stratum = f"evidence:{o['bucket']}" + (f"@{o['corpus']}" if by_corpus else "")
            key = {"corpus": o["corpus"], "file": o["file"], "line": int(o["line"]),
                   "trajectory_id": o["trajectory_id"], "content_hash": o["content_hash"]}
            items.append(PopulationItem(
                kind="evidence", result_id=int(o["result_id"]), rule_origin=o["origin"],
                rule_version=int(o["version"]), trigger=o["trigger"], directive=o["directive"],
                trajectory_pk=int(o["pk"]), trajectory_key=key, corpus=o["corpus"], replay_answer=o["bucket"],
                stratum=stratum, failure=not bool(o["success"]), rule_pool=_pool_kind(o["recall_pool_json"]),
            ))
    return items


def as_firing(item: PopulationItem) -> PopulationItem:
    """An evidence item asked as the firing question: replay's answer is its bucket's firing answer."""
    if item.kind != "evidence":
        return item
    return replace(item, kind="firing", replay_answer=FIRING_OF_BUCKET[item.replay_answer])


def scope_replay_of(item: PopulationItem) -> str | None:
    # Replay counts every failure of its recall pool (prevented or missed) as one it is meant for.
    return IN_SCOPE if item.kind == "firing" and item.failure else None


def _pool_kind(raw: str | None) -> str | None:
    try:
        value = json.loads(raw) if raw else None
    except ValueError:
        return None
    return value.get("kind") if isinstance(value, dict) else None


