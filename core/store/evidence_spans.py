"""Highlight spans of one evidence pair, computed when the trajectory is shown.

A replay run stores scores, buckets and score parts, not highlight spans: re-explaining every
evidence pair with the scalar matcher inside the run cost more than the scoring itself. The
spans of a pair are a pure function of (rule version, trajectory record, run profile, semantic
state, the pair's stored cosine), all of which the store keeps, so the viewer asks for them
when a row is opened and they are cached here. The scalar path agrees exactly with the batch
path replay used (tested in tests/core/test_matching_*), so the highlights are the same ones a
run used to store. Runs saved before this change still carry ``spans_json``; it is used as is.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text

from core.store.engine import Store

SpanTuple = tuple[str, int, int, str]
_CACHE_SIZE = 4096


@dataclass(frozen=True)
class SpanSource:
    """Everything needed to explain one stored pair again (the store is not part of the key)."""

    store: Store
    result_id: int
    trajectory_pk: int
    cosine: float | None

    @property
    def key(self) -> tuple[str, int, int, float | None]:
        return (str(self.store.path), self.result_id, self.trajectory_pk, self.cosine)


_cache: OrderedDict[tuple[str, int, int, float | None], tuple[SpanTuple, ...]] = OrderedDict()
_lock = threading.Lock()


def spans_for(source: SpanSource) -> tuple[SpanTuple, ...]:
    """The pair's highlight spans (field, start, end, kind) into the original record text."""
    key = source.key
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    spans = _compute(source)
    with _lock:
        _cache[key] = spans
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return spans


def _compute(source: SpanSource) -> tuple[SpanTuple, ...]:
    # Imported here: reading a result list should not pay for the matcher tables.
    from core.domain.errors import DomainError
    from core.matching.score import RuleText, explain
    from core.matching.views import TrajectoryViews
    from core.replay.matcher_bridge import matcher_profile
    from core.store.profile_repo import resolve_profile

    with source.store.read_session() as session:  # a read: never take the write lock
        row: Any = session.execute(
            text(
                """SELECT rv.trigger, rv.context_json, rv.signature, run.profile, run.semantic_state,
                          t.record_json
                   FROM replay_result rr JOIN rule_version rv ON rv.id = rr.rule_version_id
                   JOIN replay_run run ON run.id = rr.run_id, trajectory t
                   WHERE rr.id = :res AND t.id = :traj"""
            ),
            {"res": source.result_id, "traj": source.trajectory_pk},
        ).mappings().first()
    if row is None:
        return ()
    try:
        profile = resolve_profile(source.store, row["profile"])
    except (ValueError, DomainError):
        return ()
    matcher = matcher_profile(profile.matcher, semantic=row["semantic_state"] == "on")
    rule = RuleText(row["trigger"], context=tuple(json.loads(row["context_json"] or "[]")),
                    signature=row["signature"])
    views = TrajectoryViews.from_record(json.loads(row["record_json"]), include_input=matcher.include_input)
    parts = explain(rule, views, matcher, cosine=source.cosine)
    return tuple((s.field, s.start, s.end, s.kind) for s in parts.spans)
