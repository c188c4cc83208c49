"""Scope agreement and the scope-corrected recall, on hand-worked numbers."""

from __future__ import annotations

import pytest

from core.agreement.scope import Z_BONFERRONI_2, scope_agreement, scoped_recall
from core.domain.agreement import Judgement
from core.stats.wilson import Rate


def _j(stratum: str, scope: str | None, pool: str = "all", replay_scope: str | None = "in_scope") -> Judgement:
    return Judgement(item_id=0, session_id=1, ordinal=0, kind="firing", stratum=stratum, reviewer="ana",
                     answer="does_not_fire", replay_answer="does_not_fire", rubric=None, note=None, origin="local",
                     committed_at="", scope=scope, replay_scope=replay_scope, rule_pool=pool)


JUDGED = ([_j("evidence:prevented", "in_scope", "domain")] * 10
          + [_j("evidence:missed", "in_scope")] * 5 + [_j("evidence:missed", "out_of_scope")] * 15
          + [_j("evidence:missed", "cant_tell")] * 2 + [_j("evidence:missed", None)]
          + [_j("evidence:broken", None, replay_scope=None)] * 3)
STRATA = {"evidence:prevented": {"population": 30, "sampled": 10}, "evidence:missed": {"population": 70, "sampled": 23}}


def test_scope_agreement_counts_decisive_failure_answers_only() -> None:
    scope = scope_agreement(JUDGED)
    assert (scope.asked, scope.in_scope, scope.out_of_scope, scope.cant_tell, scope.unanswered) == (33, 15, 15, 2, 1)
    assert scope.agreement == Rate.of(15, 30)
    assert scope.per_pool["domain"] == Rate.of(10, 10) and scope.domain_less == Rate.of(5, 20)


def test_scope_corrected_recall_and_its_bonferroni_interval() -> None:
    recall = scoped_recall(JUDGED, STRATA)
    assert recall.replay_recall == pytest.approx(30 / 100)
    assert recall.estimate == pytest.approx(30 * 1.0 / (30 * 1.0 + 70 * 0.25))
    p, m = Rate.of(10, 10, z=Z_BONFERRONI_2).ci, Rate.of(5, 20, z=Z_BONFERRONI_2).ci
    assert p is not None and m is not None and recall.ci is not None
    assert recall.ci[0] == pytest.approx(30 * p[0] / (30 * p[0] + 70 * m[1]))
    assert recall.ci[1] == pytest.approx(30 * p[1] / (30 * p[1] + 70 * m[0]))
    assert recall.label == "estimated from 30 judged items"


def test_without_judged_misses_there_is_no_estimate_never_a_zero() -> None:
    recall = scoped_recall([_j("evidence:prevented", "in_scope")], STRATA)
    assert recall.estimate is None and recall.ci is None and recall.replay_recall == pytest.approx(0.3)
