"""Replay over the store: runs are saved with their evidence, and never half-complete."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlalchemy import text

from core.importing import import_paths
from core.replay.engine import replay
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH
from core.replaying import materialise_expected_rules, pair_spans, run_replay
from core.store.engine import Store, open_store
from core.store.outcome_reads import bucket_counts, result_block
from core.store.replay_repo import ReplayRepository

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture()
def store(store_location: Path | str) -> Store:
    opened = open_store(store_location)  # on each back end
    import_paths(opened, [DEMO])
    yield opened
    opened.close()


def test_a_run_is_stored_complete_with_its_configuration(store: Store) -> None:
    summary = run_replay(store, REFERENCE_0_3_1)
    run = ReplayRepository(store).get_run(summary.run_id)
    assert run is not None and run.status == "complete"
    assert run.config["profile"] == "reference-0.3.1" and run.corpus_hash
    assert run.results == len(summary.results) == 8


def test_evidence_rows_carry_highlight_spans_into_the_record(store: Store) -> None:
    summary = run_replay(store, REFERENCE_0_3_1)
    repo = ReplayRepository(store)
    result = next(r for r in repo.results(summary.run_id) if r.origin.endswith("C-01-git-push-non-ff.yaml"))
    prevented = repo.outcomes(result.id, "prevented")
    assert prevented and all(o.spans for o in prevented)
    field, start, end, _kind = prevented[0].spans[0]
    assert field in {"task", "failure_class", "failure_point"} or field.startswith("steps[")
    assert 0 <= start < end


def test_results_are_reported_as_they_finish(store: Store) -> None:
    materialise_expected_rules(store)
    batches: list[int] = []
    run_replay(store, REFERENCE_0_3_1, on_results=lambda results: batches.append(len(results)))
    assert sum(batches) > 8


def test_a_cancelled_run_is_stored_as_cancelled(store: Store) -> None:
    cancel = threading.Event()
    cancel.set()
    summary = run_replay(store, REFERENCE_0_3_1, cancel=cancel)
    assert summary.status == "cancelled"
    assert ReplayRepository(store).latest_complete_run() is None


def test_workbench_profile_without_a_model_says_semantic_is_unavailable(store: Store) -> None:
    summary = run_replay(store, WORKBENCH, embedder=None, semantic_note="no model in this test")
    repo = ReplayRepository(store)
    run = repo.get_run(summary.run_id)
    assert run is not None and run.semantic_state == "unavailable"
    stored = [o for r in repo.results(summary.run_id) for o in repo.outcomes(r.id)]
    assert stored and all(o.cosine is None for o in stored)


def test_lazy_spans_equal_the_scalar_explanation_of_every_evidence_pair(store: Store) -> None:
    """The run stores no spans; the ones explained on demand are exactly what the scalar
    path gives for the pair (what runs used to store)."""
    summary = run_replay(store, REFERENCE_0_3_1)
    engine = replay(summary.inputs.rules, summary.inputs.trajectories, REFERENCE_0_3_1)
    expected = pair_spans(engine.results, summary.inputs, REFERENCE_0_3_1, semantic_on=False)
    repo = ReplayRepository(store)
    key_of = {r.rule_version_id: str(r.rule_version_id) for r in repo.results(summary.run_id)}
    seen = 0
    for result in repo.results(summary.run_id):
        for outcome in repo.outcomes(result.id):
            assert outcome.stored_spans is None
            want = [tuple(x) for x in expected[(key_of[result.rule_version_id], outcome.trajectory_pk)]]
            assert list(outcome.spans) == want
            seen += 1
    assert seen > 0


def test_saved_outcomes_equal_the_engine_outcomes(store: Store) -> None:
    summary = run_replay(store, REFERENCE_0_3_1)
    engine = replay(summary.inputs.rules, summary.inputs.trajectories, REFERENCE_0_3_1)
    repo = ReplayRepository(store)
    by_version = {r.rule_version_id: r for r in repo.results(summary.run_id)}
    assert [r.rule_key for r in summary.results] == [r.rule_key for r in engine.results]
    assert all(r.outcomes == () for r in summary.results)  # in the store, not in memory
    for result in engine.results:
        stored = by_version[summary.inputs.version_by_key[result.rule_key]]
        rows = {(o.trajectory_pk, o.bucket, o.score, o.view, o.floor, o.margin) for o in repo.outcomes(stored.id)}
        assert rows == {(o.trajectory_key, o.bucket, o.score, o.view, o.floor, o.margin) for o in result.outcomes}
        assert (stored.verdict, stored.prevented_n, stored.missed_n) == (
            result.verdict, len(result.prevented), len(result.missed))


_COLUMNS = ("trajectory_pk", "bucket", "score", "token_f1", "bigram", "cosine", "view", "floor", "threshold", "margin")


def _view_rows(store: Store, result_id: int) -> list[tuple[object, ...]]:
    """Every row a reader gets (stored block plus derived rows), every column."""
    with store.session() as session:
        return sorted(tuple(r[c] for c in _COLUMNS) for r in result_block(session, result_id).rows())


@pytest.mark.parametrize("profile", [REFERENCE_0_3_1, WORKBENCH.with_(semantic=False)], ids=["reference", "workbench"])
def test_derived_missed_rows_read_exactly_like_stored_ones(store: Store, profile: object) -> None:
    """Score-0 missed pairs are derived from the pool stored once per rule; every reader
    (they all read through ``outcome_reads``) gets the rows a full store would hold."""
    materialise_expected_rules(store)
    derived = run_replay(store, profile, derive_missed=True)  # type: ignore[arg-type]
    full = run_replay(store, profile, derive_missed=False)  # type: ignore[arg-type]
    repo = ReplayRepository(store)
    pairs = list(zip(repo.results(derived.run_id), repo.results(full.run_id)))
    assert pairs and all(a.rule_version_id == b.rule_version_id for a, b in pairs)
    for a, b in pairs:
        assert _view_rows(store, a.id) == _view_rows(store, b.id)
        assert [o.trajectory_pk for o in repo.outcomes(a.id, "missed")] == [
            o.trajectory_pk for o in repo.outcomes(b.id, "missed")]
    with store.session() as session:
        def stored(run_id: int) -> int:
            return int(session.execute(text(
                "SELECT coalesce(sum(b.n), 0) FROM replay_outcome_block b JOIN replay_result r ON r.id = b.result_id "
                "WHERE r.run_id = :r"), {"r": run_id}).scalar() or 0)
        missed = sum(bucket_counts(session, r.id).get("missed", 0) for r in repo.results(derived.run_id))
        assert missed > 0 and stored(derived.run_id) <= stored(full.run_id) - missed // 2
