"""Agreement among more than two raters: Fleiss' kappa, Krippendorff's alpha (nominal) and
pairwise percent agreement, from a coders x units table (``None`` = a missing rating).

Used for human-vs-human agreement in a team (``core.agreement``). The conventions are those
of ``core.metrics.interrater`` (two raters; Cohen's kappa): nothing measured is ``None``,
never 0.0, and intervals, when asked for, are its seeded percentile bootstrap
(``bootstrap_ci``) over subjects or units.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from core.metrics.interrater import bootstrap_ci
from core.stats.wilson import Rate

Rating = Hashable | None


def _r4(v: float | None) -> float | None:
    """A statistic as ``to_dict`` shows it: four decimals, None kept."""
    return None if v is None else round(v, 4)


@dataclass(frozen=True)
class FleissResult:
    value: float | None
    subjects: int
    raters: int
    observed: float | None  # P-bar
    expected: float | None  # P-bar_e
    ci: tuple[float, float] | None = None  # bootstrap over subjects, when asked for
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": _r4(self.value), "subjects": self.subjects, "raters": self.raters,
            "observed": _r4(self.observed), "expected": _r4(self.expected),
            "ci_low": None if self.ci is None else _r4(self.ci[0]),
            "ci_high": None if self.ci is None else _r4(self.ci[1]), "note": self.note,
        }


def fleiss_kappa(counts: Sequence[Sequence[int]], bootstrap: int = 0, seed: int = 20260913) -> FleissResult:
    """Fleiss' kappa from a subjects x categories count table (same number of raters per subject)."""
    if not counts:
        return FleissResult(None, 0, 0, None, None, note="no subjects")
    raters = sum(counts[0])
    if raters < 2 or any(sum(row) != raters for row in counts):
        raise ValueError("Fleiss' kappa needs the same number (>= 2) of ratings for every subject")
    value, p_bar, pe_bar = _fleiss(counts)
    note = None if value is not None else "undefined: every rating fell in one category"
    ci = None
    if bootstrap and value is not None:
        ci = bootstrap_ci(list(counts), lambda s: _fleiss(s)[0], bootstrap, seed)
    return FleissResult(value, len(counts), raters, p_bar, pe_bar, ci, note)


def _fleiss(counts: Sequence[Sequence[int]]) -> tuple[float | None, float, float]:
    subjects = len(counts)
    raters = sum(counts[0])
    total = subjects * raters
    categories = len(counts[0])
    p_j = [sum(row[j] for row in counts) / total for j in range(categories)]
    p_i = [(sum(c * c for c in row) - raters) / (raters * (raters - 1)) for row in counts]
    p_bar = sum(p_i) / subjects
    pe_bar = sum(p * p for p in p_j)
    if math.isclose(pe_bar, 1.0):
        return None, p_bar, pe_bar
    return (p_bar - pe_bar) / (1.0 - pe_bar), p_bar, pe_bar


@dataclass(frozen=True)
class AlphaResult:
    value: float | None
    units: int  # units with at least two ratings (pairable)
    pairable_values: int  # n in Krippendorff's notation
    observed_disagreement: float | None
    expected_disagreement: float | None
    ci: tuple[float, float] | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": _r4(self.value), "units": self.units, "pairable_values": self.pairable_values,
            "observed_disagreement": _r4(self.observed_disagreement),
            "expected_disagreement": _r4(self.expected_disagreement),
            "ci_low": None if self.ci is None else _r4(self.ci[0]),
            "ci_high": None if self.ci is None else _r4(self.ci[1]), "note": self.note,
        }


def krippendorff_alpha_nominal(
    reliability_data: Sequence[Sequence[Rating]], bootstrap: int = 0, seed: int = 20260913
) -> AlphaResult:
    """Krippendorff's alpha, nominal metric, from a coders x units table (``None`` = missing).

    Units with fewer than two values are not pairable and are left out (Krippendorff 2011).
    """
    if not reliability_data:
        return AlphaResult(None, 0, 0, None, None, note="no coders")
    width = len(reliability_data[0])
    if any(len(row) != width for row in reliability_data):
        raise ValueError("every coder's row must cover the same units (use None for missing)")
    units = [[row[u] for row in reliability_data if row[u] is not None] for u in range(width)]
    pairable = [values for values in units if len(values) >= 2]
    value, n, d_o, d_e = _alpha(pairable)
    note = None
    if not pairable:
        note = "no unit has two or more ratings"
    elif value is None:
        note = "undefined: every pairable value is the same category"
    ci = None
    if bootstrap and value is not None:
        ci = bootstrap_ci(pairable, lambda s: _alpha(s)[0], bootstrap, seed)
    return AlphaResult(value, len(pairable), n, d_o, d_e, ci, note)


def _alpha(units: Sequence[Sequence[Hashable]]) -> tuple[float | None, int, float | None, float | None]:
    coincidence: dict[tuple[Hashable, Hashable], float] = defaultdict(float)
    for values in units:
        m = len(values)
        for i in range(m):
            for j in range(m):
                if i != j:
                    coincidence[(values[i], values[j])] += 1.0 / (m - 1)
    totals: dict[Hashable, float] = defaultdict(float)
    for (c, _k), o in coincidence.items():
        totals[c] += o
    n = sum(totals.values())
    if n <= 1:
        return None, round(n), None, None
    observed = sum(o for (c, k), o in coincidence.items() if c != k) / n
    categories = list(totals)
    expected = sum(totals[c] * totals[k] for c in categories for k in categories if c != k) / (n * (n - 1))
    if expected == 0:
        return None, round(n), observed, expected
    return 1.0 - observed / expected, round(n), observed, expected


def pairwise_percent_agreement(reliability_data: Sequence[Sequence[Rating]]) -> Rate:
    """Agreeing rater pairs / all rater pairs that rated the same unit (missing values skipped)."""
    agree = total = 0
    if not reliability_data:
        return Rate.of(0, 0)
    for u in range(len(reliability_data[0])):
        values = [row[u] for row in reliability_data if row[u] is not None]
        for x, y in combinations(values, 2):
            total += 1
            agree += x == y
    return Rate.of(agree, total)


def counts_table(reliability_data: Sequence[Sequence[Rating]], complete_only: bool = True) -> list[list[int]]:
    """Subjects x categories counts for Fleiss' kappa (units missing a rating dropped when asked)."""
    categories = sorted({v for row in reliability_data for v in row if v is not None}, key=str)
    table: list[list[int]] = []
    if not reliability_data:
        return table
    for u in range(len(reliability_data[0])):
        values = [row[u] for row in reliability_data]
        if complete_only and any(v is None for v in values):
            continue
        counter = Counter(v for v in values if v is not None)
        table.append([counter.get(c, 0) for c in categories])
    return table
