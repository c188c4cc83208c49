"""Scope agreement and the scope-corrected recall estimate (pure: no store).

Replay's recall for a rule is prevented / (prevented + missed) over its recall pool, and it
counts every failure of that pool as one the rule is meant for. The scope question asks a
human exactly that ("is this a failure this rule is meant for?"), so:

* **scope agreement** = in_scope / (in_scope + out_of_scope) over judged failure items: an
  estimate, with its Wilson interval, of how much of replay's recall denominator really is
  in scope. ``cant_tell`` and unanswered scope questions are counted apart, never in it.
* **scope-corrected recall**: with P prevented and M missed items in the run (the session's
  stratum populations) and p_P, p_M the in-scope shares judged in each,

      recall_scoped = P·p_P / (P·p_P + M·p_M)

  It is increasing in p_P and decreasing in p_M, so the interval is the formula at the ends
  of the two Wilson intervals (each at z = 2.2414, 97.5 %, so both hold together with at
  least 95 % by Bonferroni): [P·lo_P / (P·lo_P + M·hi_M), P·hi_P / (P·hi_P + M·lo_M)].
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.domain.agreement import CANT_TELL, IN_SCOPE, Judgement
from core.stats.wilson import Rate

Z_BONFERRONI_2 = 2.241403  # Phi^-1(1 - 0.05 / 4): two 97.5 % intervals hold together with >= 95 %


@dataclass(frozen=True)
class ScopeAgreement:
    asked: int  # judged failure items
    in_scope: int
    out_of_scope: int
    cant_tell: int
    unanswered: int
    agreement: Rate  # in_scope / (in_scope + out_of_scope): replay's implied answer is always in_scope
    per_pool: dict[str, Rate]  # the rule's recall-pool kind -> the same rate ("domain" = scoped rules)

    @property
    def domain_less(self) -> Rate:
        """The rate for rules whose recall pool is not their domain (no source domain, or too small)."""
        k = sum(r.k for pool, r in self.per_pool.items() if pool != "domain")
        n = sum(r.n for pool, r in self.per_pool.items() if pool != "domain")
        return Rate.of(k, n)

    def to_dict(self) -> dict[str, Any]:
        return {"asked": self.asked, "in_scope": self.in_scope, "out_of_scope": self.out_of_scope,
                "cant_tell": self.cant_tell, "unanswered": self.unanswered, "agreement": self.agreement.to_dict(),
                "per_pool": {k: v.to_dict() for k, v in sorted(self.per_pool.items())},
                "domain_less": self.domain_less.to_dict()}


@dataclass(frozen=True)
class ScopedRecall:
    replay_recall: float | None  # P / (P + M) over the run's sampled population
    estimate: float | None
    ci: tuple[float, float] | None
    judged: int  # decisive scope answers it is estimated from
    prevented: int
    missed: int

    @property
    def label(self) -> str:
        return f"estimated from {self.judged} judged item{'s' if self.judged != 1 else ''}"

    def to_dict(self) -> dict[str, Any]:
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 4)

        return {"replay_recall": r(self.replay_recall), "estimate": r(self.estimate),
                "ci_low": None if self.ci is None else r(self.ci[0]),
                "ci_high": None if self.ci is None else r(self.ci[1]), "judged": self.judged,
                "prevented": self.prevented, "missed": self.missed, "label": self.label}


def scope_agreement(judgements: Sequence[Judgement]) -> ScopeAgreement:
    asked = [j for j in judgements if j.replay_scope is not None]
    answered = [j for j in asked if j.scope is not None]
    decisive = [j for j in answered if j.scope != CANT_TELL]
    pools: dict[str, list[Judgement]] = {}
    for j in decisive:
        pools.setdefault(j.rule_pool or "unknown", []).append(j)
    inside = sum(1 for j in decisive if j.scope == IN_SCOPE)
    return ScopeAgreement(
        asked=len(asked), in_scope=inside, out_of_scope=len(decisive) - inside,
        cant_tell=len(answered) - len(decisive), unanswered=len(asked) - len(answered),
        agreement=Rate.of(inside, len(decisive)),
        per_pool={p: Rate.of(sum(1 for j in js if j.scope == IN_SCOPE), len(js)) for p, js in pools.items()},
    )


def _population(strata: Mapping[str, Mapping[str, int]], bucket: str) -> int:
    prefix = f"evidence:{bucket}"
    return sum(int(v.get("population", 0)) for s, v in strata.items() if s == prefix or s.startswith(prefix + "@"))


def scoped_recall(judgements: Sequence[Judgement], strata: Mapping[str, Mapping[str, int]]) -> ScopedRecall:
    prevented, missed = _population(strata, "prevented"), _population(strata, "missed")
    replay = prevented / (prevented + missed) if prevented + missed else None

    def share(bucket: str) -> Rate:
        own = [j for j in judgements if j.replay_scope is not None and j.scope not in (None, CANT_TELL)
               and j.stratum.split("@")[0] == f"evidence:{bucket}"]
        return Rate.of(sum(1 for j in own if j.scope == IN_SCOPE), len(own), z=Z_BONFERRONI_2)

    p_rate, m_rate = share("prevented"), share("missed")
    judged = p_rate.n + m_rate.n
    # A bucket with no items in the run needs no judgement (its term is 0 either way).
    p_val = p_rate.value if prevented else 0.0
    m_val = m_rate.value if missed else 0.0
    if replay is None or p_val is None or m_val is None:
        return ScopedRecall(replay, None, None, judged, prevented, missed)
    p_ci = p_rate.ci if prevented and p_rate.ci else (0.0, 0.0)
    m_ci = m_rate.ci if missed and m_rate.ci else (0.0, 0.0)

    def recall(p: float, m: float) -> float | None:
        total = prevented * p + missed * m
        return prevented * p / total if total else None

    estimate = recall(p_val, m_val)
    low, high = recall(p_ci[0], m_ci[1]), recall(p_ci[1], m_ci[0])
    ci = None if estimate is None else (0.0 if low is None else low, 1.0 if high is None else high)
    return ScopedRecall(replay, estimate, ci, judged, prevented, missed)
