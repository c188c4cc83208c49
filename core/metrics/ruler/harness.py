"""The mutation harness: canaries, shuffled-pairs floors and k-of-n mutations for any comparator.

A comparator is a total function: it always returns a number, so its output alone never
says whether it can fail. The harness therefore feeds it inputs whose verdict is known from
outside the scorer (seed 004):

* ``floor`` -- the metric on deliberately mismatched pairs (a seeded derangement that never
  pairs two rows of the same group), computed on every run;
* ``canaries`` -- single pairs that must fail (or must hold), each a fixed verdict;
* ``mutations`` -- a mutation applied to k of n correct rows; a working comparator drops by
  about the share of mutated rows that were passing (harmful) and holds (benign).

Everything here is pure and deterministic for a given seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.metrics.ruler.model import (
    BENIGN,
    BLIND_BELOW,
    DEFAULT_SEED,
    HARMFUL,
    INJECTED_RATE,
    MUST_FAIL,
    OVER_SENSITIVE_ABOVE,
    CanaryResult,
    Flag,
    Floor,
    MutationDrop,
    RulerReport,
)

Verdict = tuple[float, bool]  # (score, passed)
FLOOR_METHOD = "shuffled pairs: seeded derangement, never pairing two rows of the same group"


@dataclass(frozen=True)
class Row:
    """One correct pair: ``pred`` is what is scored against ``ref``; ``group`` is what must
    differ for a pair to count as mismatched (e.g. the failure class)."""

    pred: Any
    ref: Any
    group: str
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Comparator:
    """Wraps a metric as ``evaluate_many(pairs) -> [(score, passed)]`` plus its headline value.

    ``value`` aggregates a list of verdicts (plus the pairs, for set statistics such as
    kappa) into the number the product shows: the mean score (``"mean"``), the pass rate
    (``"pass_rate"``), or a callable. ``contract`` names the benign mutations the metric
    claims to be invariant to; moving on any other benign mutation is reported, not flagged.
    """

    name: str
    label: str
    description: str
    threshold: float | None
    evaluate_many: Callable[[Sequence[tuple[Any, Any]]], list[Verdict]]
    aggregate: str | Callable[[Sequence[tuple[Any, Any]], Sequence[Verdict]], float | None] = "mean"
    contract: frozenset[str] = frozenset()
    config: dict[str, Any] = field(default_factory=dict)

    def value(self, pairs: Sequence[tuple[Any, Any]], verdicts: Sequence[Verdict]) -> float | None:
        if not verdicts:
            return None
        if callable(self.aggregate):
            return self.aggregate(pairs, verdicts)
        if self.aggregate == "pass_rate":
            return sum(1 for _, ok in verdicts if ok) / len(verdicts)
        return sum(s for s, _ in verdicts) / len(verdicts)


def thresholded(fn: Callable[[Any, Any], float], threshold: float) -> Callable[[Sequence[tuple[Any, Any]]], list[Verdict]]:
    def run(pairs: Sequence[tuple[Any, Any]]) -> list[Verdict]:
        out = []
        for p, r in pairs:
            s = float(fn(p, r))
            out.append((s, s >= threshold))
        return out

    return run


@dataclass(frozen=True)
class MutationContext:
    rows: Sequence[Row]
    rng: random.Random


@dataclass(frozen=True)
class Mutation:
    """``apply(row, ctx)`` returns the mutated row, or None when it does not apply to it."""

    name: str
    kind: str  # harmful | benign
    description: str
    apply: Callable[[Row, MutationContext], Row | None]


@dataclass(frozen=True)
class PairCanary:
    name: str
    kind: str  # must_fail | must_hold
    source: str  # store | hand
    pred: Any
    ref: Any
    detail: str = ""


@dataclass(frozen=True)
class SetCanary:
    """A canary on a whole set (e.g. a constant rater): ``run(comparator) -> (score, passed_the_metric)``."""

    name: str
    kind: str
    source: str
    run: Callable[[Comparator], Verdict]
    detail: str = ""


Canary = PairCanary | SetCanary


# -- floors ---------------------------------------------------------------------------------
def derangement(rows: Sequence[Row], seed: int = DEFAULT_SEED) -> list[int] | None:
    """A seeded permutation ``p`` with ``rows[p[i]].group != rows[i].group`` for every i.

    Returns None when no such permutation exists (one group holds more than half the rows
    would make some same-group pairs unavoidable; then the caller says why)."""
    n = len(rows)
    if n < 2:
        return None
    groups = [r.group for r in rows]
    rng = random.Random(seed)
    order = list(range(n))
    for _attempt in range(50):
        rng.shuffle(order)
        perm = order[:]
        for _sweep in range(20):
            bad = [i for i in range(n) if groups[perm[i]] == groups[i]]
            if not bad:
                return perm
            for i in bad:
                j = rng.randrange(n)
                if groups[perm[j]] != groups[i] and groups[perm[i]] != groups[j]:
                    perm[i], perm[j] = perm[j], perm[i]
    return None


def shuffled_pairs(rows: Sequence[Row], seed: int = DEFAULT_SEED) -> tuple[list[tuple[Any, Any]], str | None]:
    perm = derangement(rows, seed)
    if perm is None:
        if len(rows) < 2:
            return [], "fewer than 2 rows: no mismatched pair can be built"
        # Fall back to a plain rotation; say so (some pairs may share a group).
        perm = [(i + 1) % len(rows) for i in range(len(rows))]
        note = "no derangement across groups exists; a rotation was used (some pairs may share a group)"
    else:
        note = None
    return [(rows[i].pred, rows[perm[i]].ref) for i in range(len(rows))], note


def floor_of(comparator: Comparator, rows: Sequence[Row], seed: int = DEFAULT_SEED) -> Floor:
    pairs, note = shuffled_pairs(rows, seed)
    verdicts = comparator.evaluate_many(pairs) if pairs else []
    return Floor(comparator.value(pairs, verdicts), FLOOR_METHOD, len(pairs), seed, note)


# -- canaries -------------------------------------------------------------------------------
def run_canaries(comparator: Comparator, canaries: Sequence[Canary]) -> list[CanaryResult]:
    pair_canaries = [c for c in canaries if isinstance(c, PairCanary)]
    verdicts = comparator.evaluate_many([(c.pred, c.ref) for c in pair_canaries]) if pair_canaries else []
    results: dict[int, CanaryResult] = {}
    for c, (score, ok) in zip(pair_canaries, verdicts):
        results[id(c)] = _canary_result(c, score, ok)
    for canary in canaries:
        if isinstance(canary, SetCanary):
            score, ok = canary.run(comparator)
            results[id(canary)] = _canary_result(canary, score, ok)
    return [results[id(c)] for c in canaries]


def _canary_result(c: Canary, score: float | None, ok: bool) -> CanaryResult:
    expected = "fail" if c.kind == MUST_FAIL else "pass"
    got = "pass" if ok else "fail"
    return CanaryResult(c.name, c.kind, c.source, expected, got, score, expected == got, c.detail)


# -- mutations ------------------------------------------------------------------------------
def run_mutation(
    comparator: Comparator, rows: Sequence[Row], base: Sequence[Verdict], mutation: Mutation,
    seed: int = DEFAULT_SEED, rate: float = INJECTED_RATE,
) -> MutationDrop:
    """Apply ``mutation`` to k = round(rate * n) applicable rows and measure the drop."""
    n = len(rows)
    rng = random.Random(f"{seed}:{comparator.name}:{mutation.name}")
    ctx = MutationContext(rows, rng)
    candidates: list[tuple[int, Row]] = []
    for i, row in enumerate(rows):
        mutated = mutation.apply(row, ctx)
        if mutated is not None:
            candidates.append((i, mutated))
    k = min(len(candidates), max(1, round(rate * n))) if n else 0
    chosen = sorted(rng.sample(candidates, k), key=lambda t: t[0]) if k else []
    base_pairs = [(r.pred, r.ref) for r in rows]
    pass_before = _pass_rate(base)
    value_before = comparator.value(base_pairs, base)
    if not chosen:
        return MutationDrop(mutation.name, mutation.kind, mutation.description, n, 0, len(candidates), 0.0,
                            pass_before, None, None, None, None, value_before, None)
    after = list(base)
    pairs = list(base_pairs)
    new = comparator.evaluate_many([(m.pred, m.ref) for _, m in chosen])
    for (i, m), verdict in zip(chosen, new):
        after[i] = verdict
        pairs[i] = (m.pred, m.ref)
    pass_after = _pass_rate(after)
    observed = None if pass_before is None or pass_after is None else pass_before - pass_after
    expected = sum(1 for i, _ in chosen if base[i][1]) / n
    sensitivity = None if not expected or observed is None else observed / expected
    return MutationDrop(
        mutation.name, mutation.kind, mutation.description, n, k, len(candidates), k / n, pass_before, pass_after,
        observed, expected, sensitivity, value_before, comparator.value(pairs, after),
    )


def _pass_rate(verdicts: Sequence[Verdict]) -> float | None:
    return (sum(1 for _, ok in verdicts if ok) / len(verdicts)) if verdicts else None


def flags_for(comparator: Comparator, drops: Sequence[MutationDrop]) -> tuple[list[Flag], list[str]]:
    """``blind to X`` / ``over-sensitive to Y`` flags, and notes for what is out of contract."""
    flags: list[Flag] = []
    notes: list[str] = []
    for d in drops:
        if d.k == 0 or d.sensitivity is None:
            notes.append(f"{d.mutation}: not assessable on this store ({d.applicable} applicable rows, "
                         f"{'no mutated row passed before' if d.k else 'none mutated'})")
            continue
        if d.kind == HARMFUL and d.sensitivity < BLIND_BELOW:
            flags.append(Flag("blind", d.mutation,
                              f"blind to {d.mutation}: dropped {d.observed_drop:.3f} where {d.expected_drop:.3f} "
                              f"was available ({d.k}/{d.n} rows mutated; caught {d.sensitivity:.0%} < "
                              f"{BLIND_BELOW:.0%})"))
        elif d.kind == BENIGN and abs(d.sensitivity) > OVER_SENSITIVE_ABOVE:
            message = (f"over-sensitive to {d.mutation}: moved {d.observed_drop:+.3f} on a benign change "
                       f"({d.k}/{d.n} rows; {abs(d.sensitivity):.0%} of mutated passing rows flipped > "
                       f"{OVER_SENSITIVE_ABOVE:.0%})")
            if d.mutation in comparator.contract:
                flags.append(Flag("over_sensitive", d.mutation, message))
            else:
                notes.append(message.replace("over-sensitive to", "moves on", 1)
                             + f"; not flagged: {comparator.label} does not claim invariance to {d.mutation}")
    return flags, notes


def check(
    comparator: Comparator, rows: Sequence[Row], mutations: Sequence[Mutation], canaries: Sequence[Canary] = (),
    seed: int = DEFAULT_SEED, rate: float = INJECTED_RATE, notes: Sequence[str] = (),
) -> RulerReport:
    """Run the whole ruler on one comparator."""
    pairs = [(r.pred, r.ref) for r in rows]
    base = comparator.evaluate_many(pairs) if pairs else []
    value = comparator.value(pairs, base)
    drops = [run_mutation(comparator, rows, base, m, seed, rate) for m in mutations]
    flags, mutation_notes = flags_for(comparator, drops)
    return RulerReport(
        metric=comparator.name, label=comparator.label, description=comparator.description,
        threshold=comparator.threshold, value=value, floor=floor_of(comparator, rows, seed), n_rows=len(rows),
        canaries=tuple(run_canaries(comparator, canaries)), mutations=tuple(drops), flags=tuple(flags),
        notes=tuple(notes) + tuple(mutation_notes), config=dict(comparator.config),
    )


def with_pred(row: Row, pred: Any, **meta: Any) -> Row:
    return replace(row, pred=pred, meta={**row.meta, **meta})


def with_ref(row: Row, ref: Any, **meta: Any) -> Row:
    return replace(row, ref=ref, meta={**row.meta, **meta})
