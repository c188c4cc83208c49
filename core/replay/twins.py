"""Twin rules: a rule is also evidence for the failures its twins were written from.

Candidates are often one lesson extracted from several failures: the same trigger, or a near
paraphrase of it. Each twin was written from its own failure, so a profile with ``twin_rules``
set lets a rule claim ``prevented`` on its twins' source failures as well, even where its own
text scores below the threshold there (the calibration lab chose it; docs/lab.md "Sixth attempt").

Twins of rule r: every other rule whose trigger is r's (normalised text), or, in a semantic run,
whose trigger embedding has cosine >= ``twin_rules`` with r's. What it reads: triggers, each
rule's source, and (at apply time) the run's cross-domain gate and pools, never
``failure_class``. A twin claim is shown with the floor :data:`TWIN_FLOOR`, so the evidence says
why a pair below its threshold is ``prevented``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from core.matching.text import normalize
from core.replay.buckets import PREVENTED
from core.replay.matcher_bridge import Block
from core.replay.pools import PoolIndex, self_positions
from core.replay.types import ReplayRule

TWIN_FLOOR = "twin_source"
_BLOCK = 1024  # rules whose twins are looked up at a time (a [block, R] mask, not [R, R])

EmbedFn = Callable[[list[str]], np.ndarray]


def trigger_vectors(rules: Sequence[ReplayRule], embed: EmbedFn) -> np.ndarray:
    """[R, d]: each rule's trigger embedding, unit length (a blank trigger's is zero)."""
    vectors = np.asarray(embed([r.trigger for r in rules]), dtype=np.float64).reshape(len(rules), -1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0))


@dataclass(frozen=True)
class TwinIndex:
    """What a run's twin lookups need, built once: each rule's text group and trigger vector, and
    its sources' columns. Columns are made for a chunk of rules at a time (``columns``), so a run
    holds at most a chunk's worth: ten thousand rules with one trigger would otherwise be 10^8
    twin pairs kept at once."""

    group: np.ndarray  # [R] int64: rules with the same normalised trigger share it; -1: blank trigger
    vectors: np.ndarray | None  # [R, d] unit (a semantic run), else None: text twins only
    tau: float
    source_start: np.ndarray  # [R + 1] int64: rule i's source columns are source_cols[start[i]:start[i+1]]
    source_cols: np.ndarray  # int64
    failure: np.ndarray  # [T] bool

    @classmethod
    def build(cls, rules: Sequence[ReplayRule], index: PoolIndex, tau: float,
              vectors: np.ndarray | None) -> TwinIndex:
        ids: dict[str, int] = {}
        group = np.fromiter(((ids.setdefault(text, len(ids)) if (text := normalize(r.trigger)) else -1)
                             for r in rules), dtype=np.int64, count=len(rules))
        sources = [np.unique(np.asarray(self_positions(r, index, by_key=True), dtype=np.int64)) for r in rules]
        start = np.zeros(len(rules) + 1, dtype=np.int64)
        start[1:] = np.cumsum([len(c) for c in sources])
        cols = np.concatenate(sources) if sources else np.zeros(0, dtype=np.int64)
        return cls(group, vectors, tau, start, cols, index.failure)

    def twin_rows(self, lo: int, hi: int) -> np.ndarray:
        """[hi - lo, R] bool: which rules are twins of rules lo..hi-1 (never the rule itself)."""
        mine = self.group[lo:hi, None]
        twins: np.ndarray = (mine == self.group[None, :]) & (mine >= 0)
        if self.vectors is not None:
            twins |= (self.vectors[lo:hi] @ self.vectors.T >= self.tau) & (mine >= 0) & (self.group[None, :] >= 0)
        twins[np.arange(hi - lo), np.arange(lo, hi)] = False
        return twins

    def columns(self, lo: int, hi: int) -> list[np.ndarray]:
        """Per rule lo..hi-1, the sorted columns of the failures its twins were written from (its own
        source left out: a rule never claims the failure it was written from)."""
        rows, twins = np.nonzero(self.twin_rows(lo, hi))
        counts = self.source_start[twins + 1] - self.source_start[twins]
        owner = np.repeat(rows, counts)  # each twin's source columns, for the row it is a twin of
        offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        cols = self.source_cols[np.repeat(self.source_start[twins], counts) + offsets]
        keep = self.failure[cols]
        owner, cols = owner[keep], cols[keep]  # still grouped by row (np.nonzero is row-major)
        bounds = np.searchsorted(owner, np.arange(hi - lo + 1))
        out = []
        for row in range(hi - lo):
            own = self.source_cols[self.source_start[lo + row]:self.source_start[lo + row + 1]]
            out.append(np.setdiff1d(cols[bounds[row]:bounds[row + 1]], own))
        return out


def twin_columns(rules: Sequence[ReplayRule], index: PoolIndex, tau: float,
                 vectors: np.ndarray | None) -> list[np.ndarray]:
    """Every rule's twins' source columns (``TwinIndex.columns`` over all rules, a block at a time)."""
    twins = TwinIndex.build(rules, index, tau, vectors)
    out: list[np.ndarray] = []
    for lo in range(0, len(rules), _BLOCK):
        out += twins.columns(lo, min(lo + _BLOCK, len(rules)))
    return out


def twin_groups(rules: Sequence[ReplayRule], tau: float, vectors: np.ndarray | None) -> list[np.ndarray]:
    """Per rule, the rows of its twins (itself left out), sorted: the same normalised trigger, or
    (``vectors`` given: a semantic run) trigger cosine >= ``tau``. A blank trigger has no twin."""
    twins = TwinIndex.build(rules, PoolIndex.build([]), tau, vectors).twin_rows(0, len(rules))
    return [np.flatnonzero(row) for row in twins]


def apply_twins(codes: np.ndarray, conflict: np.ndarray, twins: Sequence[np.ndarray]) -> np.ndarray:
    """``codes`` [R, T] with each row's twin columns made ``prevented`` where the cross-domain gate
    lets a match through (``conflict`` [R, T]); returns the [R, T] mask of the pairs it changed
    (only failures are twin columns: a success is never claimed this way)."""
    changed = np.zeros(codes.shape, dtype=bool)
    for row, cols in enumerate(twins):
        if cols.size:
            cols = cols[~conflict[row, cols] & (codes[row, cols] != PREVENTED)]
            changed[row, cols] = True
    codes[changed] = PREVENTED
    return changed


def with_twin_floor(batch: Block, changed: np.ndarray) -> Block:
    """``batch`` with the floor :data:`TWIN_FLOOR` on the pairs a twin claimed (the evidence row
    of such a pair says why it is ``prevented`` below its threshold)."""
    if not changed.any():
        return batch
    names = batch.floor_names if TWIN_FLOOR in batch.floor_names else (*batch.floor_names, TWIN_FLOOR)
    floor = batch.floor.copy()
    floor[changed] = names.index(TWIN_FLOOR)
    return replace(batch, floor=floor, floor_names=names)


class RunTwins:
    """A run's twin lookups for the rules it replays (``columns(lo, hi)`` per chunk), twins looked
    up among ``pool`` (None: the replayed rules themselves). A what-if replays one drafted rule,
    but its twins are the store's other rules: without the pool it would lose every twin claim and
    show them as moves. A pool rule with a replayed rule's key is that rule (the draft's text wins)."""

    def __init__(self, rules: Sequence[ReplayRule], pool: Sequence[ReplayRule] | None, index: PoolIndex,
                 tau: float, embed: EmbedFn | None) -> None:
        replayed = {r.key for r in rules}
        merged = [r for r in (pool or ()) if r.key not in replayed] + list(rules)
        vectors = trigger_vectors(merged, embed) if embed is not None else None
        self.offset = len(merged) - len(rules)  # the replayed rules are the merged list's tail
        self.index = TwinIndex.build(merged, index, tau, vectors)

    def columns(self, lo: int, hi: int) -> list[np.ndarray]:
        return self.index.columns(self.offset + lo, self.offset + hi)
