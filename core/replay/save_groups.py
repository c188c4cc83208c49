"""A run's chunks of results handed to its saver in groups: the first at once, then at most one
group every ``SAVE_INTERVAL_S``.

At 10^5 trajectories a chunk is one rule, so a 10^3-rule run finished 1,000 chunks, each
saved in its own transaction: opening a connection, taking the write lock, the commit and
its share of WAL checkpoints cost the one writer (the parent, while the scoring workers
need the machine's cores) about 4 ms a chunk, most of its saving time. Grouped, a run
commits a few times a second; the first chunk is still saved (and shown) at once, and a
window showing the run sees new rows within a fraction of a second. What is saved is the
same rows in the same order, only in fewer transactions. Pure: no store here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from core.replay.types import RuleResult

#: at most one group of results saved per this many seconds (after the first chunk)
SAVE_INTERVAL_S = 0.25
#: a group never holds more results than this (bounded memory whatever the chunk rate)
MAX_GROUP_RESULTS = 256


class SaveGroups:
    """``add`` each chunk's results in order; ``flush`` once the run is complete."""

    def __init__(
        self, save: Callable[[list[RuleResult]], None], interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._save = save
        self._interval = SAVE_INTERVAL_S if interval is None else interval
        self._clock = clock
        self._pending: list[RuleResult] = []
        self._due: float | None = None  # None: nothing saved yet, the next chunk goes at once
        self.groups = 0

    def add(self, results: Sequence[RuleResult]) -> None:
        self._pending.extend(results)
        if self._due is None or self._clock() >= self._due or len(self._pending) >= MAX_GROUP_RESULTS:
            self.flush()

    def flush(self) -> None:
        """Save what is pending (nothing when nothing is)."""
        if not self._pending:
            return
        group, self._pending = self._pending, []
        self._save(group)
        self.groups += 1
        self._due = self._clock() + self._interval
