"""The effective ground truth: adjudicated label, else the reviewer's own, else the imported rule."""

from __future__ import annotations

from test_labels_support import Builder, labels_store  # noqa: F401  (fixture)

from core.agreement.team import adjudicate
from core.domain.labels import LabelText
from core.labels.service import save_label
from core.store.engine import Store
from core.store.label_repo import LabelRepository


def test_precedence_imported_then_own_label_then_adjudication(labels_store: Store) -> None:
    b = Builder(labels_store)
    (pk,) = b.trajectories("T1", expected_rule="when x fails, retry")
    (bare,) = b.trajectories("T2")
    repo = LabelRepository(labels_store)
    assert repo.ground_truth(pk, "ana").source == "imported"
    assert repo.ground_truth(pk, "ana").sentence == "when x fails, retry"
    none = repo.ground_truth(bare, "ana")
    assert (none.source, none.sentence, none.measurable) == ("none", None, False)

    save_label(labels_store, pk, "ana", LabelText("x fails with a timeout", "retry with backoff"))
    assert repo.ground_truth(pk, "ana").sentence == "when x fails with a timeout, retry with backoff"
    assert repo.ground_truth(pk, "bo").source == "imported"  # Bo has no label of his own

    save_label(labels_store, pk, "bo", LabelText("x times out", "raise the timeout"))
    assert repo.ground_truth(pk).conflicting  # no reviewer named and they disagree
    assert repo.ground_truth(pk).source == "imported"

    adjudicate(labels_store, "lead", pk, "bo", reason="the timeout is configurable; retrying does not help")
    for reviewer in ("ana", "bo", None):
        truth = repo.ground_truth(pk, reviewer)
        assert (truth.source, truth.sentence) == ("adjudicated", "when x times out, raise the timeout")
    # The labels themselves are untouched and the ruling is kept as history.
    assert {lb.reviewer for lb in repo.labels_for(pk)} == {"ana", "bo"}
    adjudicate(labels_store, "lead", pk, LabelText("x times out", "raise the timeout to 60 s"), reason="exact value")
    assert [a.chosen_reviewer for a in repo.adjudications(pk)] == ["bo", None]
    assert repo.ground_truth(pk).sentence == "when x times out, raise the timeout to 60 s"


def test_agreeing_labels_count_without_naming_a_reviewer(labels_store: Store) -> None:
    (pk,) = Builder(labels_store).trajectories("T1")
    repo = LabelRepository(labels_store)
    save_label(labels_store, pk, "ana", LabelText("a", "b"))
    save_label(labels_store, pk, "bo", LabelText("a", "b"))
    truth = repo.ground_truth(pk)
    assert (truth.source, truth.sentence, truth.conflicting) == ("label", "when a, b", False)


def test_an_empty_label_means_no_rule_expected(labels_store: Store) -> None:
    (pk,) = Builder(labels_store).trajectories("T1", expected_rule="when a, b")
    repo = LabelRepository(labels_store)
    save_label(labels_store, pk, "ana", LabelText("", ""))
    truth = repo.ground_truth(pk, "ana")
    assert (truth.source, truth.sentence, truth.measurable) == ("label", "", False)
