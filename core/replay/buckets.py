"""Per-pair outcome buckets as array operations over a [rules, trajectories] block.

Order of the 0.3.1 simulator (§5.4), applied to whole arrays:
1. partial-context near miss (prefilter ok, score >= threshold, 0 < matched < total);
2. match = prefilter ok, score >= threshold, every context item matched, and for
   failures no cross-domain conflict; no match -> no_effect;
3. matched failure -> prevented;
4. matched success: recovery -> near_miss; domain conflict -> no_effect;
   evidence < threshold + margin -> no_effect; otherwise broken.
"""

from __future__ import annotations

import numpy as np

NO_EFFECT = np.int8(0)
PREVENTED = np.int8(1)
BROKEN = np.int8(2)
NEAR_MISS = np.int8(3)
MISSED = np.int8(4)
BUCKET_NAMES: tuple[str, ...] = ("no_effect", "prevented", "broken", "near_miss", "missed")


def bucket_codes(
    score: np.ndarray,
    threshold: np.ndarray,
    prefilter_ok: np.ndarray,
    context_matched: np.ndarray,
    context_total: np.ndarray,
    domain_conflict: np.ndarray,
    failure: np.ndarray,
    recovery: np.ndarray,
    margin: float | np.ndarray,
    broken_evidence: np.ndarray | None = None,
) -> np.ndarray:
    """Return int8 bucket codes [R, T].

    ``score``/``context_matched``/``domain_conflict``/``broken_evidence``: [R, T];
    ``threshold``/``prefilter_ok``/``context_total``: [R]; ``failure``/``recovery``: [T];
    ``margin``: one for every rule, or [R, 1] (a margin per rule).
    ``broken_evidence`` (success side only) defaults to ``score`` (0.3.1): a matched
    recovered success is a near miss only if its evidence clears the threshold, any
    other matched success is broken only if it clears threshold + margin (computed in
    float64 exactly as the reference: ``thr + 0.10``).
    """
    return pair_codes(
        score=score,
        thr=np.asarray(threshold, dtype=np.float64)[:, None],
        prefilter_ok=np.asarray(prefilter_ok, dtype=bool)[:, None],
        context_matched=context_matched,
        context_total=np.asarray(context_total)[:, None],
        domain_conflict=domain_conflict,
        fail=np.asarray(failure, dtype=bool)[None, :],
        recovery=np.asarray(recovery, dtype=bool)[None, :],
        margin=margin,
        evidence=score if broken_evidence is None else broken_evidence,
    )


def pair_codes(
    score: np.ndarray,
    thr: np.ndarray,
    prefilter_ok: np.ndarray,
    context_matched: np.ndarray,
    context_total: np.ndarray,
    domain_conflict: np.ndarray,
    fail: np.ndarray,
    recovery: np.ndarray,
    margin: float | np.ndarray,
    evidence: np.ndarray,
) -> np.ndarray:
    """The bucket rules on arrays that broadcast together: [R, 1] x [1, T] for a block
    (``bucket_codes``), or one value per pair for a list of pairs (the calibration lab decides
    only the pairs whose score can reach a threshold; every other pair is no effect)."""
    above = prefilter_ok & (score >= thr)
    partial = (context_total > 0) & (context_matched > 0) & (context_matched < context_total)
    near_ctx = above & partial
    matched = above & ~partial & (context_matched >= context_total) & ~(fail & domain_conflict)
    prevented = matched & fail
    success_hit = matched & ~fail
    is_recovery = success_hit & recovery
    recovered = is_recovery & (evidence >= thr)
    candidates = success_hit & ~is_recovery & ~domain_conflict
    limit = thr + margin  # float64, the same sum 0.3.1 computes
    broken = candidates & (evidence >= limit)

    codes = np.zeros(np.shape(score), dtype=np.int8)
    codes[prevented] = PREVENTED
    codes[broken] = BROKEN
    codes[recovered | near_ctx] = NEAR_MISS
    return codes
