"""Boundaries of the verdict ladder and of the inconclusive attribution (0.3.1's, reference §6.1, §6.3).

Each case sits on one side of one boundary, so moving a boundary by one (``<`` to ``<=``)
changes an answer here.
"""

from __future__ import annotations

import pytest

from core.replay.verdict import attribute, decide, rate, scorer_verdict


@pytest.mark.parametrize("content_tokens,cause", [(0, "matcher_gap"), (1, "broad_trigger"), (2, "broad_trigger"),
                                                  (3, "matcher_gap")])
def test_broad_trigger_is_one_or_two_content_tokens(content_tokens: int, cause: str) -> None:
    assert attribute("inconclusive", 9, content_tokens, 0, 0, 0, min_sample=3) == cause


def test_a_pool_of_exactly_min_sample_is_not_a_corpus_mismatch() -> None:
    assert attribute("inconclusive", 3, 5, 0, 0, 0, min_sample=3) == "matcher_gap"
    assert attribute("inconclusive", 2, 5, 0, 0, 0, min_sample=3) == "corpus_mismatch"


@pytest.mark.parametrize("prevented,broken,near_misses,cause", [
    (0, 1, 0, "ambiguous_evidence"),  # signal, no near miss: not a matcher gap
    (1, 0, 0, "ambiguous_evidence"),
    (0, 0, 1, "ambiguous_evidence"),  # near misses come before "no signal"
])
def test_attribution_with_signal_or_near_misses_is_ambiguous_evidence(
        prevented: int, broken: int, near_misses: int, cause: str) -> None:
    assert attribute("inconclusive", 9, 5, prevented, broken, near_misses, min_sample=3) == cause


def test_only_inconclusive_verdicts_are_attributed() -> None:
    assert attribute("fail", 1, 1, 0, 0, 0, min_sample=3) is None


@pytest.mark.parametrize("prevented,broken,near_misses,expected", [
    (2, 2, 0, ("pass", "pass")),  # a tie is not blocked by broken
    (2, 3, 0, ("fail", "blocked_by_broken")),
    (1, 0, 2, ("pass", "pass")),  # at the near-miss limit
    (1, 0, 3, ("inconclusive", "blocked_by_near_miss")),
    (1, 0, 0, ("pass", "pass")),
    (0, 1, 0, ("fail", "blocked_by_broken")),
])
def test_scorer_verdict_boundaries(prevented: int, broken: int, near_misses: int, expected: tuple[str, str]) -> None:
    assert scorer_verdict(prevented, broken, near_misses, 2) == expected


def test_a_pool_of_exactly_min_sample_keeps_the_computed_verdict() -> None:
    d = decide(2, 3, 0, 3, min_sample=3, near_miss_limit=2)
    assert (d.verdict, d.reason, d.computed, d.computed_reason) == ("fail", "blocked_by_broken", "fail",
                                                                    "blocked_by_broken")


def test_min_sample_keeps_the_computed_verdict_and_reason_beside_it() -> None:
    d = decide(2, 3, 0, 2, min_sample=3, near_miss_limit=2)
    assert (d.verdict, d.computed, d.computed_reason) == ("inconclusive", "fail", "blocked_by_broken")


def test_rate_divides() -> None:
    assert rate(3, 4, null_when_empty=False) == 0.75
