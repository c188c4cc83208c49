"""Session size from the interval wanted: expected Wilson half-width for n, and n for a half-width."""

from __future__ import annotations

import pytest

from core.agreement.sizing import expected_half_width, n_for_half_width, plan_size
from core.stats.wilson import wilson_interval


def test_expected_half_width_is_the_wilson_half_width_at_p() -> None:
    for k, n in ((24, 30), (40, 50), (8, 10)):
        low, high = wilson_interval(k, n)  # type: ignore[misc]
        assert expected_half_width(n, k / n) == pytest.approx((high - low) / 2)
    assert expected_half_width(0) is None


def test_n_for_half_width_is_the_smallest_n_that_reaches_it() -> None:
    for target, p in ((0.10, 0.8), (0.05, 0.8), (0.10, 0.5), (0.15, 0.9)):
        n = n_for_half_width(target, p)
        assert expected_half_width(n, p) <= target < expected_half_width(n - 1, p)  # type: ignore[operator]
    assert n_for_half_width(0.10, 0.8) == 60
    # p = 0.5 is the widest: it always needs the most items.
    assert n_for_half_width(0.10, 0.5) > n_for_half_width(0.10, 0.8)


def test_plan_size_shows_both_numbers_and_caps_at_the_population() -> None:
    plan = plan_size(population=200, target_half_width=0.10)
    assert (plan.needed, plan.size, plan.capped) == (60, 60, False)
    assert plan.expected_half_width == pytest.approx(expected_half_width(60))
    small = plan_size(population=25, target_half_width=0.10)
    assert (small.needed, small.size, small.capped) == (60, 25, True)
    typed = plan_size(population=100, size=30)
    assert typed.needed is None and typed.size == 30
    assert typed.expected_half_width == pytest.approx(0.139, abs=1e-3)
    with pytest.raises(ValueError):
        n_for_half_width(0.0)
