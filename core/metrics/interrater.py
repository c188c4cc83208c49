"""Agreement between two raters: percent agreement, Cohen's kappa (also within item kinds).
More than two raters (Fleiss' kappa, Krippendorff's alpha) are ``core.metrics.multirater``'s.

Used for human-vs-replay agreement (replay is "rater 2") and for human-vs-human agreement in a
team. Everything is nominal (unordered categories). Conventions:

* Nothing measured is ``None``, never 0.0 (an empty sample, or kappa when chance agreement
  is 1 because both raters used one single category: 0/0 is undefined, not perfect).
* Percent agreement carries its denominator and a Wilson interval (``Rate``).
* Cohen's kappa's 95% interval uses the large-sample (non-null) standard error of Fleiss,
  Cohen & Everitt (1969) -- the one in Fleiss, *Statistical Methods for Rates and
  Proportions*, 3rd ed., eq. 18.12 -- clipped to [-1, 1]. A seeded percentile bootstrap is
  available as a cross-check (``kappa_bootstrap_ci``) and for Fleiss' kappa / alpha
  (``bootstrap_ci``, used by ``multirater``).
* When kappa gets no interval (docs/agreement.md, "Intervals on few items"): below
  ``MIN_ITEMS_FOR_KAPPA_INTERVAL`` items the result carries no interval and its
  ``interval_note`` says "too few items for an interval" (a large-sample interval on 3 items
  collapses to [0.00, 0.00] or [1.00, 1.00]). At perfect agreement (every item agreed) the
  large-sample interval has zero width, so the interval is one-sided instead: the upper bound
  is 1 and the lower bound is kappa at the Wilson lower bound of the observed agreement (the
  chance agreement held at its observed value). Any other zero-width interval is not shown.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from core.stats.wilson import Z_95, Rate

T = TypeVar("T")
MIN_ITEMS_FOR_KAPPA_INTERVAL = 10  # below this many items kappa is shown without an interval
TOO_FEW_FOR_INTERVAL = "too few items for an interval"


# -- confusion matrix and percent agreement ---------------------------------------------
@dataclass(frozen=True)
class ConfusionMatrix:
    """``counts[i][j]``: items rater A put in ``labels[i]`` and rater B in ``labels[j]``."""

    labels: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]

    @property
    def n(self) -> int:
        return sum(sum(row) for row in self.counts)

    @property
    def agreements(self) -> int:
        return sum(self.counts[i][i] for i in range(len(self.labels)))

    def to_dict(self) -> dict[str, Any]:
        return {"labels": list(self.labels), "counts": [list(r) for r in self.counts]}


def confusion_matrix(a: Sequence[str], b: Sequence[str], labels: Sequence[str] | None = None) -> ConfusionMatrix:
    if len(a) != len(b):
        raise ValueError(f"rater sequences differ in length: {len(a)} != {len(b)}")
    order = list(labels) if labels is not None else sorted(set(a) | set(b))
    extra = (set(a) | set(b)) - set(order)
    order.extend(sorted(extra))
    index = {label: i for i, label in enumerate(order)}
    grid = [[0] * len(order) for _ in order]
    for x, y in zip(a, b):
        grid[index[x]][index[y]] += 1
    return ConfusionMatrix(tuple(order), tuple(tuple(r) for r in grid))


def percent_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> Rate:
    """Share of items on which the two raters gave the same answer, with a Wilson interval."""
    if len(a) != len(b):
        raise ValueError(f"rater sequences differ in length: {len(a)} != {len(b)}")
    return Rate.of(sum(1 for x, y in zip(a, b) if x == y), len(a))


# -- Cohen's kappa -------------------------------------------------------------------------
@dataclass(frozen=True)
class KappaResult:
    value: float | None
    n: int
    observed: float | None  # p_o
    expected: float | None  # p_e, chance agreement from the marginals
    se: float | None
    ci: tuple[float, float] | None
    method: str  # how ``ci`` was computed
    note: str | None = None
    interval_note: str | None = None  # why ``ci`` is absent or one-sided (too few items, perfect agreement)

    @property
    def too_few_for_interval(self) -> bool:
        return self.interval_note is not None and self.interval_note.startswith(TOO_FEW_FOR_INTERVAL)

    def to_dict(self) -> dict[str, Any]:
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 4)

        return {
            "value": r(self.value), "n": self.n, "observed": r(self.observed), "expected": r(self.expected),
            "se": r(self.se), "ci_low": None if self.ci is None else r(self.ci[0]),
            "ci_high": None if self.ci is None else r(self.ci[1]), "method": self.method, "note": self.note,
            "interval_note": self.interval_note, "too_few_for_interval": self.too_few_for_interval,
        }


def kappa_interval(
    n: int, observed: float, expected: float, ci: tuple[float, float] | str, z: float = Z_95,
    kind: str = "large-sample",
) -> tuple[tuple[float, float] | None, str | None]:
    """The interval kappa is shown with, and why it is absent or one-sided (the rule in the
    module docstring; docs/agreement.md). ``ci`` is the computed interval, or why there is
    none; ``kind`` names it in the zero-width note."""
    if n < MIN_ITEMS_FOR_KAPPA_INTERVAL:
        return None, f"{TOO_FEW_FOR_INTERVAL} (n = {n}, fewer than {MIN_ITEMS_FOR_KAPPA_INTERVAL})"
    if math.isclose(observed, 1.0):
        low_observed = Rate.of(n, n, z).ci
        assert low_observed is not None  # n >= MIN_ITEMS_FOR_KAPPA_INTERVAL > 0
        low = max(-1.0, (low_observed[0] - expected) / (1.0 - expected))
        return (low, 1.0), ("perfect agreement: one-sided, the lower bound is kappa at the Wilson lower bound "
                            "of the observed agreement")
    if isinstance(ci, str):
        return None, f"no interval: {ci}"
    if math.isclose(ci[0], ci[1], abs_tol=1e-9):  # absolute too: kappas of 0 are float noise around it
        return None, f"no interval: the {kind} interval has zero width on this table"
    return ci, None


def _kappa_parts(p: Sequence[Sequence[float]]) -> tuple[float, float, list[float], list[float]]:
    """(p_o, p_e, row marginals, column marginals) of a table of cell proportions."""
    k = len(p)
    rows = [sum(p[i]) for i in range(k)]
    cols = [sum(p[i][j] for i in range(k)) for j in range(k)]
    po = sum(p[i][i] for i in range(k))
    pe = sum(rows[i] * cols[i] for i in range(k))
    return po, pe, rows, cols


def kappa_from_matrix(matrix: ConfusionMatrix, z: float = Z_95) -> KappaResult:
    """Cohen's kappa of a square confusion matrix, with the FCE (1969) large-sample interval."""
    counts = matrix.counts
    n = matrix.n
    method = "asymptotic (Fleiss, Cohen & Everitt 1969)"
    if n == 0:
        return KappaResult(None, 0, None, None, None, None, method, "no items")
    k = len(counts)
    p = [[counts[i][j] / n for j in range(k)] for i in range(k)]
    po, pe, rows, cols = _kappa_parts(p)
    if math.isclose(pe, 1.0):
        return KappaResult(
            None, n, po, pe, None, None, method,
            "undefined: both raters used a single category, so chance agreement is 1",
        )
    kappa = (po - pe) / (1.0 - pe)
    a = sum(p[i][i] * (1.0 - (rows[i] + cols[i]) * (1.0 - kappa)) ** 2 for i in range(k))
    b = (1.0 - kappa) ** 2 * sum(
        p[i][j] * (cols[i] + rows[j]) ** 2 for i in range(k) for j in range(k) if i != j
    )
    c = (kappa - pe * (1.0 - kappa)) ** 2
    variance = max(0.0, (a + b - c) / (n * (1.0 - pe) ** 2))
    se = math.sqrt(variance)
    shown, interval_note = kappa_interval(n, po, pe, (max(-1.0, kappa - z * se), min(1.0, kappa + z * se)), z)
    return KappaResult(kappa, n, po, pe, se, shown, method, interval_note=interval_note)


