"""Intervals, boundaries and degenerate tables of the inter-rater statistics.

The bootstrap intervals are checked value for value against an independent implementation
written here with numpy (statistic and percentile), which shares with the code under test
only the documented resampling contract: ``random.Random(seed)``, one ``randrange(len)`` draw
per resampled unit, units (or each item kind's items, in order) resampled in turn.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from core.metrics.interrater import (
    ConfusionMatrix,
    bootstrap_ci,
    cohens_kappa,
    confusion_matrix,
    grouped_kappa,
    kappa_bootstrap_ci,
    kappa_from_matrix,
    kappa_interval,
    percent_agreement,
)
from core.metrics.multirater import counts_table, fleiss_kappa, krippendorff_alpha_nominal, pairwise_percent_agreement
from core.stats.wilson import Z_95

SEED = 20260913


def _np_cohen(pairs: Sequence[tuple[str, str]], labels: Sequence[str]) -> float | None:
    index = {label: i for i, label in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)))
    for x, y in pairs:
        table[index[x], index[y]] += 1
    p = table / table.sum()
    po, pe = float(np.trace(p)), float(p.sum(1) @ p.sum(0))
    return None if math.isclose(pe, 1.0) else (po - pe) / (1 - pe)


def _np_grouped(parts: dict[str, list[tuple[str, str]]]) -> float | None:
    total = sum(len(p) for p in parts.values())
    po = sum(x == y for p in parts.values() for x, y in p) / total
    pe = 0.0
    for pairs in parts.values():
        a = np.array([x for x, _ in pairs])
        b = np.array([y for _, y in pairs])
        pe += len(pairs) / total * sum(np.mean(a == c) * np.mean(b == c) for c in set(a) | set(b))
    return None if math.isclose(pe, 1.0) else (po - pe) / (1 - pe)


def _np_fleiss(rows: Sequence[Sequence[int]]) -> float | None:
    table = np.array(rows, dtype=float)
    raters = table[0].sum()
    p_i = ((table**2).sum(1) - raters) / (raters * (raters - 1))
    p_j = table.sum(0) / table.sum()
    pe = float((p_j**2).sum())
    return None if math.isclose(pe, 1.0) else (float(p_i.mean()) - pe) / (1 - pe)


def _np_alpha(units: Sequence[Sequence[str]]) -> float | None:
    """Nominal alpha from pairable values: 1 - (n - 1) * D_o-sum / D_e-sum (Krippendorff 2011)."""
    categories = sorted({v for u in units for v in u})
    o = np.zeros((len(categories), len(categories)))
    for values in units:
        counts = np.array([values.count(c) for c in categories], dtype=float)
        o += (np.outer(counts, counts) - np.diag(counts)) / (len(values) - 1)
    n_c = o.sum(1)
    n = n_c.sum()
    disagree_o = o.sum() - np.trace(o)
    disagree_e = (n_c.sum() ** 2 - (n_c**2).sum()) / (n - 1)
    return None if disagree_e == 0 else 1 - disagree_o / disagree_e


def _np_bootstrap(units: Sequence[object], stat: Callable[[list[object]], float | None], reps: int,
                  seed: int) -> tuple[float, float]:
    rng = random.Random(seed)
    values = []
    for _ in range(reps):
        v = stat([units[rng.randrange(len(units))] for _ in units])
        if v is not None:
            values.append(v)
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _pairs(cells: dict[tuple[str, str], int]) -> list[tuple[str, str]]:
    return [pair for pair, n in cells.items() for _ in range(n)]


VERDICTS = _pairs({("pass", "pass"): 9, ("pass", "fail"): 2, ("fail", "fail"): 6, ("fail", "pass"): 1,
                   ("inconclusive", "inconclusive"): 2, ("inconclusive", "pass"): 1})
BUCKETS = _pairs({("prevented", "prevented"): 7, ("broken", "broken"): 4, ("prevented", "broken"): 2,
                  ("no_effect", "no_effect"): 5, ("broken", "no_effect"): 1})


def test_grouped_kappa_over_two_item_kinds_has_the_independent_bootstrap_interval() -> None:
    groups = {"verdict": ([x for x, _ in VERDICTS], [y for _, y in VERDICTS]),
              "bucket": ([x for x, _ in BUCKETS], [y for _, y in BUCKETS])}
    result = grouped_kappa(groups, reps=400, seed=11)
    parts = {"verdict": VERDICTS, "bucket": BUCKETS}
    assert result.value == pytest.approx(_np_grouped(parts), abs=1e-12)
    rng = random.Random(11)
    values = []
    for _ in range(400):
        v = _np_grouped({g: [p[rng.randrange(len(p))] for _ in p] for g, p in parts.items()})
        if v is not None:
            values.append(v)
    assert result.ci is not None
    assert result.ci == pytest.approx(tuple(np.percentile(values, [2.5, 97.5])), abs=1e-12)
    assert result.ci[0] < result.value < result.ci[1]


def test_grouped_kappa_reports_its_parts_and_method() -> None:
    groups = {"verdict": ([x for x, _ in VERDICTS], [y for _, y in VERDICTS]),
              "bucket": ([x for x, _ in BUCKETS], [y for _, y in BUCKETS])}
    result = grouped_kappa(groups, reps=50, seed=3)
    both = VERDICTS + BUCKETS
    assert result.n == len(both)
    assert result.observed == pytest.approx(sum(x == y for x, y in both) / len(both))
    assert result.se is None
    assert result.method == "bootstrap within item kinds (50 resamples, seed 3)"
    assert result.note == "chance agreement computed within each item kind"


def test_grouped_kappa_ignores_an_empty_kind_and_is_undefined_when_every_kind_uses_one_answer() -> None:
    only = grouped_kappa({"verdict": (["pass"] * 3, ["pass"] * 3), "bucket": ([], [])})
    assert only.value is None and only.n == 3
    same = grouped_kappa({"verdict": (["pass"] * 3, ["pass"] * 3), "bucket": (["broken"] * 2, ["broken"] * 2)})
    assert same.value is None and same.ci is None and same.n == 5
    assert same.note == "undefined: chance agreement is 1"
    assert grouped_kappa({}).value is None


def test_kappa_bootstrap_interval_matches_the_independent_bootstrap() -> None:
    labels = sorted({v for pair in VERDICTS for v in pair})
    expected = _np_bootstrap(VERDICTS, lambda s: _np_cohen(s, labels), 300, 5)  # type: ignore[arg-type]
    got = kappa_bootstrap_ci([x for x, _ in VERDICTS], [y for _, y in VERDICTS], reps=300, seed=5)
    assert got == pytest.approx(expected, abs=1e-12)


def test_fleiss_bootstrap_interval_matches_the_independent_bootstrap() -> None:
    table = [[3, 0, 0], [2, 1, 0], [0, 3, 0], [1, 1, 1], [0, 0, 3], [0, 2, 1], [3, 0, 0], [1, 0, 2]]
    result = fleiss_kappa(table, bootstrap=300, seed=9)
    assert result.value == pytest.approx(_np_fleiss(table), abs=1e-12)
    assert result.ci == pytest.approx(_np_bootstrap(table, _np_fleiss, 300, 9), abs=1e-12)  # type: ignore[arg-type]
    assert fleiss_kappa(table).ci is None  # no bootstrap unless asked


def test_alpha_bootstrap_interval_matches_the_independent_bootstrap() -> None:
    data = [["a", "b", "a", "c", "a", "b", None, "c"], ["a", "b", "b", "c", "a", None, "a", "c"],
            ["a", "a", "b", "c", None, "b", "a", "b"]]
    result = krippendorff_alpha_nominal(data, bootstrap=300, seed=4)
    units = [[row[u] for row in data if row[u] is not None] for u in range(8)]
    assert result.value == pytest.approx(_np_alpha(units), abs=1e-12)  # type: ignore[arg-type]
    assert result.ci == pytest.approx(_np_bootstrap(units, _np_alpha, 300, 4), abs=1e-12)  # type: ignore[arg-type]
    assert krippendorff_alpha_nominal(data).ci is None


def test_fleiss_kappa_with_exactly_two_raters_is_scotts_pi() -> None:
    # Two raters, 10 subjects: pooled marginals p(a) = 9/20, p(b) = 11/20; observed agreement 0.7.
    table = [[2, 0]] * 3 + [[0, 2]] * 4 + [[1, 1]] * 3
    result = fleiss_kappa(table)
    pe = (9 / 20) ** 2 + (11 / 20) ** 2
    assert result.raters == 2 and result.subjects == 10
    assert result.value == pytest.approx((0.7 - pe) / (1 - pe), abs=1e-12)


def test_fleiss_kappa_refuses_one_rater_and_unequal_rater_counts() -> None:
    with pytest.raises(ValueError):
        fleiss_kappa([[1, 0], [0, 1]])
    with pytest.raises(ValueError):
        fleiss_kappa([[2, 0], [1, 1], [2, 1]])  # only the last subject differs


def test_fleiss_kappa_of_no_subjects_and_of_one_category_is_undefined() -> None:
    empty = fleiss_kappa([])
    assert (empty.value, empty.subjects, empty.raters, empty.note) == (None, 0, 0, "no subjects")
    same = fleiss_kappa([[3, 0], [3, 0]], bootstrap=50)
    assert same.value is None and same.ci is None and same.observed == pytest.approx(1.0)
    assert same.note == "undefined: every rating fell in one category"


def test_alpha_notes_tell_missing_pairs_from_one_category() -> None:
    assert krippendorff_alpha_nominal([]).note == "no coders"
    assert krippendorff_alpha_nominal([["a", None], [None, "b"]]).note == "no unit has two or more ratings"
    same = krippendorff_alpha_nominal([["a", "a"], ["a", "a"]], bootstrap=50)
    assert same.note == "undefined: every pairable value is the same category"
    assert same.ci is None and same.units == 2 and same.pairable_values == 4


def test_ragged_reliability_rows_are_refused_even_when_only_one_differs() -> None:
    with pytest.raises(ValueError):
        krippendorff_alpha_nominal([["a", "b"], ["a", "b"], ["a"]])


@pytest.fixture()
def any_n_gets_an_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    """The interval's arithmetic on tables small enough to check by hand: below
    MIN_ITEMS_FOR_KAPPA_INTERVAL the result withholds the interval it computes (issue 24), so
    these tests lower the display minimum and test the arithmetic alone."""
    import core.metrics.interrater as interrater

    monkeypatch.setattr(interrater, "MIN_ITEMS_FOR_KAPPA_INTERVAL", 0)


@pytest.mark.usefixtures("any_n_gets_an_interval")
def test_kappa_interval_is_clipped_to_one_above() -> None:
    # 4 items: (a,a) 1, (b,a) 1, (b,b) 2: kappa 0.5, SE 0.375, so 0.5 + 1.96 * 0.375 > 1.
    k = kappa_from_matrix(ConfusionMatrix(("a", "b"), ((1, 0), (1, 2))))
    assert k.value == pytest.approx(0.5) and k.se == pytest.approx(0.375)
    assert k.ci == (pytest.approx(0.5 - Z_95 * 0.375), 1.0)


@pytest.mark.usefixtures("any_n_gets_an_interval")
def test_kappa_interval_is_clipped_to_minus_one_below() -> None:
    k = kappa_from_matrix(ConfusionMatrix(("a", "b"), ((0, 1), (2, 1))))
    assert k.value == pytest.approx(-0.5) and k.se == pytest.approx(0.375)
    assert k.ci == (-1.0, pytest.approx(-0.5 + Z_95 * 0.375))


def test_kappa_of_an_empty_table_says_no_items() -> None:
    k = kappa_from_matrix(ConfusionMatrix(("a",), ((0,),)))
    assert (k.value, k.n, k.ci, k.note) == (None, 0, None, "no items")


def test_confusion_matrix_keeps_the_given_label_order_and_appends_unlisted_labels_sorted() -> None:
    m = confusion_matrix(["z", "b", "a"], ["z", "a", "a"], labels=["z"])
    assert m.labels == ("z", "a", "b")
    assert m.counts == ((1, 0, 0), (0, 1, 0), (0, 1, 0))


def test_confusion_matrix_without_labels_is_sorted_and_refuses_unequal_lengths() -> None:
    assert confusion_matrix(["b", "a"], ["c", "a"]).labels == ("a", "b", "c")
    with pytest.raises(ValueError):
        confusion_matrix(["a"], ["a", "b"])


def test_default_resamples_and_seed_are_2000_and_20260913() -> None:
    # The CLI's and the panel's numbers are reproducible only while the defaults stay put.
    a, b = [x for x, _ in VERDICTS], [y for _, y in VERDICTS]
    assert kappa_bootstrap_ci(a, b) == kappa_bootstrap_ci(a, b, reps=2000, seed=SEED)
    groups = {"verdict": (a, b), "bucket": ([x for x, _ in BUCKETS], [y for _, y in BUCKETS])}
    assert grouped_kappa(groups).ci == grouped_kappa(groups, reps=2000, seed=SEED).ci
    table = [[3, 0], [2, 1], [0, 3], [1, 2], [3, 0]]
    assert fleiss_kappa(table, bootstrap=200).ci == fleiss_kappa(table, bootstrap=200, seed=SEED).ci
    data = [["a", "b", "a", "b", "a"], ["a", "b", "b", "b", "a"]]
    alpha = krippendorff_alpha_nominal(data, bootstrap=200)
    assert alpha.ci == krippendorff_alpha_nominal(data, bootstrap=200, seed=SEED).ci
    # A statistic with many distinct values, so another seed or count would move the percentiles.
    units = [round(0.37 * i**1.5 % 7, 3) for i in range(30)]
    expected = _np_bootstrap(units, lambda s: float(np.mean(s)), 2000, SEED)  # type: ignore[arg-type]
    assert bootstrap_ci(units, lambda s: sum(s) / len(s)) == pytest.approx(expected, abs=1e-12)


class _DefinedAfter:
    """A statistic undefined for its first ``undefined`` resamples, 1.0 after."""

    def __init__(self, undefined: int) -> None:
        self.calls = 0
        self.undefined = undefined

    def __call__(self, _sample: object) -> float | None:
        self.calls += 1
        return None if self.calls <= self.undefined else 1.0


@pytest.mark.parametrize("reps,defined,has_interval", [(4, 2, True), (4, 1, False), (3, 1, True), (5, 2, True)])
def test_a_bootstrap_needs_half_of_its_resamples_defined(reps: int, defined: int, has_interval: bool) -> None:
    ci = bootstrap_ci([1, 2, 3], _DefinedAfter(reps - defined), reps=reps)
    assert (ci is not None) == has_interval
    if has_interval:
        assert ci == (1.0, 1.0)


@pytest.mark.usefixtures("any_n_gets_an_interval")
@pytest.mark.parametrize("reps,seed,has_interval", [(4, 1, True), (4, 11, False), (5, 1, True)])
def test_grouped_kappa_needs_half_of_its_resamples_defined(reps: int, seed: int, has_interval: bool) -> None:
    # Kind g2 always has chance agreement 1; a resample is undefined when g1 drew one item twice.
    parts = {"g1": [("a", "a"), ("b", "b")], "g2": [("c", "c")]}
    rng = random.Random(seed)
    defined = sum(_np_grouped({g: [p[rng.randrange(len(p))] for _ in p] for g, p in parts.items()}) is not None
                  for _ in range(reps))
    assert defined == {(4, 1): 2, (4, 11): 1, (5, 1): 2}[(reps, seed)]  # on the boundary, by construction
    result = grouped_kappa({g: ([x for x, _ in p], [y for _, y in p]) for g, p in parts.items()}, reps=reps, seed=seed)
    assert result.value == pytest.approx(1.0)
    if has_interval:
        assert result.ci is not None
    else:  # no bootstrap interval; perfect agreement still gets its one-sided interval (issue 24)
        assert result.ci is None or (result.interval_note or "").startswith("perfect agreement")


def test_level_zero_gives_the_median_twice() -> None:
    # Three resamples of a constant: the percentile's position falls exactly on a value.
    assert bootstrap_ci([1, 2], lambda _s: 2.5, reps=3, level=0.0) == (2.5, 2.5)


def test_one_subject_one_coder_one_rater_tables() -> None:
    assert fleiss_kappa([[2, 1]]).subjects == 1  # a one-subject table is computed, not an index error
    assert krippendorff_alpha_nominal([["a", "b"]]).units == 0
    assert pairwise_percent_agreement([["a", "b"]]).n == 0
    assert counts_table([["a", "b"]]) == [[1, 0], [0, 1]]


def test_empty_inputs_are_empty_not_errors() -> None:
    nothing = pairwise_percent_agreement([])
    assert (nothing.k, nothing.n, nothing.value) == (0, 0, None)
    assert counts_table([]) == []
    no_coders = krippendorff_alpha_nominal([])
    assert (no_coders.units, no_coders.pairable_values) == (0, 0)


def test_alpha_of_one_unit_with_two_different_values_is_zero() -> None:
    # n = 2 pairable values: D_o = 1 and D_e = 1, so alpha = 0 (defined, not "too few values").
    assert krippendorff_alpha_nominal([["a"], ["b"]]).value == pytest.approx(0.0)


def test_percent_agreement_refuses_unequal_lengths() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        percent_agreement(["a"], ["a", "b"])


# -- the edges of the rule (mutation survivors of kappa_interval and grouped_kappa) ----------
def test_a_one_sided_interval_at_perfect_agreement_can_reach_below_zero() -> None:
    """10/10 agreed with chance agreement 0.8: the Wilson lower bound of 10/10 (0.72) is below
    chance, so the one-sided bound is negative (perfect agreement on a skewed table is weak)."""
    shown, note = kappa_interval(10, 1.0, 0.8, (0.5, 1.0))
    assert shown is not None and shown[0] < 0 and shown[1] == 1.0
    assert note is not None and note.startswith("perfect agreement")


def test_the_one_sided_bound_never_goes_below_minus_one() -> None:
    shown, _note = kappa_interval(10, 1.0, 0.95, (0.5, 1.0))
    assert shown == (-1.0, 1.0)


def test_a_missing_interval_says_why() -> None:
    assert kappa_interval(20, 0.8, 0.5, "the bootstrap had nothing") == (None, "no interval: the bootstrap had nothing")


def test_a_zero_width_interval_is_not_shown_and_names_its_kind() -> None:
    assert kappa_interval(20, 0.8, 0.5, (0.6, 0.6), kind="bootstrap") == (
        None, "no interval: the bootstrap interval has zero width on this table")


def _skewed_groups() -> dict[str, tuple[list[str], list[str]]]:
    """Most resamples of the firing kind hold only ("x", "x"): with the scope kind always
    ("x", "x") chance agreement is then 1 and that resample's kappa is undefined."""
    return {"firing": (["x"] * 6 + ["y", "x"], ["x"] * 6 + ["y", "y"]), "scope": (["x"] * 4, ["x"] * 4)}


