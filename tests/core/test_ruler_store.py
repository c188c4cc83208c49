"""The ruler on a real store (the demo corpus, replayed lexically): every metric the product
reports has a report with a floor, store-built canaries, mutation drops and honest flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.importing import import_paths
from core.metrics.ruler import check_ruler
from core.metrics.ruler.store_rows import build_rows
from core.replay.profiles import WORKBENCH
from core.replaying import materialise_expected_rules, run_replay
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store, open_store

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"
METRICS = {"match_decision", "token_f1", "semantic_f1", "agreement", "directive_f1",
           "human_vs_replay.agreement", "human_vs_replay.kappa"}


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = open_store(tmp_path_factory.mktemp("ruler") / "s.sqlite")
    import_paths(store, [DEMO])
    materialise_expected_rules(store)
    run_replay(store, WORKBENCH.with_(semantic=False))
    return store


@pytest.fixture(scope="module")
def suite(demo_store: Store):  # type: ignore[no-untyped-def]
    return check_ruler(demo_store)


def test_every_reported_metric_has_a_ruler_report_with_a_measured_floor(suite) -> None:  # type: ignore[no-untyped-def]
    assert {r.metric for r in suite.reports} == METRICS
    for r in suite.reports:
        assert r.n_rows > 0, r.metric
        assert r.floor.value is not None and r.floor.n == r.n_rows, r.metric
        assert r.mutations and r.canaries, r.metric
        r.as_metric()  # displayable: has its floor
    assert suite.semantic == "off"
    json.dumps(suite.to_dict())


def test_floors_sit_well_below_the_correct_rows(suite) -> None:  # type: ignore[no-untyped-def]
    for metric in ("match_decision", "token_f1", "semantic_f1", "agreement", "directive_f1"):
        r = suite.report(metric)
        assert r.floor.value < 0.25 < r.value, (metric, r.floor.value, r.value)
    kappa = suite.report("human_vs_replay.kappa")
    assert kappa.value == pytest.approx(1.0) and abs(kappa.floor.value) < 0.2


def test_canaries_are_built_from_the_stores_own_data_and_by_hand(suite) -> None:  # type: ignore[no-untyped-def]
    r = suite.report("match_decision")
    sources = {c.source for c in r.canaries}
    assert sources == {"store", "hand"}
    store_kinds = {c.name.split(" (")[0] for c in r.canaries if c.source == "store"}
    assert {"other_error_class", "other_domain", "tool_swap", "case"} <= store_kinds
    assert all(c.kind == "must_fail" for c in r.canaries if c.name.startswith("other_domain"))


def test_honest_flags_on_the_demo_store(suite) -> None:  # type: ignore[no-untyped-def]
    """What the workbench comparators cannot see (docs/ruler.md reports each one)."""
    flags = {(r.metric, f.mutation) for r in suite.reports for f in r.flags}
    assert ("directive_f1", "opposite_directive") in flags
    assert ("token_f1", "tool_swap") in flags
    assert ("match_decision", "tool_swap") in flags
    assert not any(m.startswith("human_vs_replay") for m, _ in flags)
    # Nothing is over-sensitive to case, punctuation or whitespace.
    assert not {f for f in flags if f[1] in ("case", "punctuation", "whitespace")}
    # Every harmful "another domain" mutation is caught by every trigger comparator.
    for metric in ("match_decision", "token_f1", "semantic_f1", "agreement"):
        drop = next(m for m in suite.report(metric).mutations if m.mutation == "other_domain")
        assert drop.sensitivity is not None and drop.sensitivity >= 0.8, metric


def test_agreement_canaries_reject_a_constant_and_a_shuffled_rater(suite) -> None:  # type: ignore[no-untyped-def]
    kappa = {c.name: c for c in suite.report("human_vs_replay.kappa").canaries}
    assert kappa["constant rater"].passed and kappa["constant rater"].got == "fail"
    assert kappa["shuffled rater"].passed and kappa["perfect rater"].passed
    assert kappa["item order"].passed and kappa["category names"].passed
    notes = suite.report("human_vs_replay.agreement").notes
    assert any("perfect rater" in n for n in notes)  # the demo store has no judgements: said so


def test_rows_dedupe_rules_and_find_paraphrases(demo_store: Store) -> None:
    rows = build_rows(CorpusRepository(demo_store).get_trajectories())
    keys = [(r.pred.lower(), r.meta["rule"]) for r in rows.triggers]
    assert len(keys) == len(set(keys))
    assert rows.trigger_paraphrases  # hand-written paraphrases at least
    assert any("paraphrase" in n for n in rows.notes)  # the demo has no paraphrase-diversity set
