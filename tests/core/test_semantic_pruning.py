"""Pruning is exact in semantic runs too: a pair ``candidate_columns`` leaves out is filled in
from its cosine alone, and every ``BatchScores`` array, bucket, verdict and outcome is the
same as when every pair is scored by the full path."""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_matching_batch import random_record, random_rule
from test_replay_pruning import _outcome_view, _replay_inputs

from core.matching import (
    FLOOR_CODES,
    REFERENCE_0_3_1_SEMANTIC,
    VIEW_CODES,
    RuleText,
    TrajectoryViews,
    explain,
    index_views,
    score_matrix,
)
from core.matching.batch import BatchScores, _rule_matrix
from core.matching.profile import AliasPhraseMode, MatcherProfile
from core.matching.rule import prepare_rule
from core.matching.view_index import ViewIndex, candidate_columns
from core.replay.engine import replay
from core.replay.profiles import REFERENCE_0_3_1 as REPLAY_REFERENCE
from core.replay.profiles import WORKBENCH

#: the reference constants, and a profile whose every semantic constant differs (a closed form
#: that hard-codes 0.2 / 0.62 / 0.70 / 4 digits fails on it)
ODD = replace(REFERENCE_0_3_1_SEMANTIC, name="odd", semantic_embed_weight=0.35, semantic_floor=0.5,
              semantic_floor_score=0.65, round_digits=3, alias_phrase_mode=AliasPhraseMode.RAISE)
PROFILES = {"reference": REFERENCE_0_3_1_SEMANTIC, "odd": ODD}

#: cosines that sit on the edges: <= 0, exactly 0, around both floors, and values whose blend
#: w * cos lands on a rounding half (0.2 * 0.00025 = 0.00005) or near it
EDGES = (-0.5, -1e-12, 0.0, 5e-324, 1e-9, 0.00025, 0.00075, 0.0025, 0.12345, 0.49999, 0.5, 0.50001,
         math.nextafter(0.62, 0.0), 0.62, math.nextafter(0.62, 1.0), 0.61999, 0.62001, 0.99, 1.0)
COSINE = st.one_of(st.sampled_from(EDGES), st.floats(-1.0, 1.0, allow_nan=False))

FIELDS = ("score", "token_f1", "bigram", "blend", "view", "floor", "exact", "signature_hit", "prefilter_ok",
          "domain_conflict", "context_matched", "context_total", "success", "cosine")


def _assert_same(pruned: BatchScores, full: BatchScores) -> None:
    for name in FIELDS:
        a, b = getattr(pruned, name), getattr(full, name)
        assert a.dtype == b.dtype, name
        assert np.array_equal(a, b), name
    assert pruned.prefilter_reasons == full.prefilter_reasons
    for threshold in (0.05, 0.5, 0.6, 0.65, 0.7):
        assert np.array_equal(pruned.blocked_by(threshold), full.blocked_by(threshold)), threshold


def _pruned_columns(rules: list[RuleText], index: ViewIndex) -> np.ndarray:
    """bool [T]: the trajectories score_matrix fills in rather than scores."""
    preps = [prepare_rule(r) for r in rules]
    tokens = _rule_matrix(([*p.tokens, *p.alias_tokens] for p in preps), index.vocab, len(preps))
    sig = _rule_matrix((p.signature_tokens for p in preps if p.signature_norm), index.vocab,
                       sum(1 for p in preps if p.signature_norm))
    hits = []
    for p in preps:
        if not p.blank:
            hits += [index.contains(p.norm_trigger, "hay"), index.contains(p.norm_trigger, "sig")]
        if p.signature_norm:
            hits.append(index.contains(p.signature_norm, "ref"))
        for n in (*p.alias_phrases, *p.distinctive):
            hits += [index.contains(n, "hay"), index.contains(n, "sig")]
    out = np.ones(len(index), dtype=bool)
    out[candidate_columns(index, (tokens, sig), hits)] = False
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), which=st.sampled_from(sorted(PROFILES)), data=st.data())
def test_every_batch_array_is_equal_with_and_without_pruning(seed: int, which: str, data: st.DataObject) -> None:
    rng = random.Random(seed)
    rules = [random_rule(rng) for _ in range(data.draw(st.integers(1, 8)))]
    views = [TrajectoryViews.from_record(random_record(rng)) for _ in range(data.draw(st.integers(1, 20)))]
    cos = np.array(data.draw(st.lists(COSINE, min_size=len(rules) * len(views), max_size=len(rules) * len(views))))
    cos = cos.reshape(len(rules), len(views))
    profile = PROFILES[which]
    _assert_same(score_matrix(rules, index_views(views, prune=True), profile, cos),
                 score_matrix(rules, index_views(views, prune=False), profile, cos))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6))