def cohens_kappa(
    a: Sequence[str], b: Sequence[str], labels: Sequence[str] | None = None, z: float = Z_95
) -> KappaResult:
    return kappa_from_matrix(confusion_matrix(a, b, labels), z)


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default), q in [0, 1]."""
    position = (len(sorted_values) - 1) * q
    low = math.floor(position)
    high = math.ceil(position)
    if low == high:
        return sorted_values[low]
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def bootstrap_ci(
    units: Sequence[T], statistic: Callable[[Sequence[T]], float | None], reps: int = 2000,
    seed: int = 20260913, level: float = 0.95,
) -> tuple[float, float] | None:
    """Seeded percentile bootstrap over units; resamples where the statistic is undefined are skipped."""
    if not units:
        return None
    rng = random.Random(seed)
    values: list[float] = []
    for _ in range(reps):
        sample = [units[rng.randrange(len(units))] for _ in units]
        value = statistic(sample)
        if value is not None:
            values.append(value)
    if len(values) < reps // 2:
        return None
    values.sort()
    tail = (1.0 - level) / 2.0
    return (_percentile(values, tail), _percentile(values, 1.0 - tail))


def kappa_bootstrap_ci(
    a: Sequence[str], b: Sequence[str], reps: int = 2000, seed: int = 20260913
) -> tuple[float, float] | None:
    """Percentile bootstrap (items resampled with a fixed seed) for Cohen's kappa."""
    pairs = list(zip(a, b))
    labels = sorted(set(a) | set(b))

    def stat(sample: Sequence[tuple[str, str]]) -> float | None:
        return cohens_kappa([x for x, _ in sample], [y for _, y in sample], labels).value

    return bootstrap_ci(pairs, stat, reps, seed)


