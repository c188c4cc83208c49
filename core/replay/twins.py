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
from dataclasses import replace

import numpy as np

from core.matching.text import normalize
from core.replay.buckets import PREVENTED
from core.replay.matcher_bridge import Block
from core.replay.pools import PoolIndex, self_positions
from core.replay.types import ReplayRule

TWIN_FLOOR = "twin_source"
_BLOCK = 1024  # rows of the rule x rule cosine made at a time (10^4 rules: 10^8 cells otherwise)

EmbedFn = Callable[[list[str]], np.ndarray]


def trigger_vectors(rules: Sequence[ReplayRule], embed: EmbedFn) -> np.ndarray:
    """[R, d]: each rule's trigger embedding, unit length (a blank trigger's is zero)."""
    vectors = np.asarray(embed([r.trigger for r in rules]), dtype=np.float64).reshape(len(rules), -1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0))


def twin_groups(rules: Sequence[ReplayRule], tau: float, vectors: np.ndarray | None) -> list[np.ndarray]:
    """Per rule, the rows of its twins (itself left out), sorted: the same normalised trigger, or
    (``vectors`` given: a semantic run) trigger cosine >= ``tau``. A blank trigger has no twin."""
    n = len(rules)
    found: list[set[int]] = [set() for _ in range(n)]
    by_text: dict[str, list[int]] = {}
    for row, rule in enumerate(rules):
        text = normalize(rule.trigger)
        if text:
            by_text.setdefault(text, []).append(row)
    for rows in by_text.values():
        for row in rows:
            found[row].update(rows)
    if vectors is not None and n > 1:
        blank = np.array([not normalize(r.trigger) for r in rules])
        for lo in range(0, n, _BLOCK):
            near = vectors[lo:lo + _BLOCK] @ vectors.T >= tau
            near[:, blank] = False
            for offset, cols in enumerate(near):
                if not blank[lo + offset]:
                    found[lo + offset].update(np.flatnonzero(cols).tolist())
    for row in range(n):
        found[row].discard(row)
    return [np.asarray(sorted(rows), dtype=np.int64) for rows in found]


def twin_columns(rules: Sequence[ReplayRule], index: PoolIndex, tau: float,
                 vectors: np.ndarray | None) -> list[np.ndarray]:
    """Per rule, the sorted trajectory columns of the failures its twins were written from (its
    own source left out: a rule never claims the failure it was written from)."""
    sources = [np.asarray(self_positions(r, index, by_key=True), dtype=np.int64) for r in rules]
    out = []
    for row, twins in enumerate(twin_groups(rules, tau, vectors)):
        if not twins.size:
            out.append(np.zeros(0, dtype=np.int64))
            continue
        cols = np.unique(np.concatenate([sources[t] for t in twins.tolist()]))
        cols = cols[index.failure[cols]]
        out.append(np.setdiff1d(cols, sources[row]))
    return out


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


def run_twin_columns(rules: Sequence[ReplayRule], pool: Sequence[ReplayRule] | None, index: PoolIndex, tau: float,
                     embed: EmbedFn | None) -> list[np.ndarray]:
    """Per replayed rule, its twins' source columns, twins looked up among ``pool`` (None: the
    replayed rules themselves). A what-if replays one drafted rule, but its twins are the store's
    other rules: without the pool it would lose every twin claim and show them as moves. A pool
    rule with a replayed rule's key is that rule (the draft's text wins)."""
    replayed = {r.key for r in rules}
    merged = [r for r in (pool or ()) if r.key not in replayed] + list(rules)
    vectors = trigger_vectors(merged, embed) if embed is not None else None
    return twin_columns(merged, index, tau, vectors)[len(merged) - len(rules):]
