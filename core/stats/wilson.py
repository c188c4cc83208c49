"""Wilson score interval and a rate that always carries its denominator.

Unlike ``cauterule.stats.wilson_ci`` (which returns ``(0, 1)`` for ``n = 0``), an empty
sample here yields ``None``: "not measured" must never print like a measured interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z_95 = 1.959964  # Phi^-1(0.975)


def wilson_interval(k: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """Wilson score interval for ``k`` successes out of ``n``; ``None`` when ``n == 0``."""
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"invalid counts: k={k}, n={n}")
    if n == 0:
        return None
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Rate:
    """``k / n`` with its Wilson interval; ``value`` and ``ci`` are ``None`` when ``n == 0``."""

    k: int
    n: int
    value: float | None
    ci: tuple[float, float] | None

    @classmethod
    def of(cls, k: int, n: int, z: float = Z_95) -> Rate:
        ci = wilson_interval(k, n, z)
        return cls(k=k, n=n, value=(k / n) if n else None, ci=ci)

    def to_dict(self) -> dict[str, object]:
        return {
            "k": self.k,
            "n": self.n,
            "value": None if self.value is None else round(self.value, 4),
            "ci_low": None if self.ci is None else round(self.ci[0], 4),
            "ci_high": None if self.ci is None else round(self.ci[1], 4),
        }

    def label(self) -> str:
        """Human text, e.g. ``0/23 = 0.000 [0.000, 0.143]`` or ``0/0 = n/a``."""
        if self.value is None or self.ci is None:
            return f"{self.k}/{self.n} = n/a"
        return f"{self.k}/{self.n} = {self.value:.3f} [{self.ci[0]:.3f}, {self.ci[1]:.3f}]"
