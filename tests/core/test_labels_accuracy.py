"""Extraction accuracy per corpus with labels as ground truth; no ground truth is None, never 0."""

from __future__ import annotations

from test_labels_support import Builder, labels_store  # noqa: F401  (fixture)

from core.domain.labels import LabelText
from core.labels.accuracy import corpus_accuracy
from core.labels.service import save_label
from core.store.engine import Store


def test_counts_what_it_measures_and_what_it_excludes(labels_store: Store) -> None:
    b = Builder(labels_store)
    t1, _t2, _t3, t4, t5 = b.trajectories("T1", "T2", "T3", "T4", "T5")
    b.trajectories("T6", expected_rule="when the api returns 429, back off")
    for source in ("T1", "T3", "T5", "T6"):
        b.rule(f"cand-{source}", "when the api returns 429", "back off and retry", source=source)
    save_label(labels_store, t1, "ana", LabelText("the api returns 429", "back off and retry"))
    save_label(labels_store, t4, "ana", LabelText("something", "else"))  # labelled, but nothing was extracted
    save_label(labels_store, t5, "ana", LabelText("", ""))  # no rule expected
    result = corpus_accuracy(labels_store, "c", reviewer="ana")
    acc = result.accuracy
    assert acc.n == 2  # T1 (label) and T6 (imported expected_rule)
    assert result.sources == {"label": 1, "imported": 1}
    assert (result.no_ground_truth, result.no_candidate, result.no_rule_expected) == (2, 1, 1)  # T2, T3 | T4 | T5
    assert acc.excluded == 4
    assert acc.token_f1 == 1.0 and acc.agreement.k == 2 and acc.agreement.n == 2
    assert acc.directive_f1 is not None and 0 < acc.directive_f1 <= 1
    assert acc.semantic_f1 is None and result.semantic_state == "unavailable"
    assert acc.agreement.ci is not None and acc.agreement.ci[0] < 1.0  # Wilson, not a bare 2/2


def test_a_corpus_without_ground_truth_reports_none(labels_store: Store) -> None:
    b = Builder(labels_store)
    b.trajectories("T1")
    b.rule("cand", "when x", "y", source="T1")
    acc = corpus_accuracy(labels_store, "c").accuracy
    assert acc.n == 0
    assert acc.token_f1 is None and acc.directive_f1 is None and acc.semantic_f1 is None
    assert acc.agreement.value is None and acc.agreement.ci is None
    assert acc.to_dict()["token_f1"] is None
