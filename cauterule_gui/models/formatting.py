"""Display text for replay numbers and labels shared by the workspace models and panels.

An unmeasured rate is shown as "—", never as 0; intervals are Wilson 95 % intervals.
"""

from __future__ import annotations

VERDICT_TEXT = {"pass": "✓ pass", "fail": "✗ fail", "inconclusive": "? inconclusive"}
STATUS_TEXT = {"approve": "✓ approved", "reject": "✗ rejected", "defer": "… deferred", "unreviewed": "· unreviewed"}
MARK_TEXT = {"right": "replay right", "wrong": "replay wrong", "cant_tell": "can't tell"}
BUCKET_TITLES = {"prevented": "Prevented", "broken": "Broken", "near_miss": "Near-miss", "missed": "Missed"}
BUCKET_SYMBOLS = {"prevented": "✓", "broken": "⚠", "near_miss": "≈", "missed": "○", "no_effect": "·"}
BUCKET_WORDS = {"prevented": "prevented", "broken": "broken", "near_miss": "near-miss", "missed": "missed",
                "no_effect": "no effect"}


def number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def signed(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:+.{digits}f}"


def rate(value: float | None, ci: tuple[float, float] | None) -> str:
    if value is None:
        return "—"
    if ci is None:
        return f"{value:.2f}"
    return f"{value:.2f} [{ci[0]:.2f}–{ci[1]:.2f}]"


def pool_text(pool: dict[str, object] | None) -> str:
    if not pool:
        return ""
    return f"pool: {pool.get('kind')}, {pool.get('size')} trajectories ({pool.get('failures')} failures)"
