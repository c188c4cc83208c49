"""Buckets, verdicts and pools as pure array/count logic (no matcher involved)."""

from __future__ import annotations

import numpy as np
import pytest

from core.replay.buckets import BROKEN, NEAR_MISS, NO_EFFECT, PREVENTED, bucket_codes
from core.replay.pools import PoolIndex, rule_pools
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH, threshold_for_corpus
from core.replay.recovery import recovery_reason
from core.replay.types import ReplayRule, ReplayTrajectory
from core.replay.verdict import attribute, decide, rate


def _codes(score, *, failure, recovery=None, conflict=None, ctx_matched=None, ctx_total=0,
           thr=0.6, prefilter=True, evidence=None):
    score = np.array([score], dtype=np.float64)
    t = score.shape[1]
    return bucket_codes(
        score=score,
        threshold=np.array([thr]),
        prefilter_ok=np.array([prefilter]),
        context_matched=np.array([ctx_matched if ctx_matched is not None else [0] * t]),
        context_total=np.array([ctx_total]),
        domain_conflict=np.array([conflict if conflict is not None else [False] * t]),
        failure=np.array(failure),
        recovery=np.array(recovery if recovery is not None else [False] * t),
        margin=0.10,
        broken_evidence=None if evidence is None else np.array([evidence]),
    )[0].tolist()


def test_prevented_and_no_effect() -> None:
    assert _codes([0.6, 0.5999], failure=[True, True]) == [PREVENTED, NO_EFFECT]


def test_prefilter_blocks_everything() -> None:
    assert _codes([1.0, 1.0], failure=[True, False], prefilter=False) == [NO_EFFECT, NO_EFFECT]


def test_margin_on_successes() -> None:
    # 0.6 + 0.10 == 0.7 in float: a success at exactly 0.70 is broken, 0.6999 is not.
    assert _codes([0.7, 0.6999, 0.6], failure=[False] * 3) == [BROKEN, NO_EFFECT, NO_EFFECT]
    # 0.35 + 0.10 = 0.44999999999999996, so 0.45 clears it (as in 0.3.1).
    assert _codes([0.45], failure=[False], thr=0.35) == [BROKEN]


def test_recovery_success_is_near_miss_even_cross_domain() -> None:
    assert _codes([0.6, 0.9], failure=[False, False], recovery=[True, True], conflict=[True, True]) == [
        NEAR_MISS,
        NEAR_MISS,
    ]


def test_domain_gate() -> None:
    # failure: conflict -> no match; success: conflict -> no_effect (not broken)
    assert _codes([1.0, 1.0], failure=[True, False], conflict=[True, True]) == [NO_EFFECT, NO_EFFECT]


def test_partial_context_near_miss_skips_domain_gate() -> None:
    codes = _codes(
        [0.8, 0.8, 0.8, 0.8], failure=[True, True, False, True], conflict=[True, False, False, False],
        ctx_matched=[1, 2, 2, 0], ctx_total=2,
    )
    assert codes == [NEAR_MISS, PREVENTED, BROKEN, NO_EFFECT]


def test_broken_evidence_override() -> None:
    # the score clears the margin but the evidence (pre-floor blend) does not
    assert _codes([0.7, 0.7], failure=[False, False], evidence=[0.3, 0.75]) == [NO_EFFECT, BROKEN]


@pytest.mark.parametrize(
    "p,b,nm,n,verdict,reason",
    [
        (0, 0, 0, 10, "inconclusive", "no_signal"),
        (0, 0, 5, 10, "inconclusive", "no_signal"),
        (1, 2, 0, 10, "fail", "blocked_by_broken"),
        (2, 2, 3, 10, "inconclusive", "blocked_by_near_miss"),
        (2, 2, 2, 10, "pass", "pass"),
        (1, 0, 0, 2, "inconclusive", "min_sample: 2 < 3; computed=pass"),
        (0, 1, 0, 1, "inconclusive", "min_sample: 1 < 3; computed=fail"),
    ],
)
def test_verdict_ladder(p: int, b: int, nm: int, n: int, verdict: str, reason: str) -> None:
    d = decide(p, b, nm, n, min_sample=3, near_miss_limit=2)
    assert (d.verdict, d.reason) == (verdict, reason)


def test_attribution_order() -> None:
    assert attribute("inconclusive", 2, 5, 0, 0, 0, min_sample=3) == "corpus_mismatch"
    assert attribute("inconclusive", 9, 2, 0, 0, 4, min_sample=3) == "broad_trigger"
    assert attribute("inconclusive", 9, 5, 1, 0, 4, min_sample=3) == "ambiguous_evidence"
    assert attribute("inconclusive", 9, 5, 0, 0, 0, min_sample=3) == "matcher_gap"
    assert attribute("pass", 9, 5, 1, 0, 0, min_sample=3) is None


