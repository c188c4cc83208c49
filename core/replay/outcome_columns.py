"""One rule's evidence rows as the engine computes them: columns, read as rows on demand.

A 10^5 x 10^3 run has ~7.7 million evidence pairs. Building a ``PairOutcome`` tuple for
each (to have the save path take them apart again into the block's columns) was 40 % of
the run's CPU. ``OutcomeColumns`` keeps the chunk's arrays (slices, no copy) and is a
``Sequence[PairOutcome]``: iterating, indexing or comparing it builds the very rows the
tuple path built (same values, same order), once, when someone asks. The save path reads
the arrays (``core.store.outcome_blocks.build``) and never builds a row.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from core.replay.buckets import BUCKET_NAMES
from core.replay.types import PairOutcome


@dataclass(frozen=True, eq=False)
class OutcomeColumns(Sequence[PairOutcome]):
    """Row i of every array is one pair; ``view`` / ``floor`` are codes into the name tuples,
    ``bucket`` a code into ``core.replay.buckets.BUCKET_NAMES``; ``cosine`` is None when the
    run has no cosines (every pair's cosine is None)."""

    trajectory_key: npt.NDArray[np.int64]
    bucket: npt.NDArray[np.int8]
    score: npt.NDArray[np.float64]
    token_f1: npt.NDArray[np.float64]
    bigram: npt.NDArray[np.float64]
    cosine: npt.NDArray[np.float64] | None
    view: npt.NDArray[np.int8]
    view_names: tuple[str | None, ...]
    floor: npt.NDArray[np.int8]
    floor_names: tuple[str | None, ...]
    threshold: npt.NDArray[np.float64]
    margin: npt.NDArray[np.float64]

    def __len__(self) -> int:
        return int(self.trajectory_key.shape[0])

    @overload
    def __getitem__(self, index: int) -> PairOutcome: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[PairOutcome, ...]: ...

    def __getitem__(self, index: int | slice) -> PairOutcome | tuple[PairOutcome, ...]:
        return self.rows[index]

    def __iter__(self) -> Iterator[PairOutcome]:
        return iter(self.rows)

    def __eq__(self, other: object) -> bool:
        # Equal to any sequence of the same rows, as the tuple it replaces was.
        if isinstance(other, OutcomeColumns):
            return self.rows == other.rows
        if isinstance(other, (tuple, list)):
            return self.rows == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.rows)

    def __repr__(self) -> str:
        return f"OutcomeColumns({len(self)} pairs)"

    @cached_property
    def rows(self) -> tuple[PairOutcome, ...]:
        """The pairs as ``PairOutcome`` rows (built once, on first use)."""
        n = len(self)
        names = np.array(BUCKET_NAMES, dtype=object)
        cosine: list[Any] = [None] * n if self.cosine is None else self.cosine.tolist()
        return tuple(map(PairOutcome._make, zip(
            self.trajectory_key.tolist(),
            names.take(self.bucket).tolist(),
            self.score.tolist(),
            self.token_f1.tolist(),
            self.bigram.tolist(),
            cosine,
            np.array(self.view_names, dtype=object).take(self.view).tolist(),
            np.array(self.floor_names, dtype=object).take(self.floor).tolist(),
            self.threshold.tolist(),
            self.margin.tolist(),
            strict=True,
        )))


def split_by_rule(columns: dict[str, Any], ends: Sequence[int]) -> list[OutcomeColumns]:
    """``columns``: the chunk's arrays (pairs ordered by rule), ``ends``: each rule's end
    offset. Each rule gets slices (views) of them."""
    out = []
    start = 0
    arrays = {k: v for k, v in columns.items() if isinstance(v, np.ndarray)}
    fixed = {k: v for k, v in columns.items() if not isinstance(v, np.ndarray)}
    for end in ends:
        part: dict[str, Any] = {k: v[start:end] for k, v in arrays.items()}
        out.append(OutcomeColumns(**part, **fixed))
        start = end
    return out