def test_grouped_kappa_keeps_its_interval_when_exactly_half_the_resamples_are_defined() -> None:
    # seed 440: 2 of 5 resamples defined, and 5 // 2 = 2 is enough
    result = grouped_kappa(_skewed_groups(), reps=5, seed=440)
    assert result.ci is not None and result.ci[0] < result.ci[1]


def test_grouped_kappa_has_no_interval_when_fewer_than_half_are_defined_and_says_so() -> None:
    # seed 2488: 2 of 6 resamples defined (two different kappas), fewer than 6 // 2 = 3
    result = grouped_kappa(_skewed_groups(), reps=6, seed=2488)
    assert result.ci is None
    assert result.interval_note == ("no interval: only 2 of 6 bootstrap resamples had a defined kappa "
                                    "(fewer than half)")


def test_a_rater_who_always_says_the_same_gives_kappa_zero_without_an_interval() -> None:
    result = cohens_kappa(["x"] * 20, ["x"] * 15 + ["y"] * 5)
    assert result.value == 0.0 and result.ci is None
    assert result.interval_note == "no interval: the large-sample interval has zero width on this table"


def test_a_bootstrap_interval_of_float_noise_around_zero_is_zero_width() -> None:
    """Every defined resample's kappa is 0 up to rounding (1e-16): no [0.00, 0.00] is shown."""
    groups = {"firing": (["x"] * 5, ["x"] * 4 + ["y"]), "scope": (["x"] * 6, ["x"] * 6)}
    result = grouped_kappa(groups, reps=5, seed=5)
    assert result.ci is None
    assert result.interval_note == "no interval: the bootstrap interval has zero width on this table"
