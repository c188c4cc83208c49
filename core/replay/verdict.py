"""Verdict, min-sample and inconclusive attribution from bucket counts.

The decision ladder is 0.3.1's (#724, reference doc §6.1, §5.5, §6.3); it is a pure
function of counts so both profiles share it and only the counts (pools) differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.replay.types import Verdict


@dataclass(frozen=True)
class VerdictResult:
    verdict: Verdict
    reason: str
    computed: Verdict
    computed_reason: str


def scorer_verdict(prevented: int, broken: int, near_misses: int, near_miss_limit: int) -> tuple[Verdict, str]:
    """(verdict, reason): no_signal / blocked_by_broken / blocked_by_near_miss / pass."""
    if prevented == 0 and broken == 0:
        return "inconclusive", "no_signal"
    if broken > prevented:
        return "fail", "blocked_by_broken"
    if near_misses > near_miss_limit:
        return "inconclusive", "blocked_by_near_miss"
    return "pass", "pass"


def decide(
    prevented: int,
    broken: int,
    near_misses: int,
    pool_size: int,
    *,
    min_sample: int,
    near_miss_limit: int,
) -> VerdictResult:
    computed, reason = scorer_verdict(prevented, broken, near_misses, near_miss_limit)
    if pool_size < min_sample:
        return VerdictResult(
            verdict="inconclusive",
            reason=f"min_sample: {pool_size} < {min_sample}; computed={computed}",
            computed=computed,
            computed_reason=reason,
        )
    return VerdictResult(verdict=computed, reason=reason, computed=computed, computed_reason=reason)


def attribute(
    verdict: Verdict,
    pool_size: int,
    content_tokens: int,
    prevented: int,
    broken: int,
    near_misses: int,
    *,
    min_sample: int,
) -> str | None:
    """Root cause of an inconclusive verdict (0.3.1 order); None otherwise."""
    if verdict != "inconclusive":
        return None
    if pool_size < min_sample:
        return "corpus_mismatch"
    if 0 < content_tokens <= 2:
        return "broad_trigger"
    if near_misses:
        return "ambiguous_evidence"
    if prevented == 0 and broken == 0:
        return "matcher_gap"
    return "ambiguous_evidence"


def rate(numerator: int, denominator: int, null_when_empty: bool) -> float | None:
    """``numerator / denominator``; 0.0 (0.3.1) or None (Workbench) when empty."""
    if denominator == 0:
        return None if null_when_empty else 0.0
    return numerator / denominator
