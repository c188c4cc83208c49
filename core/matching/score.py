"""Scalar matcher: one rule against one trajectory, with every part of the score explained.

``explain(...).score`` equals ``cauterule.replay.matcher.match_score`` (0.3.1 profile) and
``decide`` equals ``rule_matches_with_score``. The batch path (``batch.py``) computes the
same numbers as arrays; the two are tested equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from core.matching.profile import REFERENCE_0_3_1, AliasPhraseMode, MatcherProfile
from core.matching.rule import PreparedRule, RuleText, prepare_rule
from core.matching.tables import (
    DEGENERATE_TRIGGER,
    DOMAIN_GROUPS,
    GENERIC_WORDS,
    KNOWN_DOMAINS,
    STOP_WORDS,
)
from core.matching.text import bigrams as make_bigrams
from core.matching.text import content_tokens, normalize, ordered_content_tokens, stem, words
from core.matching.views import Span, TrajectoryViews

__all__ = [
    "MatchDecision",
    "RuleText",
    "ScoreParts",
    "Span",
    "context_item_matches",
    "context_status",
    "decide",
    "domain_conflict",
    "explain",
    "prefilter_reason",
    "trajectory_domain_group",
    "trigger_domain_group",
    "view_scores",
]

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class ScoreParts:
    """Why a pair scored what it did. See docs/matcher.md."""

    score: float  # final, rounded: equals the reference's match_score
    exact: bool  # normalised trigger is a substring of H or S
    signature_hit: bool  # structured when.signature hit (#725)
    token_f1: float  # max over H and S of the alias-weighted token F1
    bigram: float  # max over H and S of the bigram recall
    cosine: float | None  # reduced cosine; None when semantic is off/unavailable
    blend: float  # raw blend before floors (unrounded)
    view: str  # exact | exact_signature | signature_hit | haystack | signature | none
    floor: str | None  # alias_phrase | alias_token | distinctive_phrase | semantic | signature
    alias_keys: tuple[str, ...]
    spans: tuple[Span, ...]


@dataclass(frozen=True)
class MatchDecision:
    matched: bool
    score: float  # as rule_matches_with_score returns it (0.0 when the prefilter blocks)
    parts: ScoreParts
    blocked_by: str | None  # prefilter:<reason> | below_threshold | domain_guard | context


# --- prefilter, domains, context -------------------------------------------------------


def prefilter_reason(trigger: str, context: tuple[str, ...] = ()) -> str | None:
    """``empty`` | ``degenerate`` | ``too_short`` | ``generic`` | None (§4.3, in order)."""
    if not trigger or not trigger.strip():
        return "empty"
    if DEGENERATE_TRIGGER.match(trigger.strip().lower()):
        return "degenerate"
    significant = {w for w in normalize(trigger).split() if len(w) > 1}
    if not significant and not context:
        return "too_short"
    if len(significant) == 1 and not context and significant <= GENERIC_WORDS:
        return "generic"
    return None


def trigger_domain_group(trigger: str) -> str | None:
    """Group of the first known tool domain found as a whole token of the trigger."""
    tokens = set(_NON_ALNUM.split(trigger.lower()))
    for domain in KNOWN_DOMAINS:
        if domain in tokens:
            return DOMAIN_GROUPS.get(domain)
    return None


def trajectory_domain_group(views: TrajectoryViews) -> str | None:
    """Group of the first ``/`` segment of ``failure_class``, or None."""
    if not views.failure_class:
        return None
    segment = views.failure_class.split("/")[0]
    return DOMAIN_GROUPS.get(segment.lower()) if segment else None


def domain_conflict(trigger: str, views: TrajectoryViews) -> bool:
    """Both groups known and different (#487/#694)."""
    left = trigger_domain_group(trigger)
    right = trajectory_domain_group(views)
    return left is not None and right is not None and left != right


def context_item_matches(item: str, views: TrajectoryViews) -> bool:
    """Normalised containment in H, or equality with the record's ``domain`` (#677)."""
    norm = normalize(item)
    if not norm:
        return False
    if norm in views.haystack:
        return True
    return views.domain is not None and norm == normalize(views.domain)


def context_status(context: tuple[str, ...], views: TrajectoryViews) -> tuple[int, int]:
    """``(matched items, total items)``."""
    return sum(1 for item in context if context_item_matches(item, views)), len(context)


# --- score ------------------------------------------------------------------------------


def view_scores(
    prep: PreparedRule, view_tokens: frozenset[str], view_bigrams: frozenset[tuple[str, str]],
    profile: MatcherProfile,
) -> tuple[float, float]:
    """``(alias-weighted token F1, bigram recall)`` of the trigger against one view."""
    hit = len(prep.tokens & view_tokens) + profile.alias_weight * len(prep.alias_tokens & view_tokens)
    wanted = len(prep.tokens) + profile.alias_weight * len(prep.alias_tokens)
    # The view's size is capped at cap x the trigger's, so a long view is not penalised.
    size = min(len(view_tokens), max(profile.view_denominator_cap * int(wanted), 1))
    f1 = 0.0
    if wanted != 0:
        precision = hit / max(size, 1)
        recall = hit / wanted
        if precision + recall != 0:
            f1 = 2 * precision * recall / (precision + recall)
    bigram = 0.0
    if prep.bigrams:
        bigram = len(prep.bigrams & view_bigrams) / len(prep.bigrams)
    return f1, bigram


def signature_hits(prep: PreparedRule, views: TrajectoryViews) -> bool:
    """#725: the rule's normalised signature is in R, or its tokens are a subset of R's."""
    ref = views.reference_signature
    if prep.signature_norm is None or not ref:
        return False
    return prep.signature_norm in ref or prep.signature_tokens <= content_tokens(ref)


def _in_views(phrase: str, views: TrajectoryViews) -> bool:
    return phrase in views.haystack or (bool(views.signature) and phrase in views.signature)


def explain(
    rule: RuleText,
    views: TrajectoryViews,
    profile: MatcherProfile = REFERENCE_0_3_1,
    cosine: float | None = None,
) -> ScoreParts:
    """Score one pair and say why. ``cosine`` is the reduced cosine (max over S and S⁻)."""
    prep = prepare_rule(rule)
    cos = cosine if (profile.semantic and cosine is not None) else None
    if prep.blank:
        return ScoreParts(0.0, False, False, 0.0, 0.0, cos, 0.0, "none", None, prep.alias_keys, ())

    hay, sig = views.haystack, views.signature
    norm = prep.norm_trigger
    exact_h = norm in hay
    exact_s = bool(sig) and norm in sig
    sig_hit = signature_hits(prep, views)

    h_tokens, h_bigrams = _view_tokens(hay)
    s_tokens, s_bigrams = _view_tokens(sig)
    f1_h, bg_h = view_scores(prep, h_tokens, h_bigrams, profile)
    f1_s, bg_s = view_scores(prep, s_tokens, s_bigrams, profile) if sig else (0.0, 0.0)
    token_f1, bigram = max(f1_h, f1_s), max(bg_h, bg_s)
    lexical_view = "signature" if _lexical(f1_s, bg_s, profile) > _lexical(f1_h, bg_h, profile) else "haystack"

    phrase_hit = any(_in_views(p, views) for p in prep.alias_phrases)
    alias_hit = bool(prep.alias_tokens & (h_tokens | s_tokens))
    distinctive_hits = tuple(p for p in prep.distinctive if _in_views(p, views))

    blend, score, floor = _floors(
        prep, profile, token_f1, bigram, cos, phrase_hit, alias_hit, bool(distinctive_hits)
    )

    if exact_h or exact_s:
        score, view, floor = profile.exact_score, ("exact" if exact_h else "exact_signature"), None
    elif sig_hit:
        score, view, floor = profile.signature_hit_score, "signature_hit", "signature"
    elif not prep.tokens:
        score, view, floor = 0.0, "none", None
    else:
        view = lexical_view
    score = round(score, profile.round_digits)

    spans = _spans(prep, views, view, floor, phrase_hit, distinctive_hits)
    return ScoreParts(
        score, exact_h or exact_s, sig_hit, token_f1, bigram, cos, blend, view, floor,
        prep.alias_keys, spans,
    )


@lru_cache(maxsize=4096)
def _view_tokens(text: str) -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
    """Content tokens and bigrams of a view (cached: a rule set re-reads the same views)."""
    ordered = ordered_content_tokens(text)
    return frozenset(ordered), make_bigrams(ordered)


def _lexical(f1: float, bigram: float, profile: MatcherProfile) -> float:
    return profile.lexical_token_weight * f1 + profile.lexical_bigram_weight * bigram


def _floors(
    prep: PreparedRule, profile: MatcherProfile, token_f1: float, bigram: float,
    cos: float | None, phrase_hit: bool, alias_hit: bool, distinctive_hit: bool,
) -> tuple[float, float, str | None]:
    """Blend, then the floors in 0.3.1's order. Returns (raw blend, score, floor fired)."""
    floor: str | None = None
    if cos is not None and cos > 0.0:
        blend = (
            profile.semantic_token_weight * token_f1
            + profile.semantic_bigram_weight * bigram
            + profile.semantic_embed_weight * cos
        )
        score = blend
        if cos >= profile.semantic_floor and score < profile.semantic_floor_score:
            score, floor = profile.semantic_floor_score, "semantic"
    else:
        blend = profile.lexical_token_weight * token_f1 + profile.lexical_bigram_weight * bigram
        score = blend
    if phrase_hit:
        if profile.alias_phrase_mode is AliasPhraseMode.SET or score < profile.alias_phrase_score:
            score, floor = profile.alias_phrase_score, "alias_phrase"
    elif alias_hit and score < profile.alias_token_floor:
        score, floor = profile.alias_token_floor, "alias_token"
    if (
        score < profile.distinctive_phrase_score
        and len(prep.norm_trigger) >= profile.distinctive_min_chars
        and distinctive_hit
    ):
        score, floor = profile.distinctive_phrase_score, "distinctive_phrase"
    return blend, score, floor


def decide(
    rule: RuleText,
    views: TrajectoryViews,
    threshold: float = 0.6,
    profile: MatcherProfile = REFERENCE_0_3_1,
    cosine: float | None = None,
) -> MatchDecision:
    """``rule_matches_with_score``: prefilter, threshold, domain guard (failures only),
    context."""
    parts = explain(rule, views, profile, cosine)
    reason = prefilter_reason(rule.trigger, rule.context)
    if reason is not None:
        return MatchDecision(False, 0.0, parts, f"prefilter:{reason}")
    if parts.score < threshold:
        return MatchDecision(False, parts.score, parts, "below_threshold")
    if not views.success and domain_conflict(rule.trigger, views):
        return MatchDecision(False, parts.score, parts, "domain_guard")
    matched, total = context_status(rule.context, views)
    if matched < total:
        return MatchDecision(False, parts.score, parts, "context")
    return MatchDecision(True, parts.score, parts, None)


# --- spans ------------------------------------------------------------------------------


def _occurrences(needle: str, haystack: str) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    if not needle:
        return found
    start = haystack.find(needle)
    while start != -1:
        found.append((start, start + len(needle)))
        start = haystack.find(needle, start + len(needle))
    return found


def _to_spans(views: TrajectoryViews, view: str, ranges: list[tuple[int, int]], kind: str) -> list[Span]:
    return [
        Span(r.field, r.start, r.end, kind)
        for a, b in ranges
        for r in views.locate(view, a, b)
    ]


def _token_ranges(text: str, wanted: frozenset[str]) -> list[tuple[int, int]]:
    """Ranges of the content words of *text* whose stem is in *wanted*."""
    return [
        (a, b) for a, b, w in words(text)
        if len(w) > 1 and w not in STOP_WORDS and stem(w) in wanted
    ]


def _spans(
    prep: PreparedRule, views: TrajectoryViews, view: str, floor: str | None,
    phrase_hit: bool, distinctive_hits: tuple[str, ...],
) -> tuple[Span, ...]:
    spans: list[Span] = []
    if view in ("exact", "exact_signature"):
        name = "haystack" if view == "exact" else "signature"
        spans += _to_spans(views, name, _occurrences(prep.norm_trigger, views.view_text(name)), "exact")
    elif view == "signature_hit":
        ref = views.reference_signature
        assert prep.signature_norm is not None
        ranges = _occurrences(prep.signature_norm, ref)
        if ranges:
            spans += _to_spans(views, "reference_signature", ranges, "exact")
        else:
            spans += _to_spans(
                views, "reference_signature", _token_ranges(ref, prep.signature_tokens), "token"
            )
    elif view in ("haystack", "signature"):
        text = views.view_text(view)
        spans += _to_spans(views, view, _token_ranges(text, prep.tokens), "token")
        spans += _to_spans(views, view, _token_ranges(text, prep.alias_tokens - prep.tokens), "alias")
        if phrase_hit:
            for phrase in prep.alias_phrases:
                for name in ("haystack", "signature"):
                    spans += _to_spans(views, name, _occurrences(phrase, views.view_text(name)), "alias")
        if floor == "distinctive_phrase":
            for phrase in distinctive_hits:
                for name in ("haystack", "signature"):
                    spans += _to_spans(views, name, _occurrences(phrase, views.view_text(name)), "phrase")
    unique = sorted(set(spans), key=lambda s: (s.field, s.start, s.end, s.kind))
    return tuple(unique)