def test_one_rule_chunks_with_edge_cosines_are_equal_with_and_without_pruning(seed: int) -> None:
    """At 10^5 trajectories replay scores one rule per chunk; most trajectories are then filled in."""
    rng = random.Random(seed)
    views = [TrajectoryViews.from_record(random_record(rng)) for _ in range(30)]
    pruned, full = index_views(views, prune=True), index_views(views, prune=False)
    for _ in range(4):
        rule = [random_rule(rng)]
        cos = np.array([[rng.choice([*EDGES, rng.uniform(-1, 1)]) for _ in views]])
        for profile in PROFILES.values():
            _assert_same(score_matrix(rule, pruned, profile, cos), score_matrix(rule, full, profile, cos))


def test_the_random_cases_reach_every_branch_of_the_closed_form() -> None:
    """Over fixed seeds the comparison above includes filled-in pairs of every kind: lifted by
    the semantic floor, a bare positive blend, a blend of 0, a rule without tokens and a blank one."""
    kinds: set[str] = set()
    for seed in range(40):
        rng = random.Random(seed)
        rules = [random_rule(rng) for _ in range(6)]
        views = [TrajectoryViews.from_record(random_record(rng)) for _ in range(15)]
        cos = np.array([[rng.choice(EDGES) for _ in views] for _ in rules])
        index = index_views(views, prune=True)
        batch = score_matrix(rules, index, REFERENCE_0_3_1_SEMANTIC, cos)
        filled = _pruned_columns(rules, index)
        for i, rule in enumerate(rules):
            prep = prepare_rule(rule)
            for j in np.flatnonzero(filled).tolist():
                if prep.blank:
                    kinds.add("blank")
                elif not prep.tokens:
                    kinds.add("no tokens, blend kept" if batch.blend[i, j] > 0 else "no tokens, blend 0")
                elif FLOOR_CODES[batch.floor[i, j]] == "semantic":
                    kinds.add("semantic floor")
                else:
                    kinds.add("positive blend" if batch.blend[i, j] > 0 else "zero blend")
    assert kinds >= {"blank", "no tokens, blend kept", "semantic floor", "positive blend",
                     "zero blend"}


def _docker_rule_and_views() -> tuple[list[RuleText], list[TrajectoryViews]]:
    records = [{"task": task, "success": False, "steps": []}
               for task in ("docker build failed", "pip install numpy", "kubectl apply crd")]
    return [RuleText("docker build cache")], [TrajectoryViews.from_record(r) for r in records]


def test_a_pair_lifted_only_by_the_semantic_floor_is_filled_in_as_the_scalar_path_scores_it() -> None:
    rules, views = _docker_rule_and_views()
    index = index_views(views, prune=True)
    assert _pruned_columns(rules, index).tolist() == [False, True, True]
    cos = np.array([[0.3, 0.62, math.nextafter(0.62, 0.0)]])
    batch = score_matrix(rules, index, REFERENCE_0_3_1_SEMANTIC, cos)
    assert batch.score[0, 1] == 0.7 and FLOOR_CODES[batch.floor[0, 1]] == "semantic"
    assert batch.score[0, 2] == 0.124 and FLOOR_CODES[batch.floor[0, 2]] is None
    for j in (1, 2):
        parts = explain(rules[0], views[j], REFERENCE_0_3_1_SEMANTIC, float(cos[0, j]))
        assert (batch.score[0, j], batch.blend[0, j], VIEW_CODES[batch.view[0, j]], FLOOR_CODES[batch.floor[0, j]]) \
            == (parts.score, parts.blend, parts.view, parts.floor)
    _assert_same(batch, score_matrix(rules, index_views(views, prune=False), REFERENCE_0_3_1_SEMANTIC, cos))


