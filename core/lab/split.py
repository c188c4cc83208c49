"""Tuning / held-back split of a truth's rules, by group and never by record.

Paraphrase expansions of one reference carry its failure class, and rules extracted from two
copies of one failure share their source's class and corpus: a split by record would put
near-twins on both sides, and the held-back figure would measure memory, not transfer. So
whole groups go to one side. A group goes to the held-back part when a seeded hash of its
name falls under ``held_back`` (stable: adding a group does not move the others).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.replay.types import ReplayRule, ReplayTrajectory

GROUP_BY = ("failure_class", "corpus", "family")
DEFAULT_HELD_BACK = 0.4
DEFAULT_SEED = 26


@dataclass(frozen=True)
class Split:
    group_by: str
    seed: int
    held_back_share: float
    group_of: Mapping[str, str]  # rule key -> group
    tuning: frozenset[str]  # rule keys
    held_back: frozenset[str]

    def to_dict(self) -> dict[str, Any]:
        groups: dict[str, list[str]] = {"tuning": [], "held_back": []}
        for group in sorted(set(self.group_of.values())):
            side = "held_back" if any(self.group_of[k] == group for k in self.held_back) else "tuning"
            groups[side].append(group)
        return {"group_by": self.group_by, "seed": self.seed, "held_back_share": self.held_back_share,
                "rules": {"tuning": len(self.tuning), "held_back": len(self.held_back)}, "groups": groups}


def _hash_share(name: str, seed: int) -> float:
    digest = hashlib.sha256(f"{seed}:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def family_of(trajectory: ReplayTrajectory) -> str:
    """A paraphrase family: the failure class when there is one (an expansion carries its
    reference's class), else the trajectory id without a trailing variant number."""
    if trajectory.failure_class:
        return trajectory.failure_class.strip().lower()
    stem = trajectory.trajectory_id.rsplit("-", 1)
    return stem[0] if len(stem) == 2 and stem[1].isdigit() else trajectory.trajectory_id


def rule_groups(rules: Sequence[ReplayRule], trajectories: Sequence[ReplayTrajectory], group_by: str) -> dict[str, str]:
    """rule key -> its group: of its source trajectory (no source: its own key, a group of one)."""
    if group_by not in GROUP_BY:
        raise ValueError(f"group_by must be one of {', '.join(GROUP_BY)}, not {group_by!r}")
    by_key = {t.key: t for t in trajectories}
    by_id: dict[str, ReplayTrajectory] = {}
    for t in trajectories:
        by_id.setdefault(t.trajectory_id, t)
    out: dict[str, str] = {}
    for rule in rules:
        source = by_key.get(rule.source_key) if rule.source_key is not None else None
        if source is None and rule.source_trajectory_id:
            source = by_id.get(rule.source_trajectory_id)
        if source is None:
            out[rule.key] = f"rule:{rule.key}"
        elif group_by == "failure_class":
            out[rule.key] = (source.failure_class or "").strip().lower() or f"unclassed:{source.trajectory_id}"
        elif group_by == "corpus":
            out[rule.key] = source.corpus
        else:
            out[rule.key] = family_of(source)
    return out


def group_split(group_of: Mapping[str, str], group_by: str, held_back: float = DEFAULT_HELD_BACK,
                seed: int = DEFAULT_SEED) -> Split:
    groups = sorted(set(group_of.values()))
    back = {g for g in groups if _hash_share(g, seed) < held_back}
    if groups and len(back) in (0, len(groups)) and len(groups) > 1:  # both sides must exist
        ordered = sorted(groups, key=lambda g: _hash_share(g, seed))
        back = set(ordered[: max(1, round(len(groups) * held_back))])
    return Split(group_by, seed, held_back, dict(group_of),
                 frozenset(k for k, g in group_of.items() if g not in back),
                 frozenset(k for k, g in group_of.items() if g in back))


def record_split(keys: Sequence[str], held_back: float = DEFAULT_HELD_BACK, seed: int = DEFAULT_SEED) -> Split:
    """A split by record (each rule its own group): what the lab never uses; tests compare."""
    return group_split({k: f"record:{k}" for k in keys}, "record", held_back, seed)
