"""A setting's claims (its ``prevented`` and ``broken`` pairs), decided only where they can occur.

Every bucket but ``no_effect`` needs the pair's score to reach the rule's threshold, and a pair
with no lexical part (token F1, bigram, phrase, alias, distinctive, exact or signature hit)
scores ``round(w * cos, 4)``, the semantic floor's score, or 0. So a setting's lowest threshold
says which pairs can be anything but ``no_effect``: those with a lexical part, and those whose
cosine reaches the semantic floor or ``threshold / w``. Only those are composed and bucketed,
with replay's own functions on one value per pair (``compose_scores``, ``lexical_evidence_of``,
``gate_conflict``, ``pair_codes``) and replay's own pools (``engine.chunk_pools``); every other
pair is ``no_effect`` exactly as a full decision would file it. No per-setting Python loop runs
over pairs. ``tests/core/test_lab_sweep_exact.py`` checks the claims against a full replay.

Claims are flat pair indices ``row * T + column`` over the run's rules and trajectories, sorted
(rows in rule order, columns in trajectory order: the order of ``RuleResult.prevented``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.lab.scores import ScoredPairs
from core.matching.batch import compose_scores
from core.replay import engine
from core.replay import matcher_bridge as mb
from core.replay.buckets import BROKEN, PREVENTED, pair_codes
from core.replay.domains import group_conflict, trigger_codes
from core.replay.profiles import ReplayProfile
from core.replay.types import RuleResult

# round(w * cos, 4) >= t needs w * cos >= t - 0.00005: a little more room than that.
_ROUNDING_ROOM = 1e-4


@dataclass(frozen=True)
class Claims:
    n_rules: int
    n_traj: int
    prevented: np.ndarray  # int64 flat pair indices, sorted
    broken: np.ndarray
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_results(cls, results: Sequence[RuleResult], rule_row: Mapping[str, int],
                     key_column: Mapping[int, int], n_rules: int, n_traj: int) -> Claims:
        """The claims a list of results makes (rules missing from it claim nothing)."""
        def flat(attr: str) -> np.ndarray:
            parts = [np.asarray([rule_row[r.rule_key] * n_traj + key_column[k] for k in getattr(r, attr)],
                                dtype=np.int64) for r in results]
            return np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
        return cls(n_rules, n_traj, flat("prevented"), flat("broken"))

    def keys(self, which: str, rule_row: int, keys: np.ndarray) -> tuple[int, ...]:
        """The trajectory keys of one rule's ``prevented`` or ``broken`` claims."""
        flat = getattr(self, which)
        lo, hi = np.searchsorted(flat, [rule_row * self.n_traj, (rule_row + 1) * self.n_traj])
        return tuple(keys[flat[lo:hi] % self.n_traj].tolist())


@dataclass
class _Composed:
    """A setting's candidate pairs with their composed score and broken evidence: what every
    setting with the same matcher (but its name), semantic state, broken evidence and lowest
    threshold composes alike (adjacent settings of a grid often differ only in margin or pools)."""

    key: tuple[Any, ...]
    pairs: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    score: np.ndarray
    evidence: np.ndarray


@dataclass
class _Pools:
    union: np.ndarray  # [R, T] bool: recall | precision pool
    precision: np.ndarray  # [R, T] bool


def _lexical_mask(scored: ScoredPairs) -> np.ndarray:
    """[R, T] bool: pairs with any lexical part (kept on the scores: the same for every setting)."""
    found = scored._lexical_pairs
    if found is None:
        found = scored._lexical_pairs = ((scored.token_f1 > 0) | (scored.bigram > 0) | scored.phrase_hit
                                         | scored.alias_hit | scored.distinctive_hit | scored.exact
                                         | scored.signature_hit)
    return found


def candidate_pairs(scored: ScoredPairs, matcher: Any, semantic: bool, lowest_threshold: float) -> np.ndarray:
    """The pairs that can reach ``lowest_threshold`` under ``matcher`` (flat, sorted)."""
    if lowest_threshold <= 0.0:
        return np.arange(scored.pairs, dtype=np.int64)
    lexical = _lexical_mask(scored)
    if not semantic or scored.cosine is None:
        return np.flatnonzero(lexical)
    reach = matcher.semantic_floor
    if matcher.semantic_embed_weight > 0:
        reach = min(reach, (lowest_threshold - _ROUNDING_ROOM) / matcher.semantic_embed_weight)
    # One pass over a boolean mask (a sorted-set union of index arrays costs ~20x more at 10^7 pairs).
    return np.flatnonzero(lexical | (scored.cosine >= reach))


