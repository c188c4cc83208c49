"""Which successes are recovered runs (counted as near misses, never as broken).

Same classifier as 0.3.1's simulator: a whole ``/`` segment of ``failure_class`` is a
recovery word (#616: ``unrecoverable`` is not), or a token of the id or task is one (#723).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from core.replay.types import ReplayTrajectory

RECOVERY_CLASS_SEGMENTS = frozenset(
    {"temporary", "retry", "recovered", "recovery", "intermittent", "flaky", "near_miss"}
)
RECOVERY_TEXT_TOKENS = frozenset(
    {
        "retry",
        "retries",
        "retried",
        "retrying",
        "rollback",
        "recover",
        "recovered",
        "recovery",
        "flaky",
        "intermittent",
        "temporary",
        "fallback",
        "transient",
    }
)
_SPLIT = re.compile(r"[^a-z0-9]+")


def recovery_reason(trajectory_id: str, task: object, failure_class: object) -> str | None:
    """``class:<segment>``, ``text:<token>`` or None."""
    if isinstance(failure_class, str):
        for seg in failure_class.split("/"):
            if seg.strip().lower() in RECOVERY_CLASS_SEGMENTS:
                return f"class:{seg.strip().lower()}"
    for text in (trajectory_id, task):
        if isinstance(text, str) and text:
            hit = set(_SPLIT.split(text.lower())) & RECOVERY_TEXT_TOKENS
            if hit:
                return f"text:{sorted(hit)[0]}"
    return None


def recovery_mask(trajectories: Sequence[ReplayTrajectory]) -> np.ndarray:
    """[T] bool: the trajectory reads as a recovered run."""
    return np.fromiter(
        (
            recovery_reason(t.trajectory_id, t.record.get("task"), t.failure_class) is not None
            for t in trajectories
        ),
        dtype=bool,
        count=len(trajectories),
    )
