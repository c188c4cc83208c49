"""A semantic run's broken evidence on successes is the lexical matcher's score with the
alias-token floor undone. It is composed from the semantic pass's own parts
(``score_matrix(..., lexical=...)``) instead of a second scoring pass over an index of the
successes: every entry must equal that second pass, pruned or not, for any cosines."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_matching_batch import random_record, random_rule
from test_semantic_pruning import COSINE, PROFILES

from core.matching import TrajectoryViews, index_views, score_matrix
from core.matching.batch import evidence_without_alias_token


def _second_pass(rules, views, lexical, prune):  # the engine's former path: its own index, no cosine
    b = score_matrix(rules, index_views(views, prune=prune), lexical, None)
    return evidence_without_alias_token(b.score, b.blend, b.floor)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10**6), which=st.sampled_from(sorted(PROFILES)), prune=st.booleans(), data=st.data())
def test_the_fused_lexical_evidence_equals_a_lexical_pass(seed: int, which: str, prune: bool,
                                                           data: st.DataObject) -> None:
    rng = random.Random(seed)
    rules = [random_rule(rng) for _ in range(data.draw(st.integers(1, 8)))]
    views = [TrajectoryViews.from_record(random_record(rng)) for _ in range(data.draw(st.integers(1, 20)))]
    cos = np.array(data.draw(st.lists(COSINE, min_size=len(rules) * len(views), max_size=len(rules) * len(views))))
    semantic = PROFILES[which]
    lexical = replace(semantic, semantic=False)
    fused = score_matrix(rules, index_views(views, prune=prune), semantic, cos.reshape(len(rules), len(views)),
                         lexical=lexical).lexical_evidence
    assert fused is not None and fused.dtype == np.float64
    assert np.array_equal(fused, _second_pass(rules, views, lexical, prune))


def test_no_lexical_evidence_is_made_unless_asked() -> None:
    rng = random.Random(3)
    rules, views = [random_rule(rng)], [TrajectoryViews.from_record(random_record(rng))]
    assert score_matrix(rules, index_views(views), PROFILES["reference"], np.zeros((1, 1))).lexical_evidence is None
