"""Pruning is exact: substring tests through the word index give the answers of a full scan,
so scores, score parts, buckets and verdicts are the same with and without it, including
pairs lifted only by a cosine floor or an alias floor."""

from __future__ import annotations

import hashlib
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_matching_batch import random_record, random_rule

from core.matching import REFERENCE_0_3_1, REFERENCE_0_3_1_SEMANTIC, TrajectoryViews, index_views, score_matrix
from core.matching.batch import FLOOR_CODES, _rule_matrix
from core.matching.rule import RuleText, prepare_rule
from core.matching.view_index import candidate_columns
from core.matching.word_index import WordIndex
from core.replay.engine import replay
from core.replay.inputs import trajectory_from_record
from core.replay.profiles import REFERENCE_0_3_1 as REPLAY_REFERENCE
from core.replay.profiles import WORKBENCH
from core.replay.types import ReplayRule

WORD = st.text(alphabet="abc-_1", min_size=1, max_size=4)
NORMALISED = st.lists(WORD, min_size=0, max_size=6).map(" ".join)


@given(texts=st.lists(NORMALISED, min_size=1, max_size=8), data=st.data())
def test_word_index_contains_equals_a_full_scan(texts: list[str], data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(texts))
    if source:
        lo = data.draw(st.integers(0, len(source) - 1))
        hi = data.draw(st.integers(lo + 1, len(source)))
        needle = data.draw(st.sampled_from([source[lo:hi], source[lo:hi] + " a", "b " + source[lo:hi]]))
    else:
        needle = data.draw(st.text(alphabet="abc -", min_size=0, max_size=5))
    got = WordIndex(texts).contains(needle)
    assert got.tolist() == [bool(needle) and needle in t for t in texts]


def test_word_index_handles_needles_that_cross_words_and_odd_texts() -> None:
    texts = ["git push rejected", "push", "a  b", "x\ny", "", "non fast forward"]
    index = WordIndex(texts)
    for needle in ("sh rej", "it push reject", "push", "  ", "a  b", "x\ny", "n fast f", "ast", "", "q"):
        assert index.contains(needle).tolist() == [bool(needle) and needle in t for t in texts], needle


def _batch_equal(seed: int, profile, semantic: bool) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    rules = [random_rule(rng) for _ in range(12)]
    views = [TrajectoryViews.from_record(random_record(rng)) for _ in range(15)]
    cos = np.array([[rng.choice([0.0, 0.0, 0.62, 0.61999, rng.random()]) for _ in views] for _ in rules])
    pruned = score_matrix(rules, index_views(views, prune=True), profile, cos if semantic else None)
    full = score_matrix(rules, index_views(views, prune=False), profile, cos if semantic else None)
    for name in ("score", "token_f1", "bigram", "blend", "view", "floor", "exact", "signature_hit",
                 "domain_conflict", "context_matched"):
        assert np.array_equal(getattr(pruned, name), getattr(full, name)), name


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_batch_scores_are_equal_with_and_without_pruning_lexical(seed: int) -> None:
    _batch_equal(seed, REFERENCE_0_3_1, semantic=False)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_batch_scores_are_equal_with_and_without_pruning_semantic(seed: int) -> None:
    _batch_equal(seed, REFERENCE_0_3_1_SEMANTIC, semantic=True)


def _fields(batch):  # type: ignore[no-untyped-def]
    return [getattr(batch, name).tolist() for name in ("score", "token_f1", "bigram", "blend", "view", "floor", "exact",
                                                       "signature_hit", "domain_conflict", "context_matched")]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_one_rule_at_a_time_scores_equal_with_and_without_pruning(seed: int) -> None:
    """At 10^5 trajectories replay scores one rule per chunk, so only that rule's candidate
    trajectories are scored; the others must come out exactly as a full scoring has them."""
    rng = random.Random(seed)
    views = [TrajectoryViews.from_record(random_record(rng)) for _ in range(30)]
    pruned, full = index_views(views, prune=True), index_views(views, prune=False)
    for _ in range(6):
        rule = [random_rule(rng)]
        assert _fields(score_matrix(rule, pruned, REFERENCE_0_3_1)) == _fields(score_matrix(rule, full, REFERENCE_0_3_1))


def test_only_trajectories_sharing_a_token_or_a_substring_are_candidates() -> None:
    records = [{"task": task, "success": False, "steps": []}
               for task in ("docker build failed", "pip install numpy", "git push rejected", "dockerfile lint")]
    index = index_views([TrajectoryViews.from_record(r) for r in records], prune=True)
    rules = [RuleText("docker build cache")]
    batch = score_matrix(rules, index, REFERENCE_0_3_1)
    tokens = _rule_matrix([prepare_rule(rules[0]).tokens], index.vocab, 1)
    # "docker" is a substring of "dockerfile" (the reference has no word boundaries), so
    # the fourth record is a candidate by substring; the second and third share nothing.
    hits = [index.contains("docker build cache", "hay"), index.contains("docker", "hay")]
    assert candidate_columns(index, (tokens, tokens[:0]), hits).tolist() == [0, 3]
    assert batch.score[0, 1] == batch.score[0, 2] == 0.0
    assert batch.score[0, 0] > 0.0


