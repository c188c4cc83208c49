"""Wilson interval: hand-computed values and the n = 0 rule."""

from __future__ import annotations

import math

import pytest

from core.stats.wilson import Rate, wilson_interval


def test_zero_of_23_upper_bound() -> None:
    ci = wilson_interval(0, 23)
    assert ci is not None
    # z^2/n / (1 + z^2/n) with z^2 = 3.84146: 0.167020 / 1.167020 = 0.14312
    assert ci[0] == 0.0
    assert ci[1] == pytest.approx(0.1431, abs=1e-4)


def test_all_of_23_lower_bound() -> None:
    ci = wilson_interval(23, 23)
    assert ci is not None
    assert ci[0] == pytest.approx(0.857, abs=1e-3)
    assert ci[1] == 1.0


def test_49_of_60() -> None:
    ci = wilson_interval(49, 60)
    assert ci is not None
    assert ci[0] == pytest.approx(0.701, abs=1e-3)
    assert ci[1] == pytest.approx(0.894, abs=1e-3)


def test_symmetry() -> None:
    lo, hi = wilson_interval(7, 20)  # type: ignore[misc]
    lo2, hi2 = wilson_interval(13, 20)  # type: ignore[misc]
    assert lo == pytest.approx(1 - hi2) and hi == pytest.approx(1 - lo2)


def test_n_zero_is_none_not_zero_one() -> None:
    assert wilson_interval(0, 0) is None
    rate = Rate.of(0, 0)
    assert rate.value is None and rate.ci is None
    assert rate.to_dict()["value"] is None
    assert rate.label() == "0/0 = n/a"


def test_rate_label_keeps_denominator() -> None:
    assert Rate.of(0, 23).label() == "0/23 = 0.000 [0.000, 0.143]"


@pytest.mark.parametrize("k,n", [(-1, 3), (4, 3), (0, -1)])
def test_invalid_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(k, n)


def test_matches_reference_stats() -> None:
    stats = pytest.importorskip("cauterule.stats")
    for n in range(1, 40):
        for k in range(0, n + 1):
            ours = wilson_interval(k, n)
            assert ours is not None
            ref = stats.wilson_ci(k, n)
            assert math.isclose(ours[0], ref[0], abs_tol=1e-6)
            assert math.isclose(ours[1], ref[1], abs_tol=1e-6)
