"""Scores composed from their parts, as 0.3.1 composes them (the blend, the floors, the early
returns, Python's rounding): the second half of the batch matcher (``core.matching.batch``
computes the parts). Kept apart because the calibration lab (core/lab) calls the composition
again with other weights and floors, and a semantic run composes the lexical matcher's scores
from the same parts for its broken evidence.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.matching.profile import AliasPhraseMode, MatcherProfile

#: code -> name of ``BatchScores.view`` (same names as ``ScoreParts.view``)
VIEW_CODES: tuple[str, ...] = (
    "none", "exact", "exact_signature", "signature_hit", "haystack", "signature",
)
#: code -> name of ``BatchScores.floor`` (same names as ``ScoreParts.floor``)
FLOOR_CODES: tuple[str | None, ...] = (
    None, "alias_phrase", "alias_token", "distinctive_phrase", "semantic", "signature",
)
_V = {name: np.int8(code) for code, name in enumerate(VIEW_CODES)}
_F = {name: np.int8(code) for code, name in enumerate(FLOOR_CODES)}


def round_like_python(values: np.ndarray, digits: int) -> np.ndarray:
    """Element-wise ``round(x, digits)`` exactly as Python's float round.

    ``rint(x * 10**d) / 10**d`` is exact except when ``x * 10**d`` is within float error of
    a half; those (rare) entries are rounded by Python itself.
    """
    scale = 10.0**digits
    scaled = values * scale
    out = np.rint(scaled) / scale
    near_half = np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6
    if near_half.any():
        for index in zip(*np.nonzero(near_half)):
            out[index] = round(float(values[index]), digits)
    return out


def _unscored(
    cos: np.ndarray | None, profile: MatcherProfile, zero_rows: np.ndarray, blank_rows: np.ndarray
) -> tuple[Any, Any, Any, Any]:
    """score, blend, view, floor of the pairs ``candidate_columns`` leaves out: scalars or
    columns when the run is lexical, [R, T] arrays when it is semantic.

    Such a pair has token F1 = bigram = 0 and no alias, phrase, distinctive, exact or
    signature hit, so what the full path gives it reduces to a function of its cosine:
    the semantic blend ``0.5*0 + 0.3*0 + w*cos`` is exactly ``w*cos`` where cos > 0, the
    lexical blend 0 elsewhere; the semantic floor where cos >= semantic_floor and the blend is
    below it; then the no-token and blank early returns (score 0, view "none", no floor; the
    blend is kept for a no-token rule, zeroed for a blank one); then Python's rounding.
    ``zero_rows``: rules without tokens or with a blank trigger (bool [R]).
    """
    view = np.where(zero_rows, _V["none"], _V["haystack"]).astype(np.int8)[:, None]
    if cos is None:
        return 0.0, 0.0, view, 0
    positive = cos > 0.0
    blend = np.where(positive, profile.semantic_embed_weight * cos, 0.0)
    raised = positive & (cos >= profile.semantic_floor) & (blend < profile.semantic_floor_score)
    score = np.where(raised, profile.semantic_floor_score, blend)
    floor = np.where(raised, _F["semantic"], _F[None]).astype(np.int8)
    score[zero_rows] = 0.0
    floor[zero_rows] = _F[None]
    blend[blank_rows] = 0.0
    return round_like_python(score, profile.round_digits), blend, view, floor


def compose_scores(
    token_f1: np.ndarray, bigram: np.ndarray, cos: np.ndarray | None, phrase_hit: np.ndarray,
    alias_hit: np.ndarray, distinctive_hit: np.ndarray, exact_h: np.ndarray, exact_s: np.ndarray,
    sig_hit: np.ndarray, no_tokens: np.ndarray, blank: np.ndarray, sig_wins: np.ndarray,
    profile: MatcherProfile,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """score, blend, view, floor of pairs from their parts, in 0.3.1's order: the blend (semantic
    where ``cos`` > 0), the semantic floor, the alias phrase and alias token floors, the
    distinctive-phrase floor, then ``match_score``'s early returns, then Python's rounding.

    Every input is a [R, T] array (``cos`` None for a lexical run); ``distinctive_hit`` already
    requires the trigger's length, ``sig_hit`` is already False on blank triggers. None of the
    parts depends on a blend weight or a floor, so the calibration lab (core/lab) calls this
    again with other weights and floors instead of re-scoring: the same function, the same bits.
    """
    floor = np.zeros(token_f1.shape, dtype=np.int8)
    if cos is not None:
        positive = cos > 0.0
        semantic_blend = (
            profile.semantic_token_weight * token_f1
            + profile.semantic_bigram_weight * bigram
            + profile.semantic_embed_weight * cos
        )
        lexical_blend = profile.lexical_token_weight * token_f1 + profile.lexical_bigram_weight * bigram
        blend = np.where(positive, semantic_blend, lexical_blend)
        raise_semantic = positive & (cos >= profile.semantic_floor) & (blend < profile.semantic_floor_score)
        score = np.where(raise_semantic, profile.semantic_floor_score, blend)
        floor[raise_semantic] = _F["semantic"]
    else:
        blend = profile.lexical_token_weight * token_f1 + profile.lexical_bigram_weight * bigram
        score = blend.copy()

    if profile.alias_phrase_mode is AliasPhraseMode.SET:
        set_phrase = phrase_hit
    else:
        set_phrase = phrase_hit & (score < profile.alias_phrase_score)
    raise_token = ~phrase_hit & alias_hit & (score < profile.alias_token_floor)
    score = np.where(set_phrase, profile.alias_phrase_score, score)
    score = np.where(raise_token, profile.alias_token_floor, score)
    floor[set_phrase] = _F["alias_phrase"]
    floor[raise_token] = _F["alias_token"]
    raise_distinctive = distinctive_hit & (score < profile.distinctive_phrase_score)
    score = np.where(raise_distinctive, profile.distinctive_phrase_score, score)
    floor[raise_distinctive] = _F["distinctive_phrase"]

    # --- early returns of match_score, applied last in reverse priority -------------------
    view = np.where(sig_wins, _V["signature"], _V["haystack"]).astype(np.int8)
    for mask, value, view_name, floor_name in (
        (no_tokens, 0.0, "none", None),
        (sig_hit, profile.signature_hit_score, "signature_hit", "signature"),
        (exact_s, profile.exact_score, "exact_signature", None),
        (exact_h, profile.exact_score, "exact", None),
        (blank, 0.0, "none", None),
    ):
        score = np.where(mask, value, score)
        view[mask] = _V[view_name]
        floor[mask] = _F[floor_name]
    return round_like_python(score, profile.round_digits), blend, view, floor


def evidence_without_alias_token(score: np.ndarray, blend: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """The score with the alias-token floor undone (one shared alias token is not evidence)."""
    return np.where(floor == _F["alias_token"], np.minimum(blend, score), score)
