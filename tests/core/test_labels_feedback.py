"""Live feedback: the label being typed, scored against the candidates extracted from that trajectory."""

from __future__ import annotations

import numpy as np
from test_labels_support import Builder, labels_store  # noqa: F401  (fixture)

from core.domain.labels import LabelText
from core.labels.feedback import label_feedback
from core.store.engine import Store


def _setup(store: Store) -> int:
    b = Builder(store)
    pk, _other = b.trajectories("T1", "T2")
    b.rule("cand", "when git push is rejected as non-fast-forward", "pull --rebase then push", source="T1")
    b.rule("std", "when the deploy token expired", "refresh the token", source="T1", kind="standing")
    b.rule("gold", "when git push is rejected as non-fast-forward", "x", source="T1", kind="expected_rule")
    b.rule("elsewhere", "when git push is rejected as non-fast-forward", "y", source="T2")
    return pk


def test_scores_each_candidate_of_this_trajectory_only(labels_store: Store) -> None:
    pk = _setup(labels_store)
    feedback = label_feedback(labels_store, pk, LabelText("git push is rejected as non-fast-forward",
                                                          "pull --rebase then push"))
    by_origin = {c.origin: c for c in feedback.candidates}
    assert set(by_origin) == {"cand", "std"}  # not the expected_rule copy, not another trajectory's rule
    good, other = by_origin["cand"], by_origin["std"]
    assert good.token_f1 == 1.0 and good.directive_f1 == 1.0 and good.token_agree and good.agreement
    assert other.token_f1 == 0.0 and not other.agreement
    # No embedding model: semantic is unmeasured (None), agreement is the lexical-mode comparator.
    assert good.semantic_f1 is None and good.agreement_basis == "lexical"
    assert feedback.semantic_state == "unavailable"
    assert feedback.sentence == "when git push is rejected as non-fast-forward, pull --rebase then push"


def test_an_acceptable_variant_can_be_the_best_match(labels_store: Store) -> None:
    pk = _setup(labels_store)
    text = LabelText("the remote has commits we lack", "integrate them first",
                     variants=("when git push is rejected as non-fast-forward, pull --rebase then push",))
    cand = next(c for c in label_feedback(labels_store, pk, text).candidates if c.origin == "cand")
    assert cand.matched_phrasing == 1 and cand.agreement and cand.token_f1 == 1.0


def test_with_an_embedder_semantic_f1_is_measured(labels_store: Store) -> None:
    pk = _setup(labels_store)

    def embed(texts: list[str]) -> np.ndarray:  # every text points the same way: cosine 1
        return np.tile(np.array([1.0, 0.0]), (len(texts), 1))

    feedback = label_feedback(labels_store, pk, LabelText("the deploy token expired", "refresh it"), embed=embed)
    assert feedback.semantic_state == "on"
    assert all(c.semantic_f1 is not None and c.agreement_basis == "semantic" for c in feedback.candidates)


def test_no_candidates_is_said_not_scored(labels_store: Store) -> None:
    (pk,) = Builder(labels_store).trajectories("T9")
    feedback = label_feedback(labels_store, pk, LabelText("a", "b"))
    assert feedback.candidates == () and feedback.note and "no candidate" in feedback.note
