"""A chunk's buckets and pools -> one ``RuleResult`` per rule.

Everything that is the same operation for every rule of the chunk is one array operation
over the chunk's [R, T] matrices: the pool masks are stacked, the bucket / pool
intersections, their counts, the key lists and the evidence rows are taken for all rules
at once and then split by rule. Per rule, only what is Python by nature remains (the pool
choice, the verdict ladder, rates and intervals). With 119 rules x 358 trajectories the
per-rule array calls (each a few microseconds on small arrays) cost more than the
scoring; the results are identical (same keys in the same order, same rows).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.replay import matcher_bridge as mb
from core.replay.buckets import BROKEN, MISSED, NEAR_MISS, NO_EFFECT, PREVENTED
from core.replay.outcome_columns import OutcomeColumns, split_by_rule
from core.replay.pools import PoolIndex, RulePools
from core.replay.profiles import ReplayProfile
from core.replay.types import ReplayRule, RuleResult
from core.replay.verdict import attribute, decide, rate
from core.stats.wilson import wilson_interval


def chunk_results(
    chunk: Sequence[ReplayRule],
    codes: np.ndarray,
    thresholds: np.ndarray,
    pools: Sequence[RulePools],
    batch: mb.Block,
    index: PoolIndex,
    profile: ReplayProfile,
) -> list[RuleResult]:
    """``codes``: [R, T] bucket codes; ``pools``: each rule's pools (row order)."""
    recall = np.stack([p.recall for p in pools])
    same = all(p.precision is p.recall for p in pools)
    precision = recall if same else np.stack([p.precision for p in pools])
    failure = index.failure[None, :]

    is_prevented = codes == PREVENTED
    prevented_p = is_prevented & precision
    broken_p = (codes == BROKEN) & precision
    near_p = (codes == NEAR_MISS) & precision
    prevented_r = is_prevented & recall
    failures_r = failure & recall
    missed = failures_r & ~prevented_r if profile.fill_missed else np.zeros_like(recall)

    n_prev = prevented_p.sum(axis=1).tolist()
    n_broken = broken_p.sum(axis=1).tolist()
    n_near = near_p.sum(axis=1).tolist()
    n_prev_r = prevented_r.sum(axis=1).tolist()
    n_fail_r = failures_r.sum(axis=1).tolist()
    p_size = precision.sum(axis=1).tolist()

    shown = codes.copy()
    shown[~(recall | precision)] = NO_EFFECT
    shown[missed & (shown == NO_EFFECT)] = MISSED

    prevented_keys = _row_keys(prevented_p | prevented_r, index)
    broken_keys = _row_keys(broken_p, index)
    near_keys = _row_keys(near_p, index)
    missed_keys = _row_keys(missed, index)
    outcomes = _pair_outcomes(shown, thresholds, batch, index)

    null = profile.zero_rate_is_null
    out: list[RuleResult] = []
    for i, rule in enumerate(chunk):
        decision = decide(n_prev[i], n_broken[i], n_near[i], p_size[i],
                          min_sample=profile.min_sample, near_miss_limit=profile.near_miss_limit)
        attribution = attribute(decision.verdict, p_size[i], len(mb.content_tokens(rule.trigger)),
                                n_prev[i], n_broken[i], n_near[i], min_sample=profile.min_sample)
        checked = n_prev[i] + n_broken[i]
        out.append(RuleResult(
            rule_key=rule.key,
            verdict=decision.verdict,
            reason=decision.reason,
            threshold=float(thresholds[i]),
            prevented=prevented_keys[i],
            broken=broken_keys[i],
            near_miss=near_keys[i],
            missed=missed_keys[i],
            precision=rate(n_prev[i], checked, null),
            precision_ci=wilson_interval(n_prev[i], checked) if profile.wilson else None,
            recall=rate(n_prev_r[i], n_fail_r[i], null),
            recall_ci=wilson_interval(n_prev_r[i], n_fail_r[i]) if profile.wilson else None,
            recall_pool=pools[i].recall_info,
            precision_pool=pools[i].precision_info,
            outcomes=outcomes[i],
            attribution=attribution,
            computed_verdict=decision.computed,
            prefilter=batch.prefilter_reason[i],
            recall_spec=pools[i].recall_spec,
        ))
    return out


def _row_keys(mask: np.ndarray, index: PoolIndex) -> list[tuple[int, ...]]:
    """Per row of ``mask`` [R, T], the keys of its set columns, in column order."""
    rows, cols = np.nonzero(mask)
    keys = index.keys[cols].tolist()
    ends = np.cumsum(np.bincount(rows, minlength=mask.shape[0])).tolist()
    start = 0
    out = []
    for end in ends:
        out.append(tuple(keys[start:end]))
        start = end
    return out


def _pair_outcomes(
    shown: np.ndarray, thresholds: np.ndarray, batch: mb.Block, index: PoolIndex
) -> list[OutcomeColumns]:
    """Per rule, its evidence rows (every pair whose shown bucket is not no-effect), as
    columns: slices of the chunk's arrays, no Python object per pair (see outcome_columns)."""
    rows, cols = np.nonzero(shown != NO_EFFECT)
    ends = np.cumsum(np.bincount(rows, minlength=shown.shape[0])).tolist()
    scores = batch.score[rows, cols]
    threshold = thresholds[rows]
    return split_by_rule({
        "trajectory_key": index.keys[cols],
        "bucket": shown[rows, cols],
        "score": scores,
        "token_f1": batch.token_f1[rows, cols],
        "bigram": batch.bigram[rows, cols],
        "cosine": batch.cosine[rows, cols] if batch.cosine is not None else None,
        "view": batch.view[rows, cols],
        "view_names": batch.view_names,
        "floor": batch.floor[rows, cols],
        "floor_names": batch.floor_names,
        "threshold": threshold,
        "margin": mb.round_like_python(scores - threshold, 6),  # = round(s - threshold, 6)
    }, ends)