# -- kappa when the item kind fixes the vocabulary ----------------------------------------
def grouped_kappa(
    groups: Mapping[str, tuple[Sequence[str], Sequence[str]]], reps: int = 2000, seed: int = 20260913,
) -> KappaResult:
    """Cohen's kappa over groups whose answer vocabularies differ (e.g. verdicts vs buckets).

    Pooling such groups into one table would understate chance agreement (both raters know
    an item's group, so they can never disagree across groups). Here chance agreement is
    computed within each group and weighted by its share:
    ``p_e = sum_g (n_g / N) * p_e,g``, ``kappa = (p_o - p_e) / (1 - p_e)``. With one group this
    is exactly Cohen's kappa (and its asymptotic interval); with several the 95% interval is a
    seeded percentile bootstrap that resamples items within each group.
    """
    live = {g: (list(a), list(b)) for g, (a, b) in groups.items() if len(a)}
    if len(live) <= 1:
        if not live:
            return cohens_kappa([], [])
        a, b = next(iter(live.values()))
        return cohens_kappa(a, b)

    def stat(parts: dict[str, list[tuple[str, str]]]) -> tuple[float | None, float, float, int]:
        total = sum(len(p) for p in parts.values())
        agree = sum(1 for p in parts.values() for x, y in p if x == y)
        pe = 0.0
        for pairs in parts.values():
            n_g = len(pairs)
            left = Counter(x for x, _ in pairs)
            right = Counter(y for _, y in pairs)
            pe += (n_g / total) * sum(left[c] * right[c] for c in left) / (n_g * n_g)
        po = agree / total
        if math.isclose(pe, 1.0):
            return None, po, pe, total
        return (po - pe) / (1.0 - pe), po, pe, total

    parts = {g: list(zip(a, b)) for g, (a, b) in live.items()}
    value, po, pe, total = stat(parts)
    method = f"bootstrap within item kinds ({reps} resamples, seed {seed})"
    if value is None:
        return KappaResult(None, total, po, pe, None, None, method, "undefined: chance agreement is 1")
    rng = random.Random(seed)
    values: list[float] = []
    for _ in range(reps):
        sample = {g: [p[rng.randrange(len(p))] for _ in p] for g, p in parts.items()}
        v = stat(sample)[0]
        if v is not None:
            values.append(v)
    values.sort()
    # Fewer than half the resamples defined (the rest had chance agreement 1): no interval.
    ci = ((_percentile(values, 0.025), _percentile(values, 0.975)) if len(values) >= reps // 2
          else f"only {len(values)} of {reps} bootstrap resamples had a defined kappa (fewer than half)")
    shown, interval_note = kappa_interval(total, po, pe, ci, kind="bootstrap")
    return KappaResult(value, total, po, pe, None, shown, method, "chance agreement computed within each item kind",
                       interval_note)
