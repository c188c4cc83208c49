"""The per-trajectory part of a run's trajectory side, built slice by slice, on every core.

Each trajectory's record is parsed once (the store hands records over as JSON text:
``ReplayTrajectory.record``), its views built (``TrajectoryViews``), its recovered-run flag
read from the same parse, and the views' token ids and distinct words listed
(``view_tokens.tokenize_slice``): about three quarters of a 10^5-trajectory run's fixed
cost, all of it independent from one trajectory to the next. A large run splits its
trajectories into consecutive slices: this process builds the first while forked helpers
build the others (``parallel.forked_calls``: fork only where it is safe, cancellable,
helpers reaped), and ``engine.build_trajectory_side`` merges them into the very side one
slice gives (``tests/core/test_view_slices.py``: every array, vocabulary and answer equal).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np

from core.checked import Check, checked
from core.matching.view_tokens import SliceTokens, tokenize_slice
from core.matching.views import TrajectoryViews
from core.replay import parallel
from core.replay.recovery import recovery_reason
from core.replay.types import ReplayTrajectory

#: trajectories per slice at least: below it a helper's fork and the views sent back cost
#: more than the slice saves
MIN_SLICE = 10_000


@dataclass(frozen=True)
class SideSlice:
    """What the trajectories of one slice contribute to the side."""

    views: list[TrajectoryViews] | None  # None: not kept (the index needs only ``tokens``)
    recovery: np.ndarray  # bool, one per trajectory: reads as a recovered run
    tokens: SliceTokens


class RecordViews(Sequence[TrajectoryViews]):
    """The views of a run's trajectories, built from each record when read and not kept.

    A lexical run over more than ``view_cache.MAX_TRAJECTORIES`` trajectories scores from the
    index alone, which holds the views' texts (``ViewColumns``); the views themselves (their
    sources: every original field text) were half of the side's memory, about 4.5 KB a
    trajectory, and sending a slice's views from a helper cost the parent a second per 10^5.
    Whatever reads them still gets exactly what ``TrajectoryViews.from_record`` gives."""

    def __init__(self, trajectories: Sequence[ReplayTrajectory], include_input: bool) -> None:
        self._trajectories = trajectories
        self._include_input = include_input

    def __len__(self) -> int:
        return len(self._trajectories)

    @overload
    def __getitem__(self, index: int) -> TrajectoryViews: ...

    @overload
    def __getitem__(self, index: slice) -> list[TrajectoryViews]: ...

    def __getitem__(self, index: int | slice) -> TrajectoryViews | list[TrajectoryViews]:
        if isinstance(index, slice):
            return [self._views(t) for t in self._trajectories[index]]
        return self._views(self._trajectories[index])

    def _views(self, trajectory: ReplayTrajectory) -> TrajectoryViews:
        return TrajectoryViews.from_record(trajectory.record, include_input=self._include_input)


def build_slice(
    trajectories: Sequence[ReplayTrajectory], include_input: bool, with_words: bool, check: Check | None,
    keep_views: bool = True,
) -> SideSlice:
    views: list[TrajectoryViews] = []
    recovered: list[bool] = []
    for t in checked(trajectories, check):
        record = t.record  # parsed here, once (kept as text by a run over the store)
        views.append(TrajectoryViews.from_record(record, include_input=include_input))
        recovered.append(recovery_reason(t.trajectory_id, record.get("task"), t.failure_class) is not None)
    tokens = tokenize_slice(views, with_words, check)
    return SideSlice(views if keep_views else None, np.asarray(recovered, dtype=bool), tokens)


def slice_bounds(count: int, processes: int) -> list[tuple[int, int]]:
    """Consecutive, nearly equal slices: at most ``processes``, each of ``MIN_SLICE`` or more
    (one slice for a small set)."""
    parts = max(1, min(processes, count // MIN_SLICE))
    edges = [count * i // parts for i in range(parts + 1)]
    return list(zip(edges[:-1], edges[1:]))


def build_slices(
    trajectories: Sequence[ReplayTrajectory], include_input: bool, with_words: bool, check: Check | None,
    processes: int = 1, keep_views: bool = True, meanwhile: Callable[[], None] | None = None,
) -> list[SideSlice]:
    """Every slice's part, in order: the first built here, the others in forked helpers.
    ``keep_views=False``: the slices hold no views (``RecordViews`` builds them when read).
    ``meanwhile`` runs here after this process's slice, while the helpers finish theirs
    (a helper is a little slower than this process: it copies the pages it touches)."""
    bounds = slice_bounds(len(trajectories), processes)

    def part(lo: int, hi: int, part_check: Check | None) -> SideSlice:
        return build_slice(trajectories[lo:hi], include_input, with_words, part_check, keep_views)

    def first() -> SideSlice:
        built = part(*bounds[0], check)
        if meanwhile is not None:
            meanwhile()
        return built

    if len(bounds) == 1:
        return [first()]
    # The helpers are not cancelled by ``check`` themselves: this process kills them on a cancel.
    elsewhere = [lambda lo=lo, hi=hi: part(lo, hi, None) for lo, hi in bounds[1:]]
    return parallel.forked_calls(first, elsewhere, check)
