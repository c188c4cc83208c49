"""Domain groups for the Workbench's broken-gate fallback.

0.3.1 gates a matched success as cross-domain only from ``failure_class``, which most
successes lack, so the gate rarely fires on them (reference doc §12.2). The Workbench
profile falls back to the record's ``domain`` field when ``failure_class`` is absent.
The trigger's domain is read the matcher's way (first known tool token, whole tokens).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from core.matching.tables import DOMAIN_GROUPS, KNOWN_DOMAINS
from core.replay.types import ReplayRule, ReplayTrajectory

_SPLIT = re.compile(r"[^a-z0-9]+")


def trigger_group(trigger: str) -> str | None:
    tokens = set(_SPLIT.split(trigger.lower()))
    for name in KNOWN_DOMAINS:
        if name in tokens:
            return DOMAIN_GROUPS.get(name)
    return None


def _group(name: object) -> str | None:
    if not isinstance(name, str) or not name:
        return None
    return DOMAIN_GROUPS.get(name.strip().lower())


def trajectory_fallback_group(t: ReplayTrajectory) -> str | None:
    """The group of ``domain`` for records WITHOUT a failure_class (else None)."""
    if t.failure_class:
        return None
    return _group(t.domain)


_CODES = {group: code for code, group in enumerate(sorted(set(DOMAIN_GROUPS.values())))}


def _code(group: str | None) -> int:
    return -1 if group is None else _CODES[group]


def trajectory_fallback_codes(trajectories: Sequence[ReplayTrajectory]) -> np.ndarray:
    """[T] int: the fallback group code of each trajectory (-1 none); computed once per run."""
    return np.fromiter((_code(trajectory_fallback_group(t)) for t in trajectories), dtype=np.int32,
                       count=len(trajectories))


def trigger_codes(rules: Sequence[ReplayRule]) -> np.ndarray:
    """[R] int: the group code of each rule's trigger (-1 none)."""
    return np.array([_code(trigger_group(rule.trigger)) for rule in rules], dtype=np.int32)


def group_conflict(rule_codes: np.ndarray, traj_codes: np.ndarray) -> np.ndarray:
    """Both groups known and different (arrays that broadcast together)."""
    return np.asarray((rule_codes >= 0) & (traj_codes >= 0) & (rule_codes != traj_codes))


def fallback_conflict(rules: Sequence[ReplayRule], traj_codes: np.ndarray) -> np.ndarray:
    """[R, T] bool: both groups known (trajectory from ``domain``) and different."""
    return group_conflict(trigger_codes(rules)[:, None], np.asarray(traj_codes, dtype=np.int32)[None, :])