class ClaimDecider:
    """Decides settings' claims on one ``ScoredPairs``; pools are shared by settings that
    choose them alike."""

    def __init__(self, scored: ScoredPairs) -> None:
        self.scored = scored
        self.trigger_codes = trigger_codes(scored.rules)
        self._pools: dict[tuple[Any, ...], _Pools] = {}
        self._composed: _Composed | None = None

    def pools(self, profile: ReplayProfile) -> _Pools:
        key = (profile.pool_policy, profile.precision_scope, profile.recall_scope, profile.unscoped_pool)
        found = self._pools.get(key)
        if found is None:
            pools = engine.chunk_pools(self.scored.rules, self.scored.index, profile)
            size = (len(pools), self.scored.index.size)
            recall = np.stack([p.recall for p in pools]) if pools else np.zeros(size, dtype=bool)
            precision = np.stack([p.precision for p in pools]) if pools else np.zeros(size, dtype=bool)
            found = self._pools[key] = _Pools(recall | precision, precision)
        return found

    def composed(self, profile: ReplayProfile, matcher: Any, semantic: bool, lowest_threshold: float) -> _Composed:
        """The candidate pairs, their score and broken evidence; the last one is kept for the next
        setting (one at a time: at 10^7 pairs each is hundreds of MB)."""
        key = (replace(matcher, name=""), semantic, profile.broken_evidence, lowest_threshold)
        if self._composed is not None and self._composed.key == key:
            return self._composed
        self._composed = None  # let the old arrays go before the new ones are made
        s = self.scored
        pairs = candidate_pairs(s, matcher, semantic, lowest_threshold)
        rows, cols = np.divmod(pairs, len(s.trajectories))

        def at(values: np.ndarray) -> np.ndarray:
            return np.asarray(values.ravel()[pairs])

        never = np.zeros(pairs.shape, dtype=bool)
        no_tokens, blank = s.no_tokens[rows, 0], s.blank[rows, 0]
        parts = (at(s.token_f1), at(s.bigram))
        hits = (at(s.phrase_hit), at(s.alias_hit), at(s.distinctive_hit), at(s.exact), never, at(s.signature_hit),
                no_tokens, blank, never)
        cosine = at(s.cosine) if semantic and s.cosine is not None else None
        score, blend, _view, floor = compose_scores(*parts, cosine, *hits, matcher)
        blend = np.where(blank, 0.0, blend)  # as ScoredPairs.compose: a blank trigger's blend is 0
        evidence = score
        if profile.broken_evidence == "lexical":
            if semantic:  # replay's extra lexical pass, read on the successes
                lexical = mb.matcher_profile(profile.matcher, semantic=False)
                l_score, l_blend, _v, l_floor = compose_scores(*parts, None, *hits, lexical)
                l_blend = np.where(blank, 0.0, l_blend)
                evidence = np.where(s.index.failure[cols], score,
                                    engine.lexical_evidence_of(l_score, l_blend, l_floor))
            else:
                evidence = engine.lexical_evidence_of(score, blend, floor)
        self._composed = _Composed(key, pairs, rows, cols, score, evidence)
        return self._composed

    def decide(self, profile: ReplayProfile) -> Claims:
        s = self.scored
        s.check_profile(profile)
        n_rules, n_traj = len(s.rules), len(s.trajectories)
        semantic = profile.semantic and s.cosine is not None
        matcher = mb.matcher_profile(profile.matcher, semantic=semantic)
        thresholds = engine.rule_thresholds(s.rules, profile)
        if not n_rules or not n_traj:
            empty = np.zeros(0, dtype=np.int64)
            return Claims(n_rules, n_traj, empty, empty)
        composed = self.composed(profile, matcher, semantic, float(thresholds.min()))
        pairs, rows, cols, score, evidence = (composed.pairs, composed.rows, composed.cols, composed.score,
                                              composed.evidence)
        failure = s.index.failure[cols]
        conflict = np.asarray(s.domain_conflict.ravel()[pairs])
        if profile.domain_gate_fallback or profile.failure_gate_fallback:
            fallback = group_conflict(self.trigger_codes[rows], s.fallback_codes[cols])
            conflict = engine.gate_conflict(conflict, fallback, failure, profile)
        margin = engine.rule_margins(s.rules, profile)
        codes = pair_codes(
            score=score, thr=thresholds[rows], prefilter_ok=s.prefilter_ok[rows],
            context_matched=np.asarray(s.context_matched.ravel()[pairs]),
            context_total=s.context_total[rows], domain_conflict=conflict, fail=failure, recovery=s.recovery[cols],
            margin=margin if np.ndim(margin) == 0 else np.asarray(margin)[rows], evidence=evidence,
        )
        pools = self.pools(profile)
        prevented = pairs[(codes == PREVENTED) & pools.union[rows, cols]]
        broken = (codes == BROKEN) & pools.precision[rows, cols]
        twins = self.twin_claims(profile, pools)
        if twins.size:
            prevented = np.union1d(prevented, twins)
        return Claims(n_rules, n_traj, prevented, pairs[broken])

    def twin_claims(self, profile: ReplayProfile, pools: _Pools) -> np.ndarray:
        """The pairs a profile's twin rules claim (``core.replay.twins``: a twin's source failure
        the cross-domain gate lets through, inside the rule's pools), flat and sorted."""
        columns = self.scored.twin_columns(profile)
        if not columns:
            return np.zeros(0, dtype=np.int64)
        n_traj = len(self.scored.trajectories)
        lengths = np.fromiter((c.size for c in columns), dtype=np.int64, count=len(columns))
        rows = np.repeat(np.arange(len(columns), dtype=np.int64), lengths)
        cols = np.concatenate(columns) if rows.size else np.zeros(0, dtype=np.int64)
        flat = rows * n_traj + cols
        conflict = np.asarray(self.scored.domain_conflict.ravel()[flat])
        if profile.domain_gate_fallback or profile.failure_gate_fallback:
            fallback = group_conflict(self.trigger_codes[rows], self.scored.fallback_codes[cols])
            conflict = engine.gate_conflict(conflict, fallback, np.ones(flat.shape, dtype=bool), profile)
        return np.sort(flat[~conflict & pools.union[rows, cols]])
