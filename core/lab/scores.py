"""Pair scores computed once per (rules, trajectories, embedding model), re-decided per setting.

Replay's score of a pair is ``core.matching.batch.compose_scores`` of parts that no blend
weight or floor changes (token F1, bigram, cosine, which floors' triggers are present, exact
and signature hits). ``ScoredPairs.build`` scores every pair once with the batch matcher and
keeps those parts; ``ScoredPairs.decide(profile)`` composes the scores for the profile's
weights and floors with the *same* function and hands them to replay's own bucket, pool and
verdict code (``engine.decide_chunk``). So a setting's decisions are a full replay's, without
scoring again (``tests/core/test_lab_sweep_exact.py`` checks it against ``replay``).

What a setting may change exactly: the flat or per-corpus threshold, the broken margin, the
semantic blend weight (``semantic_embed_weight``) and the semantic floor (cosine and score),
the alias-token and alias-phrase floors, semantic on/off, and every ``ReplayProfile`` choice
(recall pool policy, precision scope, broken evidence, domain-gate fallback). What needs a
new score (and so a new ``ScoredPairs``): the lexical weights, the alias weight inside
token F1, the view cap, the distinctive-phrase length, ``include_input``, another model, which
texts are embedded (``MatcherProfile.semantic_target``: one ``ScoredPairs`` per target).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.matching.batch import compose_scores, score_matrix
from core.matching.profile import MatcherProfile, SemanticTarget
from core.matching.rule import prepare_rule
from core.replay import engine, twins
from core.replay import matcher_bridge as mb
from core.replay.pools import PoolIndex, ensure_scope_columns
from core.replay.profiles import ReplayProfile
from core.replay.snapshot import corpus_hash, rules_hash
from core.replay.types import ReplayRule, ReplayTrajectory, RuleResult

EmbedFn = Callable[[list[str]], np.ndarray]


@dataclass
class ScoredPairs:
    """Every (rule, trajectory) pair's score parts, [R, T] arrays over the whole run."""

    rules: list[ReplayRule]
    trajectories: list[ReplayTrajectory]
    model_id: str | None
    key: str  # sha256 over the corpus hash, the rules hash, the model id and read_failure_class
    index: PoolIndex
    recovery: np.ndarray
    fallback_codes: np.ndarray
    token_f1: np.ndarray
    bigram: np.ndarray
    cosine: np.ndarray | None  # None: no embedder was given (semantic settings are "unavailable")
    phrase_hit: np.ndarray
    alias_hit: np.ndarray
    distinctive_hit: np.ndarray
    exact: np.ndarray
    signature_hit: np.ndarray
    no_tokens: np.ndarray  # [R, 1] bool
    blank: np.ndarray  # [R, 1] bool
    view: np.ndarray  # int8: the view does not depend on a weight or a floor
    prefilter_ok: np.ndarray
    prefilter_reason: tuple[str | None, ...]
    domain_conflict: np.ndarray
    context_matched: np.ndarray
    context_total: np.ndarray
    read_failure_class: bool = True  # False: scored on the trajectories without failure_class
    semantic_target: SemanticTarget = SemanticTarget.SIGNATURE_THEN_CLASSFREE  # what was embedded
    trigger_vectors: np.ndarray | None = None  # [R, d] unit: twin rules in a semantic setting (core.replay.twins)
    _composed: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = field(
        default_factory=dict, repr=False)
    _lexical_pairs: np.ndarray | None = field(default=None, repr=False)  # [R, T] bool, core.lab.claims
    _twins: dict[tuple[float, bool], list[np.ndarray]] = field(default_factory=dict, repr=False)

    @classmethod
    def build(
        cls, rules: Sequence[ReplayRule], trajectories: Sequence[ReplayTrajectory],
        matcher: MatcherProfile | None = None, embed: EmbedFn | None = None,
        progress: Callable[[int, int], None] | None = None, read_failure_class: bool = True,
        semantic_target: SemanticTarget | None = None, trigger_vectors: np.ndarray | None = None,
    ) -> ScoredPairs:
        """Score every pair once. ``matcher`` fixes what a sweep cannot change (see the module
        doc); ``embed`` (texts -> unit vectors) gives the cosines, None leaves them out;
        ``read_failure_class=False`` scores what a profile that withholds the label sees
        (``trajectories`` stay the originals: truths and read-outs need the labels);
        ``semantic_target`` (None: the matcher's) says which texts are embedded: it changes the
        cosines, so each target needs its own pair scores; ``trigger_vectors`` (twin rules) are
        the rules' trigger embeddings when another ``ScoredPairs`` of the same rules has them."""
        rules, trajectories = list(rules), list(trajectories)
        seen = trajectories if read_failure_class else engine.withhold_failure_class(trajectories)
        base = mb.matcher_profile(matcher, semantic=embed is not None)
        if semantic_target is not None:
            base = replace(base, semantic_target=semantic_target)
        model_id = getattr(embed, "model_id", None) if embed is not None else None
        views, view_index, index, recovery, codes = engine.build_trajectory_side(seen, base, None, None)
        ensure_scope_columns(index, seen)
        texts = [mb.rule_text(r) for r in rules]
        n_rules, n_traj = len(rules), len(trajectories)
        cosines = mb.SemanticCosines.prepare(texts, views, embed, base) if embed is not None else None
        parts: dict[str, list[np.ndarray]] = {}
        reasons: list[str | None] = []
        bounds = engine.chunk_bounds(n_rules, n_traj)
        for done, (lo, hi) in enumerate(bounds, 1):
            cos = cosines.block(lo, hi) if cosines is not None else None
            b = score_matrix(texts[lo:hi], view_index, base, cosine=cos)
            assert b.phrase_hit is not None and b.alias_hit is not None and b.distinctive_hit is not None
            for name, value in (
                ("token_f1", b.token_f1), ("bigram", b.bigram), ("phrase_hit", b.phrase_hit),
                ("alias_hit", b.alias_hit), ("distinctive_hit", b.distinctive_hit), ("exact", b.exact),
                ("signature_hit", b.signature_hit), ("view", b.view), ("domain_conflict", b.domain_conflict),
                ("context_matched", b.context_matched), ("prefilter_ok", b.prefilter_ok),
                ("context_total", b.context_total),
            ):
                parts.setdefault(name, []).append(np.asarray(value))
            if b.cosine is not None:
                parts.setdefault("cosine", []).append(b.cosine)
            reasons.extend(b.prefilter_reasons)
            if progress is not None:
                progress(done, len(bounds))

        def stacked(name: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
            return np.concatenate(parts[name]) if name in parts else np.zeros(shape, dtype=dtype)

        preps = [prepare_rule(t) for t in texts]
        identity = [corpus_hash(trajectories), rules_hash(rules), model_id or "", str(read_failure_class)]
        if base.semantic_target is not SemanticTarget.SIGNATURE_THEN_CLASSFREE:  # earlier keys unchanged
            identity.append(base.semantic_target.value)
        key = hashlib.sha256("\n".join(identity).encode())
        pair = (n_rules, n_traj)
        return cls(
            rules=rules, trajectories=trajectories, model_id=model_id, key=key.hexdigest(), index=index,
            recovery=recovery, fallback_codes=codes,
            token_f1=stacked("token_f1", pair, np.float64), bigram=stacked("bigram", pair, np.float64),
            cosine=stacked("cosine", pair, np.float64) if "cosine" in parts else None,
            phrase_hit=stacked("phrase_hit", pair, bool), alias_hit=stacked("alias_hit", pair, bool),
            distinctive_hit=stacked("distinctive_hit", pair, bool), exact=stacked("exact", pair, bool),
            signature_hit=stacked("signature_hit", pair, bool), view=stacked("view", pair, np.int8),
            no_tokens=np.asarray([not p.tokens for p in preps], dtype=bool).reshape(-1, 1),
            blank=np.asarray([p.blank for p in preps], dtype=bool).reshape(-1, 1),
            prefilter_ok=stacked("prefilter_ok", (n_rules,), bool), prefilter_reason=tuple(reasons),
            domain_conflict=stacked("domain_conflict", pair, bool),
            context_matched=stacked("context_matched", pair, np.int32),
            context_total=stacked("context_total", (n_rules,), np.int32), read_failure_class=read_failure_class,
            semantic_target=base.semantic_target,
            trigger_vectors=(trigger_vectors if trigger_vectors is not None or embed is None
                             else twins.trigger_vectors(rules, embed)),
        )

    @property
    def pairs(self) -> int:
        return len(self.rules) * len(self.trajectories)

    def compose(self, matcher: MatcherProfile, semantic: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """score, blend, floor for this matcher (kept per matcher: settings share them)."""
        cache_key = (matcher, semantic)
        found = self._composed.get(cache_key)
        if found is not None:
            return found
        shape = self.token_f1.shape
        no_tokens = np.broadcast_to(self.no_tokens, shape)
        blank = np.broadcast_to(self.blank, shape)
        never = np.zeros(shape, dtype=bool)
        # The exact view (H or S) only changes the view's name, which is kept from the scoring.
        score, blend, _view, floor = compose_scores(
            self.token_f1, self.bigram, self.cosine if semantic else None, self.phrase_hit, self.alias_hit,
            self.distinctive_hit, self.exact, never, self.signature_hit, no_tokens, blank, never, matcher)
        if blank.any():  # the scalar path reports a zero blend for a blank trigger
            blend = np.where(blank, 0.0, blend)
        self._composed[cache_key] = (score, blend, floor)
        return score, blend, floor

    def check_profile(self, profile: ReplayProfile) -> None:
        """Refuse a profile these scores were not made for (another view or another embedding)."""
        if profile.read_failure_class != self.read_failure_class:
            raise ValueError("these pair scores were made with read_failure_class="
                             f"{self.read_failure_class}; the profile asks for {profile.read_failure_class}")
        target = mb.matcher_profile(profile.matcher, semantic=True).semantic_target
        if self.cosine is not None and profile.semantic and target is not self.semantic_target:
            raise ValueError(f"these pair scores embed {self.semantic_target.value}; the profile asks for "
                             f"{target.value}")

    def decide(self, profile: ReplayProfile) -> list[RuleResult]:
        """What ``replay(rules, trajectories, profile, embed=...)`` decides, rule by rule."""
        self.check_profile(profile)
        semantic = profile.semantic and self.cosine is not None
        matcher = mb.matcher_profile(profile.matcher, semantic=semantic)
        score, blend, floor = self.compose(matcher, semantic)
        block = mb.Block(
            score=score, token_f1=self.token_f1, bigram=self.bigram, blend=blend,
            cosine=self.cosine if semantic else None, view=self.view, floor=floor,
            view_names=mb.VIEW_NAMES, floor_names=mb.FLOOR_NAMES, prefilter_ok=self.prefilter_ok,
            prefilter_reason=self.prefilter_reason, domain_conflict=self.domain_conflict,
            context_matched=self.context_matched, context_total=self.context_total,
        )
        evidence = score
        if profile.broken_evidence == "lexical":
            lexical = mb.matcher_profile(profile.matcher, semantic=False)
            if semantic:  # replay's extra lexical pass over the successes
                l_score, l_blend, l_floor = self.compose(lexical, False)
                l_block = mb.Block(**{**block.__dict__, "score": l_score, "blend": l_blend, "floor": l_floor,
                                      "cosine": None})
                evidence = score.copy()
                cols = np.flatnonzero(~self.index.failure)
                evidence[:, cols] = engine.lexical_evidence(l_block)[:, cols]
            else:
                evidence = engine.lexical_evidence(block)
        return engine.decide_chunk(self.rules, self.fallback_codes, block, evidence, self.index, self.recovery,
                                   profile, self.twin_columns(profile))

    def twin_columns(self, profile: ReplayProfile) -> list[np.ndarray] | None:
        """Each rule's twins' source columns under ``profile`` (None: the profile has no twins),
        as the replay of that profile finds them (kept per cosine and semantic state)."""
        if profile.twin_rules is None:
            return None
        vectors = self.trigger_vectors if profile.semantic and self.cosine is not None else None
        cache_key = (profile.twin_rules, vectors is not None)
        found = self._twins.get(cache_key)
        if found is None:
            found = self._twins[cache_key] = twins.twin_columns(self.rules, self.index, profile.twin_rules, vectors)
        return found
