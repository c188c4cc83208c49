"""The run configuration snapshot and its hash (what every verdict rests on)."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from core.checked import Check, checked
from core.hashing import canonical_json, sha256_text
from core.replay.profiles import STRATEGY_THRESHOLDS, STRICT_CORPORA, ReplayProfile
from core.replay.types import ReplayRule, ReplayTrajectory

# 2: the corpus hash is over each record's hash (``record_hash``), not the record's JSON;
# a run before and a run after compare as "engine_version, corpus_hash differ", not as a
# changed corpus alone.
ENGINE_VERSION = "2"

# Choices added to ``ReplayProfile`` after runs were stored, with the value every earlier run
# had: a choice at that value is left out of the config, so earlier config hashes stay the same.
LATER_CHOICES: dict[str, Any] = {
    "read_failure_class": True,
    "failure_gate_fallback": False,
    "recall_scope": "domain",
    "unscoped_pool": "all",
    "domain_margins": (),
    "twin_rules": None,
}


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, frozenset, set)):
        items = [_plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    return value


def _digest(chunks: Sequence[str]) -> str:
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(chunk.encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


def record_hash(trajectory: ReplayTrajectory) -> str:
    """``sha256(canonical_json(record))``: the store's ``content_hash`` of the same record."""
    if trajectory.record_hash is not None:
        return trajectory.record_hash
    return sha256_text(canonical_json(trajectory.record))


def corpus_hash(trajectories: Sequence[ReplayTrajectory], check: Check | None = None) -> str:
    """Content hash over every record (all keys, labels included) and its corpus, in order.

    It hashes each record's own hash, so a run over the store reuses the hash kept with
    each row instead of serialising every record again (a tenth of a small run's time); a
    caller without it gets the same value computed from the record.
    """
    quoted: dict[str, str] = {}  # a JSON string is self-delimiting: "<corpus>" <hash> is unambiguous
    for t in trajectories:
        if t.corpus not in quoted:
            quoted[t.corpus] = json.dumps(t.corpus, ensure_ascii=False)
    return _digest([f"{quoted[t.corpus]} {record_hash(t)}" for t in checked(trajectories, check)])


def rules_hash(rules: Sequence[ReplayRule]) -> str:
    return _digest(
        [
            json.dumps(
                [r.key, r.trigger, list(r.context), r.signature, r.source_trajectory_id,
                 r.source_key, r.domain, r.corpus],
                ensure_ascii=False,
            )
            for r in rules
        ]
    )


def build_config(
    profile: ReplayProfile,
    matcher: Any,
    semantic_state: str,
    model_id: str | None,
    rules: Sequence[ReplayRule],
    trajectories: Sequence[ReplayTrajectory],
    check: Check | None = None,
) -> dict[str, Any]:
    replay_fields = {
        f.name: _plain(getattr(profile, f.name))
        for f in dataclasses.fields(profile)
        if f.name not in ("matcher", "name", "model_id")
        # A choice added later is recorded only when it differs from what runs did before it,
        # so the config hash of every earlier kind of run stays the same.
        and not (f.name in LATER_CHOICES and getattr(profile, f.name) == LATER_CHOICES[f.name])
    }
    return {
        "engine_version": ENGINE_VERSION,
        "profile": profile.name,
        "replay": replay_fields,
        "thresholds": {
            "flat": profile.threshold,
            "strategies": dict(STRATEGY_THRESHOLDS),
            "strict_corpora": sorted(STRICT_CORPORA),
        },
        "matcher": _plain(matcher),
        "semantic": {
            "requested": profile.semantic,
            "state": semantic_state,
            "model_id": model_id if semantic_state == "on" else None,
        },
        "corpus_hash": corpus_hash(trajectories, check),
        "rules_hash": rules_hash(rules),
        "trajectories": len(trajectories),
        "rules": len(rules),
    }


def config_hash(config: dict[str, Any]) -> str:
    text = json.dumps(config, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