def test_rates_null_vs_zero() -> None:
    assert rate(0, 0, null_when_empty=True) is None
    assert rate(0, 0, null_when_empty=False) == 0.0
    assert rate(1, 4, null_when_empty=True) == 0.25


def test_thresholds_per_corpus() -> None:
    assert threshold_for_corpus("field-test/corpus/curated/failures/positive") == 0.60
    assert threshold_for_corpus("field-test/corpus/curated/successes") == 0.70
    assert threshold_for_corpus("corpus/public/golden") == 0.70
    assert threshold_for_corpus("field-test/corpus/raw/ci") == 0.35
    assert threshold_for_corpus("field-test/corpus/raw/sibling-repos") == 0.40
    assert threshold_for_corpus("raw-material-handling") == 0.60
    assert threshold_for_corpus(None) == 0.6


def test_thresholds_match_reference() -> None:
    matcher = pytest.importorskip("cauterule.replay.matcher")
    for name in ["golden", "failures/positive", "raw/ci", "raw/sibling-repos", "x/cross-repo-a",
                 "nearmiss", "adversarial/unsafe", "corpus/public/reference-expansion", "noisy"]:
        assert threshold_for_corpus(name) == matcher.threshold_for_corpus(name)


def test_recovery_reasons() -> None:
    assert recovery_reason("NM-015-git-push-retry", "push", None) == "text:retry"
    assert recovery_reason("S-1", "task", "git/push/temporary") == "class:temporary"
    assert recovery_reason("S-1", "task", "python/unrecoverable") is None
    assert recovery_reason("S-1", "retry budget exhausted", None) == "text:retry"


def _traj(key: int, tid: str, domain: str | None, success: bool) -> ReplayTrajectory:
    return ReplayTrajectory(key, tid, "c", domain, success, None, {"task": tid})


def test_pool_self_exclusion_order() -> None:
    # Three git records including the source: the runner keeps the slice (size 3 counted
    # with the source) and shrinks it to 2 -> min-sample; the Workbench excludes first
    # and falls back to the whole set.
    trajs = [_traj(0, "SRC", "git", False), _traj(1, "A", "git", True), _traj(2, "B", "git", False),
             _traj(3, "C", "docker", True), _traj(4, "D", "docker", False)]
    idx = PoolIndex.build(trajs)
    rule = ReplayRule("r", "git push", source_trajectory_id="SRC", source_key=0, domain="git")
    ref = rule_pools(rule, idx, REFERENCE_0_3_1, trigger_gated=True)
    assert ref.recall.tolist() == [False, True, True, False, False]
    assert ref.recall_info.kind == "domain" and ref.recall_info.size == 2
    assert ref.precision_info == ref.recall_info
    wb = rule_pools(rule, idx, WORKBENCH, trigger_gated=True)
    assert wb.recall.tolist() == [False, True, True, True, True]
    assert wb.recall_info.kind == "fallback" and wb.recall_info.failures == 2
    assert wb.precision_info.kind == "all" and wb.precision_info.size == 4


def test_pool_domain_slice_and_precision_scope() -> None:
    trajs = [_traj(i, f"G{i}", "git", i % 2 == 0) for i in range(5)] + [_traj(9, "D", "docker", True)]
    idx = PoolIndex.build(trajs)
    rule = ReplayRule("r", "git push", source_trajectory_id="G1", source_key=1, domain="git")
    wb = rule_pools(rule, idx, WORKBENCH, trigger_gated=True)
    assert wb.recall_info.kind == "domain" and wb.recall_info.size == 4 and wb.recall_info.scoped
    assert wb.precision_info.size == 5  # docker success included: where the rule may fire
    gated = rule_pools(rule, idx, WORKBENCH.with_(precision_scope="domain_if_gated"), trigger_gated=True)
    assert gated.precision_info.kind == "domain" and gated.precision_info.size == 4


def test_pool_fallback_when_only_source() -> None:
    idx = PoolIndex.build([_traj(0, "SRC", "git", False)])
    rule = ReplayRule("r", "x", source_trajectory_id="SRC", source_key=0, domain="git")
    for prof in (REFERENCE_0_3_1, WORKBENCH):
        pools = rule_pools(rule, idx, prof, trigger_gated=False)
        assert pools.recall_info.kind == "fallback" and pools.recall_info.size == 1


def test_bucket_codes_index_their_names() -> None:
    # The codes are what outcome blocks store and the names what exports and the window show:
    # a code must keep naming the same bucket.
    from core.replay.buckets import BUCKET_NAMES, MISSED

    codes = (NO_EFFECT, PREVENTED, BROKEN, NEAR_MISS, MISSED)
    assert [int(c) for c in codes] == [0, 1, 2, 3, 4]
    assert [BUCKET_NAMES[c] for c in codes] == ["no_effect", "prevented", "broken", "near_miss", "missed"]