def test_a_pair_lifted_by_an_alias_floor_is_scored_the_same_with_pruning() -> None:
    """"push rejected" brings the alias tokens of "updates were rejected": a trajectory that holds
    only "updates" is a candidate through its alias token and keeps the alias-token floor."""
    records = [{"task": task, "success": False, "steps": []}
               for task in ("updates here", "pip install numpy", "git push rejected")]
    views = [TrajectoryViews.from_record(r) for r in records]
    rules = [RuleText("push rejected now")]
    index = index_views(views, prune=True)
    assert _pruned_columns(rules, index).tolist() == [False, True, False]
    cos = np.array([[0.1, 0.63, 0.0]])
    batch = score_matrix(rules, index, REFERENCE_0_3_1_SEMANTIC, cos)
    assert FLOOR_CODES[batch.floor[0, 0]] == "alias_token" and batch.score[0, 0] == 0.6
    assert FLOOR_CODES[batch.floor[0, 1]] == "semantic"
    _assert_same(batch, score_matrix(rules, index_views(views, prune=False), REFERENCE_0_3_1_SEMANTIC, cos))


def test_a_rule_without_tokens_keeps_its_blend_but_scores_0_on_filled_in_pairs() -> None:
    _, views = _docker_rule_and_views()
    rules = [RuleText("the a of"), RuleText("  ")]
    index = index_views(views, prune=True)
    cos = np.full((2, 3), 0.9)
    batch = score_matrix(rules, index, REFERENCE_0_3_1_SEMANTIC, cos)
    assert batch.score.tolist() == [[0.0] * 3] * 2
    assert batch.blend[0].tolist() == [0.2 * 0.9] * 3 and batch.blend[1].tolist() == [0.0] * 3
    assert {VIEW_CODES[v] for v in batch.view.ravel()} == {"none"}
    _assert_same(batch, score_matrix(rules, index_views(views, prune=False), REFERENCE_0_3_1_SEMANTIC, cos))


ANGLES = (0.0, math.acos(0.62), math.acos(0.62) - 1e-9, math.acos(0.62) + 1e-9, math.acos(0.5), 1.2,
          math.pi / 2, 2.0, math.pi)


class AngleEmbed:
    """Each text gets a unit vector at one of ANGLES (or zero): the cosines between them fall
    on and around the semantic floor, on 0 and below it (clamped to 0), so replay's buckets
    depend on the floor both in scored and in filled-in pairs."""

    model_id = "angle-test"

    def __call__(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 2), dtype=np.float32)
        for i, text in enumerate(texts):
            roll = hashlib.sha256(text.encode()).digest()[0] % (len(ANGLES) + 1)
            if roll < len(ANGLES):
                out[i] = (math.cos(ANGLES[roll]), math.sin(ANGLES[roll]))
        return out


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["workbench", "reference"]))
def test_replay_outcomes_are_equal_with_and_without_pruning_in_semantic_runs(seed: int, which: str) -> None:
    rules, trajectories = _replay_inputs(seed)
    profile = WORKBENCH if which == "workbench" else REPLAY_REFERENCE.with_(semantic=True)
    pruned = replay(rules, trajectories, profile, embed=AngleEmbed(), prune=True)
    full = replay(rules, trajectories, profile, embed=AngleEmbed(), prune=False)
    assert pruned.semantic_state == "on"
    assert _outcome_view(pruned.results) == _outcome_view(full.results)


def test_the_matcher_profile_of_a_run_is_not_needed_to_be_the_default() -> None:
    """A replay profile carrying its own matcher (other floors) prunes exactly as well."""
    odd = WORKBENCH.with_(matcher=MatcherProfile(name="odd-run", semantic_floor=0.5, semantic_floor_score=0.65))
    for seed in range(4):
        rules, trajectories = _replay_inputs(seed)
        pruned = replay(rules, trajectories, odd, embed=AngleEmbed(), prune=True)
        full = replay(rules, trajectories, odd, embed=AngleEmbed(), prune=False)
        assert _outcome_view(pruned.results) == _outcome_view(full.results)