class TopicEmbed:
    """Texts that share their first three characters get the same unit vector (cosine 1),
    others near-orthogonal ones: many pairs are lifted by the cosine floor alone."""

    model_id = "topic-test"

    def __call__(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            digest = hashlib.sha256(text[:3].encode()).digest()
            out[i, digest[0] % 64] = 1.0
        return out


def _replay_inputs(seed: int) -> tuple[list[ReplayRule], list]:  # type: ignore[type-arg]
    rng = random.Random(seed)
    trajectories = []
    for key in range(24):
        record = random_record(rng)
        record["trajectory_id"] = f"T-{key % 20}"  # a few duplicate ids, as in real corpora
        trajectories.append(trajectory_from_record(key, record, rng.choice(["corpus/public/golden", "other"])))
    rules = []
    for k in range(10):
        text = random_rule(rng)
        source = rng.choice(trajectories)
        rules.append(ReplayRule(key=f"r{k}", trigger=text.trigger, context=text.context, signature=text.signature,
                                source_trajectory_id=source.trajectory_id, source_key=source.key,
                                domain=source.domain, corpus=source.corpus))
    return rules, trajectories


def _outcome_view(results):  # type: ignore[no-untyped-def]
    return [(r.rule_key, r.verdict, r.reason, r.attribution, r.prevented, r.broken, r.near_miss, r.missed,
             r.precision, r.recall, r.outcomes) for r in results]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["workbench", "reference"]))
def test_replay_buckets_scores_and_verdicts_are_equal_with_and_without_pruning(seed: int, which: str) -> None:
    rules, trajectories = _replay_inputs(seed)
    profile = WORKBENCH if which == "workbench" else REPLAY_REFERENCE.with_(semantic=True)
    pruned = replay(rules, trajectories, profile, embed=TopicEmbed(), prune=True)
    full = replay(rules, trajectories, profile, embed=TopicEmbed(), prune=False)
    assert _outcome_view(pruned.results) == _outcome_view(full.results)


def test_the_comparison_covers_pairs_lifted_only_by_a_floor() -> None:
    """Over a fixed set of seeds the equal runs above include cosine- and alias-floor pairs."""
    floors: set[str | None] = set()
    for seed in range(8):
        rules, trajectories = _replay_inputs(seed)
        pruned = replay(rules, trajectories, WORKBENCH, embed=TopicEmbed(), prune=True)
        full = replay(rules, trajectories, WORKBENCH, embed=TopicEmbed(), prune=False)
        assert _outcome_view(pruned.results) == _outcome_view(full.results)
        floors |= {o.floor for r in pruned.results for o in r.outcomes if o.bucket != "missed"}
    assert {"semantic", "alias_token"} <= floors or {"semantic", "alias_phrase"} <= floors, floors
    assert set(FLOOR_CODES) >= floors


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_the_stored_pool_spec_describes_the_recall_pool_exactly(seed: int) -> None:
    """What the store keeps to derive missed rows is the same pool the run used."""
    from core.replay.domains import trigger_group
    from core.replay.pools import PoolIndex, rule_pools, spec_mask

    rules, trajectories = _replay_inputs(seed)
    rng = random.Random(seed)
    index = PoolIndex.build(trajectories)
    for profile in (WORKBENCH, REPLAY_REFERENCE):
        for rule in rules:
            # Some rules with no source, a source outside the set, or a tiny domain.
            rule = rng.choice([rule, ReplayRule(key="x", trigger=rule.trigger),
                               ReplayRule(key="y", trigger="t", source_trajectory_id="T-1", source_key=999,
                                          domain=rng.choice(["git", "python", "nowhere", None]))])
            pools = rule_pools(rule, index, profile, trigger_group(rule.trigger) is not None)
            assert np.array_equal(spec_mask(pools.recall_spec, index), pools.recall)


def test_a_kept_answer_is_the_same_answer_and_callers_cannot_spoil_it() -> None:
    index = WordIndex(["git push rejected", "pip install", "push"])
    first = index.contains("push")
    first[:] = False  # a caller marking extra rows (context items do) must not change the next answer
    assert index.contains("push").tolist() == [True, False, True]
    assert index.contains("push").tolist() == [True, False, True]


def test_a_scanned_answer_kept_with_the_index_is_the_same_answer() -> None:
    records = [{"task": task, "success": False, "steps": []} for task in ("git push rejected", "pip install", "push")]
    index = index_views([TrajectoryViews.from_record(r) for r in records], prune=False)
    first = index.contains("push", "hay")
    first[:] = False  # callers modify answers (context items add domain rows)
    assert index.contains("push", "hay").tolist() == [True, False, True]
    assert index.contains("push", "sig").tolist() == [False, False, False]
