"""Inter-rater statistics against hand-worked and textbook examples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.metrics.interrater import (
    MIN_ITEMS_FOR_KAPPA_INTERVAL,
    ConfusionMatrix,
    cohens_kappa,
    confusion_matrix,
    grouped_kappa,
    kappa_bootstrap_ci,
    kappa_from_matrix,
    percent_agreement,
)
from core.metrics.multirater import counts_table, fleiss_kappa, krippendorff_alpha_nominal, pairwise_percent_agreement
from core.stats.wilson import wilson_interval


def _pairs(cells: dict[tuple[str, str], int]) -> tuple[list[str], list[str]]:
    a: list[str] = []
    b: list[str] = []
    for (x, y), n in cells.items():
        a += [x] * n
        b += [y] * n
    return a, b


def test_cohen_kappa_wikipedia_example() -> None:
    # 50 proposals: both yes 20, A yes / B no 5, A no / B yes 10, both no 15.
    a, b = _pairs({("y", "y"): 20, ("y", "n"): 5, ("n", "y"): 10, ("n", "n"): 15})
    k = cohens_kappa(a, b)
    assert k.observed == pytest.approx(0.70)
    assert k.expected == pytest.approx(0.50)
    assert k.value == pytest.approx(0.40)
    assert k.ci is not None and k.ci[0] < 0.40 < k.ci[1]


def test_high_raw_agreement_with_imbalanced_marginals_has_kappa_near_zero() -> None:
    # 90 % raw agreement, but both raters say "pass" 95 % of the time: chance agreement 0.905.
    a, b = _pairs({("pass", "pass"): 90, ("pass", "fail"): 5, ("fail", "pass"): 5, ("fail", "fail"): 0})
    assert percent_agreement(a, b).value == pytest.approx(0.90)
    k = cohens_kappa(a, b)
    assert k.expected == pytest.approx(0.905)
    assert k.value == pytest.approx((0.90 - 0.905) / (1 - 0.905))  # -0.0526
    assert abs(k.value) < 0.06
    assert k.ci is not None and k.ci[1] < 0.1  # nowhere near "good agreement"
    # One joint "fail" more: still 90 % raw agreement, kappa 0.115 and an interval spanning 0.
    a, b = _pairs({("pass", "pass"): 89, ("pass", "fail"): 6, ("fail", "pass"): 4, ("fail", "fail"): 1})
    k = cohens_kappa(a, b)
    assert percent_agreement(a, b).value == pytest.approx(0.90)
    assert k.value == pytest.approx((0.90 - 0.887) / (1 - 0.887))
    assert k.ci is not None and k.ci[0] < 0 < k.ci[1]


def test_perfect_agreement_is_kappa_one_with_a_one_sided_interval_not_a_zero_width_one() -> None:
    a = ["pass", "fail", "inconclusive", "pass", "fail"] * 4
    k = cohens_kappa(a, list(a))
    assert k.value == pytest.approx(1.0)
    assert k.se == pytest.approx(0.0)  # the large-sample interval would be [1.00, 1.00]
    assert k.ci is not None and k.ci[0] < 1.0 and k.ci[1] == 1.0
    expected = (wilson_interval(20, 20)[0] - k.expected) / (1 - k.expected)  # type: ignore[index]
    assert k.ci[0] == pytest.approx(expected)
    assert k.interval_note is not None and k.interval_note.startswith("perfect agreement")
    assert percent_agreement(a, a).ci is not None and percent_agreement(a, a).ci[1] == 1.0


def test_kappa_on_three_items_has_no_interval_and_says_too_few() -> None:
    k = cohens_kappa(["pass", "pass", "fail"], ["pass", "fail", "pass"])
    assert k.value is not None and k.ci is None
    assert k.too_few_for_interval and k.to_dict()["interval_note"].startswith("too few items for an interval")


def test_perfect_agreement_on_five_items_is_not_shown_as_one_to_one() -> None:
    a = ["pass", "fail", "pass", "fail", "pass"]
    k = cohens_kappa(a, list(a))
    assert k.value == pytest.approx(1.0) and k.ci is None and k.too_few_for_interval


def test_grouped_kappa_on_few_items_has_no_interval() -> None:
    k = grouped_kappa({"firing": (["fires", "silent", "fires"], ["fires", "silent", "silent"]),
                       "verdict": (["pass", "fail"], ["pass", "fail"])})
    assert k.value is not None and k.ci is None and k.too_few_for_interval


def test_kappa_at_the_minimum_has_its_large_sample_interval() -> None:
    a = ["pass", "fail"] * (MIN_ITEMS_FOR_KAPPA_INTERVAL // 2)
    b = list(a)
    b[0] = "fail"
    k = cohens_kappa(a, b)
    assert k.ci is not None and k.ci[0] < k.value < k.ci[1] and k.interval_note is None  # type: ignore[operator]


def test_one_shared_category_makes_kappa_undefined_not_perfect() -> None:
    k = cohens_kappa(["pass"] * 10, ["pass"] * 10)
    assert k.value is None and k.note and "undefined" in k.note
    assert cohens_kappa([], []).value is None


def test_asymptotic_se_equals_the_delta_method_on_fleiss_textbook_table() -> None:
    # Fleiss, Statistical Methods for Rates and Proportions, ch. 18: diagnoses of 100 subjects.
    counts = ((75, 1, 4), (5, 4, 1), (0, 0, 10))
    k = kappa_from_matrix(ConfusionMatrix(("psych", "neuro", "organic"), counts))
    assert k.observed == pytest.approx(0.89) and k.expected == pytest.approx(0.66)
    assert k.value == pytest.approx(0.23 / 0.34)  # 0.676

    # Independent check: the multinomial delta method, with a numerical gradient.
    table = np.array(counts, dtype=float)
    n = table.sum()
    p = (table / n).ravel()

    def kappa(v: np.ndarray) -> float:
        m = v.reshape(3, 3)
        po, pe = np.trace(m), float((m.sum(1) * m.sum(0)).sum())
        return float((po - pe) / (1 - pe))

    eps = 1e-7
    grad = np.array([(kappa(p + e) - kappa(p - e)) / (2 * eps) for e in np.eye(9) * eps])
    covariance = (np.diag(p) - np.outer(p, p)) / n
    assert k.se == pytest.approx(math.sqrt(grad @ covariance @ grad), rel=1e-6)


def test_bootstrap_interval_is_seeded_and_brackets_kappa() -> None:
    a, b = _pairs({("y", "y"): 20, ("y", "n"): 5, ("n", "y"): 10, ("n", "n"): 15})
    first = kappa_bootstrap_ci(a, b, reps=500, seed=7)
    assert first == kappa_bootstrap_ci(a, b, reps=500, seed=7)
    assert first is not None and first[0] < 0.40 < first[1]


def test_fleiss_kappa_wikipedia_example() -> None:
    # 10 subjects, 14 raters, 5 categories: P-bar 0.378, P-bar_e 0.213, kappa 0.210.
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    result = fleiss_kappa(table)
    assert result.observed == pytest.approx(0.378, abs=5e-4)
    assert result.expected == pytest.approx(0.213, abs=5e-4)
    assert result.value == pytest.approx(0.210, abs=5e-4)
    with pytest.raises(ValueError):
        fleiss_kappa([[1, 1], [2, 1]])


def test_krippendorff_alpha_nominal_with_missing_values_textbook() -> None:
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", 4 observers x 12 units.
    data = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    ]
    result = krippendorff_alpha_nominal(data)
    assert result.value == pytest.approx(0.743, abs=5e-4)
    assert result.units == 11  # unit 12 has a single value: not pairable
    assert result.pairable_values == 40


def test_krippendorff_alpha_wikipedia_example() -> None:
    data = [
        [None, None, None, None, None, 3, 4, 1, 2, 1, 1, 3, 3, None, 3],
        [1, None, 2, 1, 3, 3, 4, 3, None, None, None, None, None, None, None],
        [None, None, 2, 1, 3, 4, 4, None, 2, 1, 1, 3, 3, None, 4],
    ]
    assert krippendorff_alpha_nominal(data).value == pytest.approx(0.691, abs=5e-4)


def test_alpha_perfect_and_degenerate() -> None:
    assert krippendorff_alpha_nominal([["a", "b", None], ["a", "b", "c"]]).value == pytest.approx(1.0)
    assert krippendorff_alpha_nominal([["a", "a"], ["a", "a"]]).value is None
    assert krippendorff_alpha_nominal([["a", None], [None, "b"]]).value is None


def test_pairwise_agreement_and_counts_table_for_three_raters() -> None:
    # Rows are raters, columns units. Unit 1: p p p (3 of 3 pairs agree); unit 2: f f p (1 of 3);
    # unit 3: p - p (1 of 1).
    data = [["p", "f", "p"], ["p", "f", None], ["p", "p", "p"]]
    rate = pairwise_percent_agreement(data)
    assert (rate.k, rate.n) == (5, 7)
    assert counts_table(data) == [[0, 3], [2, 1]]  # categories (f, p); unit 3 dropped (missing rating)


def test_grouped_kappa_reduces_to_cohen_for_one_group() -> None:
    a, b = _pairs({("y", "y"): 20, ("y", "n"): 5, ("n", "y"): 10, ("n", "n"): 15})
    assert grouped_kappa({"only": (a, b)}).value == pytest.approx(cohens_kappa(a, b).value)


def test_confusion_matrix_rows_are_rater_a() -> None:
    m = confusion_matrix(["pass", "fail", "pass"], ["pass", "pass", "fail"], ["pass", "fail", "inconclusive"])
    assert m.labels == ("pass", "fail", "inconclusive")
    assert m.counts == ((1, 1, 0), (1, 0, 0), (0, 0, 0))
    assert m.n == 3 and m.agreements == 1
