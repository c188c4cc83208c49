"""The metric registry: each extraction metric declared once, and what lists metrics reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.importing import import_paths
from core.metrics.extraction import ExtractionPair, measure
from core.metrics.registry import EXTRACTION_METRICS, RULER_METRICS, metric, metric_keys
from core.metrics.ruler import comparators
from core.replay.profiles import WORKBENCH
from core.replaying import materialise_expected_rules, run_replay
from core.report import build_report, report_markdown
from core.store.engine import Store, open_store

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"
PAIRS = [ExtractionPair("editing a config file", "back it up first", "when editing a config file, back it up")]


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = open_store(tmp_path_factory.mktemp("registry") / "s.sqlite")
    import_paths(store, [DEMO])
    materialise_expected_rules(store)
    run_replay(store, WORKBENCH.with_(semantic=False))
    return store


def test_each_metric_is_declared_once() -> None:
    keys = metric_keys()
    assert len(keys) == len(set(keys)) == 5
    assert set(keys) == {"token_f1", "semantic_f1", "directive_f1", "token_agree", "agreement"}
    assert len({m.label for m in EXTRACTION_METRICS}) == len(keys)


def test_only_the_meaning_metrics_need_the_model() -> None:
    assert {m.key for m in EXTRACTION_METRICS if m.needs_model} == {"semantic_f1", "agreement"}


def test_an_unknown_metric_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="token_f1, semantic_f1"):
        metric("bleu")


def test_the_aggregate_has_one_value_per_registered_metric_in_its_order() -> None:
    out = measure(PAIRS).to_dict()
    assert [k for k in out if k not in ("n", "excluded")] == list(metric_keys())
    for m in EXTRACTION_METRICS:
        assert isinstance(out[m.key], dict) == (m.aggregate == "rate"), m.key


def test_null_rule_nothing_measurable_is_none_for_every_metric() -> None:
    out = measure([ExtractionPair("t", "d", None)]).to_dict()
    for m in EXTRACTION_METRICS:
        value = out[m.key]["value"] if m.aggregate == "rate" else out[m.key]
        assert value is None, m.key


def test_the_ruler_comparators_carry_the_registry_names() -> None:
    made = [comparators.token_f1_comparator(), comparators.semantic_f1_comparator(),
            comparators.directive_f1_comparator(), comparators.agreement_comparator()]
    assert [(c.name, c.label) for c in made] == [
        (metric(k).key, metric(k).ruler_label) for k in ("token_f1", "semantic_f1", "directive_f1", "agreement")]
    assert {c.name for c in made} == {m.key for m in RULER_METRICS}


def test_report_headings_come_from_the_registry(demo_store: Store) -> None:
    report = build_report(demo_store)
    text = report_markdown(report)
    heading = "| corpus | n | " + " | ".join(m.heading for m in EXTRACTION_METRICS) + " |"
    assert heading in text.splitlines()
    for acc in report["extraction_accuracy"].values():
        assert set(acc["floors"]) == set(metric_keys())
        assert [k for k in acc if k in metric_keys()] == list(metric_keys())


# The names a reader sees: the labelling table's column labels, the ruler's names and the accuracy
# table's header tooltips, written out by hand from what each metric measures.
def test_the_column_labels_each_metric_shows() -> None:
    assert [m.label for m in EXTRACTION_METRICS] == [
        "Token F1", "Semantic F1", "Directive F1", "Token agree", "Agreement"]


def test_the_names_in_the_rulers_tables() -> None:
    assert [m.ruler_label for m in EXTRACTION_METRICS] == [
        "token_f1", "semantic_f1", "directive_f1", "token_agree", "extraction agreement"]


def test_a_report_heading_is_the_metrics_json_key() -> None:
    assert [m.heading for m in EXTRACTION_METRICS] == list(metric_keys())


def test_a_mean_metrics_tooltip_says_mean_and_a_model_metric_says_what_shows_without_a_model() -> None:
    assert metric("token_f1").column_tooltip() == "mean word-overlap F1 of the triggers (surface form)"
    assert metric("semantic_f1").column_tooltip() == (
        "mean the matcher's score both ways on the triggers (meaning); — without an embedding model")
    assert metric("directive_f1").column_tooltip() == (
        "mean word-overlap F1 of the directives (the 'do' half, surface form)")


def test_a_rate_metrics_tooltip_names_its_threshold_and_the_wilson_interval() -> None:
    assert metric("token_agree").column_tooltip() == (
        "token_f1 ≥ 0.6 on the trigger: a rate, with the Wilson 95 % interval")
    assert metric("agreement").column_tooltip() == (
        "semantic_f1 ≥ 0.6 on the trigger only (J6): a rate, the headline comparator, with the Wilson 95 % interval")


def test_token_agreement_counts_a_pair_at_or_above_0_6_only() -> None:
    # {git, push, rejected} vs {git, push, fails, remote}: overlap 2, F1 = 2*(2/3)(2/4)/(2/3+2/4) = 4/7 < 0.6.
    below = measure([ExtractionPair("git push rejected", "", "when git push fails remote, pull")])
    same = measure([ExtractionPair("git push rejected", "", "when git push rejected, pull")])
    assert below.token_f1 == pytest.approx(4 / 7)
    assert (below.token_agree.k, same.token_agree.k) == (0, 1)


def test_only_the_agreement_rates_are_left_out_of_the_mean_metrics() -> None:
    from core.metrics.registry import MEAN_METRICS, RATE_METRICS

    assert [m.key for m in MEAN_METRICS] == ["token_f1", "semantic_f1", "directive_f1"]
    assert [m.key for m in RATE_METRICS] == ["token_agree", "agreement"]
    assert [m.key for m in RULER_METRICS] == ["token_f1", "semantic_f1", "directive_f1", "agreement"]


def test_a_metric_is_found_by_its_key() -> None:
    assert metric("directive_f1").label == "Directive F1"
