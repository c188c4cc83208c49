"""How many items a session needs for the interval the user wants.

The expected half-width of the Wilson 95% interval for n judgements at an assumed agreement p
(reference §8): ``z * sqrt(p(1-p)/n + z^2/(4n^2)) / (1 + z^2/n)``. Its inverse (the smallest n
whose expected half-width is at most the target) is found by bisection, since the half-width
falls monotonically with n. The default assumed p is the gate (0.80): that is where the
pass / fail decision is hardest, so the width there is the one that matters. p = 0.5 gives the
widest (most conservative) interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.stats.wilson import Z_95

DEFAULT_ASSUMED_P = 0.8
DEFAULT_HALF_WIDTH = 0.10


def expected_half_width(n: int, p: float = DEFAULT_ASSUMED_P, z: float = Z_95) -> float | None:
    """Wilson half-width for n judgements if the observed agreement were p (None for n = 0)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"assumed agreement must be in [0, 1], got {p}")
    if n <= 0:
        return None
    z2 = z * z
    return z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / (1.0 + z2 / n)


def n_for_half_width(target: float, p: float = DEFAULT_ASSUMED_P, z: float = Z_95, max_n: int = 1_000_000) -> int:
    """Smallest n whose expected Wilson half-width at p is <= ``target``."""
    if not 0.0 < target < 0.5:
        raise ValueError(f"target half-width must be in (0, 0.5), got {target}")
    low, high = 1, max_n
    width = expected_half_width(high, p, z)
    assert width is not None
    if width > target:
        raise ValueError(f"no n up to {max_n} reaches a half-width of {target}")
    while low < high:
        mid = (low + high) // 2
        w = expected_half_width(mid, p, z)
        assert w is not None
        if w <= target:
            high = mid
        else:
            low = mid + 1
    return low


@dataclass(frozen=True)
class SizePlan:
    """What the session-creation dialog shows: the n needed, the n chosen, the width it gives."""

    assumed_p: float
    target_half_width: float | None
    needed: int | None  # n for the target (None when the size was typed in)
    population: int  # items available in the run
    size: int  # n chosen (capped by the population)
    expected_half_width: float | None  # at the chosen size
    capped: bool  # the population is smaller than what was asked for


def plan_size(
    population: int, target_half_width: float | None = DEFAULT_HALF_WIDTH, size: int | None = None,
    assumed_p: float = DEFAULT_ASSUMED_P,
) -> SizePlan:
    """Size from a typed ``size`` if given, else from ``target_half_width``."""
    if size is None and target_half_width is None:
        raise ValueError("give a size or a target half-width")
    needed = None
    if size is None:
        assert target_half_width is not None
        needed = n_for_half_width(target_half_width, assumed_p)
        wanted = needed
    else:
        if size < 1:
            raise ValueError("a session needs at least one item")
        wanted = size
    chosen = min(wanted, population)
    return SizePlan(
        assumed_p=assumed_p, target_half_width=target_half_width if size is None else None, needed=needed,
        population=population, size=chosen, expected_half_width=expected_half_width(chosen, assumed_p),
        capped=chosen < wanted,
    )
