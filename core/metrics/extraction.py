"""Extraction accuracy: an extracted rule against the record's ``expected_rule`` (§7).

Four parts, reported side by side (a composite that hides its parts cannot be
diagnosed): ``token_f1`` (literal trigger overlap), ``semantic_f1`` (the replay
matcher's score, both ways), ``directive_f1`` (literal overlap of the "do" half),
and ``agreement`` = semantic_f1 >= 0.6 on the TRIGGER ONLY (J6: a correct reworded
directive must not lower it). Aggregates are ``None`` when nothing was measurable
(J10: null is not 0.0); agreement rates carry their denominator and a Wilson interval.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.matching.profile import REFERENCE_0_3_1, MatcherProfile
from core.matching.score import RuleText, explain
from core.matching.text import embedding_key, normalize
from core.matching.views import TrajectoryViews
from core.metrics.registry import AGREEMENT_THRESHOLD as AGREEMENT_THRESHOLD  # declared there, re-exported
from core.metrics.registry import EXTRACTION_METRICS, MEAN_METRICS, RATE_METRICS
from core.stats.wilson import Rate

_SPLIT = re.compile(r"[^a-z0-9]+")
# The metric's own tokenizer (not the matcher's): 19 stop words, no stemming.
_STOP = frozenset(
    "a an the and or to of in on for with it is be then when before after if".split()
)

EmbedFn = Callable[[list[str]], np.ndarray]


def tokens(text: str) -> frozenset[str]:
    return frozenset(t for t in _SPLIT.split(text.lower()) if len(t) > 1 and t not in _STOP)


def set_f1(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    overlap = len(a & b)
    if overlap == 0:
        return 0.0
    p, r = overlap / len(a), overlap / len(b)
    return 2 * p * r / (p + r)


def parse_expected_rule(text: str) -> tuple[str, str]:
    """``"when <trigger>, <directive>"`` -> (trigger, directive); no comma -> (text, "")."""
    body = text.strip()
    if body.lower().startswith("when "):
        body = body[5:]
    if "," in body:
        trigger, directive = body.split(",", 1)
        return trigger.strip(), directive.strip()
    return body, ""


def token_f1(extracted_trigger: str, expected_trigger: str) -> float:
    return set_f1(tokens(extracted_trigger), tokens(expected_trigger))


def directive_f1(extracted_directive: str, expected_directive: str) -> float:
    if not expected_directive:
        return 0.0
    return set_f1(tokens(extracted_directive), tokens(expected_directive))


def _as_task(text: str) -> TrajectoryViews:
    return TrajectoryViews.from_record(
        {"trajectory_id": "x", "timestamp": "t", "task": text, "steps": [], "success": False}
    )


def _one_way(trigger: str, text: str, profile: MatcherProfile, embed: EmbedFn | None) -> float:
    views = _as_task(text)
    cosine = None
    if profile.semantic and embed is not None:
        # An empty trajectory has no signature, so the trigger is embedded against H.
        vec = np.asarray(
            embed([embedding_key(normalize(trigger)), embedding_key(views.haystack)]),
            dtype=np.float64,
        )
        cosine = max(0.0, min(1.0, float(vec[0] @ vec[1])))
    return explain(RuleText(trigger), views, profile, cosine).score


def semantic_f1(
    a: str, b: str, profile: MatcherProfile = REFERENCE_0_3_1, embed: EmbedFn | None = None
) -> float:
    """max(score(a as trigger vs b as task), score(b vs a)); prefilter NOT applied (0.3.1)."""
    if not a.strip() or not b.strip():
        return 0.0
    return max(_one_way(a, b, profile, embed), _one_way(b, a, profile, embed))


@dataclass(frozen=True)
class ExtractionScore:
    token_f1: float
    semantic_f1: float
    directive_f1: float
    token_agree: bool
    agreement: bool


def score_rule(
    trigger: str,
    directive: str,
    expected_rule: str,
    *,
    threshold: float = AGREEMENT_THRESHOLD,
    profile: MatcherProfile = REFERENCE_0_3_1,
    embed: EmbedFn | None = None,
) -> ExtractionScore:
    exp_trigger, exp_directive = parse_expected_rule(expected_rule)
    tf1 = token_f1(trigger, exp_trigger)
    sf1 = semantic_f1(trigger, exp_trigger, profile, embed)
    return ExtractionScore(
        token_f1=tf1,
        semantic_f1=sf1,
        directive_f1=directive_f1(directive, exp_directive),
        token_agree=tf1 >= threshold,
        agreement=sf1 >= threshold,  # trigger only (J6)
    )


@dataclass(frozen=True)
class ExtractionPair:
    """One extracted rule and the ground truth it is judged against."""

    trigger: str
    directive: str
    expected_rule: str | None


@dataclass(frozen=True)
class ExtractionAccuracy:
    """Per-corpus aggregate; every value is None when ``n == 0`` (nothing measurable)."""

    n: int
    token_f1: float | None
    semantic_f1: float | None
    directive_f1: float | None
    token_agree: Rate
    agreement: Rate
    excluded: int = 0  # pairs without an expected_rule (never counted as 0)

    def to_dict(self) -> dict[str, object]:
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 4)

        out: dict[str, object] = {"n": self.n, "excluded": self.excluded}
        for m in EXTRACTION_METRICS:  # the registry's order and keys
            value = getattr(self, m.key)
            out[m.key] = r(value) if m.aggregate == "mean" else value.to_dict()
        return out


def measure(
    pairs: Iterable[ExtractionPair],
    *,
    threshold: float = AGREEMENT_THRESHOLD,
    profile: MatcherProfile = REFERENCE_0_3_1,
    embed: EmbedFn | None = None,
) -> ExtractionAccuracy:
    scores: list[ExtractionScore] = []
    excluded = 0
    for pair in pairs:
        if not pair.expected_rule or not pair.expected_rule.strip():
            excluded += 1
            continue
        scores.append(
            score_rule(
                pair.trigger, pair.directive, pair.expected_rule,
                threshold=threshold, profile=profile, embed=embed,
            )
        )
    return aggregate(scores, excluded)


def aggregate(scores: Sequence[ExtractionScore], excluded: int = 0) -> ExtractionAccuracy:
    n = len(scores)

    def mean(values: Iterable[float]) -> float | None:
        return (sum(values) / n) if n else None

    # Each metric aggregates the way the registry declares: a mean of per-pair values, or a rate.
    parts: dict[str, Any] = {m.key: mean(float(m.score(s)) for s in scores) for m in MEAN_METRICS}
    parts.update({m.key: Rate.of(sum(1 for s in scores if m.score(s)), n) for m in RATE_METRICS})
    return ExtractionAccuracy(n=n, excluded=excluded, **parts)
