"""Scoring on every core (``core.replay.parallel``): a run scored by N worker processes gives
the very results of a one-core run, in the same order; a cancel or a failing worker ends the
workers before ``replay`` returns; the worker count follows the setting and the machine."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_matching_batch import random_record, random_rule

from core.replay import engine, parallel, side_slices, view_cache
from core.replay import matcher_bridge as mb
from core.replay.inputs import trajectory_from_record
from core.replay.outcome_columns import OutcomeColumns
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH
from core.replay.types import ReplayRule, ReplayTrajectory, RuleResult

PROFILES = {
    "workbench lexical": WORKBENCH.with_(semantic=False),
    "workbench semantic": WORKBENCH,
    "reference semantic": REFERENCE_0_3_1.with_(semantic=True),
}
ARRAYS = ("trajectory_key", "bucket", "score", "token_f1", "bigram", "cosine", "view", "floor", "threshold", "margin")


class GivenVectors:
    """Each text gets a fixed pseudo-random vector (seeded by its hash): cosines spread over
    [-1, 1] with full float32 mantissas, so a product computed in other row groups would
    differ in its last bits."""

    model_id = "given-vectors"

    def __call__(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), 48), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            out[i] = np.random.default_rng(seed).standard_normal(48)
        return out


def _inputs(seed: int, n_rules: int, n_traj: int) -> tuple[list[ReplayRule], list[ReplayTrajectory]]:
    rng = random.Random(seed)
    trajectories = []
    for key in range(n_traj):
        record = random_record(rng)
        record["trajectory_id"] = f"T-{key % max(1, n_traj - 3)}"  # a few duplicate ids
        trajectories.append(trajectory_from_record(key, record, rng.choice(["corpus/public/golden", "other"])))
    rules = []
    for k in range(n_rules):
        text = random_rule(rng)
        source = rng.choice(trajectories)
        rules.append(ReplayRule(key=f"r{k}", trigger=text.trigger, context=text.context, signature=text.signature,
                                source_trajectory_id=source.trajectory_id, source_key=source.key,
                                domain=source.domain, corpus=source.corpus))
    return rules, trajectories


@contextmanager
def small_chunks(rules_per_cosine_block: int, n_traj: int) -> Iterator[None]:
    """Chunks of one or two rules, and cosine blocks of a few rules: a small run then has many
    units of work and several cosine blocks, as a 10^5 run has."""
    with mock.patch.object(engine, "TARGET_PAIRS_PER_CHUNK", 2 * n_traj), \
            mock.patch.object(engine, "FIRST_CHUNK_PAIRS", n_traj), \
            mock.patch.object(mb, "COSINE_PAIRS", rules_per_cosine_block * n_traj):
        yield


def _assert_identical(one: list[RuleResult], many: list[RuleResult]) -> None:
    assert [r.rule_key for r in one] == [r.rule_key for r in many]
    for a, b in zip(one, many, strict=True):
        assert isinstance(a.outcomes, OutcomeColumns) and isinstance(b.outcomes, OutcomeColumns)
        for name in ARRAYS:
            x, y = getattr(a.outcomes, name), getattr(b.outcomes, name)
            if x is None or y is None:
                assert x is None and y is None, name
                continue
            assert x.dtype == y.dtype, name
            assert x.tobytes() == y.tobytes(), (a.rule_key, name)  # bit for bit
        assert a == b  # every other field (buckets, rates, intervals, pools, verdict, reason)


def _scoring_children() -> list[Any]:
    return [p for p in multiprocessing.active_children() if p.name == "replay-scoring"]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), which=st.sampled_from(sorted(PROFILES)), workers=st.integers(2, 3),
       n_rules=st.integers(1, 14), block=st.integers(1, 6), min_slice=st.integers(1, 25))
def test_n_workers_give_every_outcome_array_and_result_of_one_worker(
    seed: int, which: str, workers: int, n_rules: int, block: int, min_slice: int,
) -> None:
    """The N-worker run also builds its trajectory side in slices (``side_slices``, up to one
    per worker) from records kept as JSON text, without views when lexical, as a large run
    over the store does."""
    rules, trajectories = _inputs(seed, n_rules, 20)
    as_text = [dataclasses.replace(t, record=json.dumps(t.record)) for t in trajectories]
    profile = PROFILES[which]
    embed = GivenVectors() if profile.semantic else None
    with small_chunks(block, len(trajectories)):
        one = engine.replay(rules, trajectories, profile, embed=embed, workers=1)
        view_cache.clear()  # built again, in slices, not taken from the one-worker run
        # ... and as a set too large for the side caches (a lexical run then keeps no views)
        with mock.patch.object(side_slices, "MIN_SLICE", min_slice), \
                mock.patch.object(view_cache, "MAX_TRAJECTORIES", len(trajectories) - 1):
            many = engine.replay(rules, as_text, profile, embed=embed, workers=workers)
    assert one.status == many.status == "complete"
    assert one.pairs == many.pairs and one.config_hash == many.config_hash
    _assert_identical(one.results, many.results)
    assert not _scoring_children()


def test_the_comparison_reaches_several_cosine_blocks_and_workers() -> None:
    """The property above is not vacuous: with its settings a semantic run has several units
    (cosine blocks), and the workers really run (their results reach ``on_results``)."""
    rules, trajectories = _inputs(7, 12, 20)
    seen: list[int] = []
    with small_chunks(5, len(trajectories)):
        cosines = mb.SemanticCosines.prepare([mb.rule_text(r) for r in rules],
                                             [mb.views_for(t.record, mb.matcher_profile(None, True)) for t in trajectories],
                                             GivenVectors(), mb.matcher_profile(None, True))
        bounds = engine.chunk_bounds(len(rules), len(trajectories))
        assert len(parallel.units_of(bounds, cosines.block_starts(bounds))) == 3
        engine.replay(rules, trajectories, WORKBENCH, embed=GivenVectors(), workers=2,
                      on_results=lambda results: seen.append(len(_scoring_children())))
    assert seen and all(n == 2 for n in seen)


def test_the_comparison_builds_the_side_in_slices_in_helper_processes() -> None:
    """The property above is not vacuous for the side either: its N-worker run forks helpers
    that build slices of the side (with ``MIN_SLICE`` under half the trajectories)."""
    rules, trajectories = _inputs(8, 3, 20)
    real = parallel.forked_calls
    helpers: list[int] = []

    def counted(here: Any, elsewhere: Any, check: Any = None) -> Any:
        helpers.append(len(elsewhere))
        return real(here, elsewhere, check)

    view_cache.clear()
    with mock.patch.object(side_slices, "MIN_SLICE", 5), mock.patch.object(parallel, "forked_calls", counted):
        engine.replay(rules, trajectories, WORKBENCH.with_(semantic=False), workers=3)
    assert helpers == [2]


def test_cosines_in_other_row_groups_are_not_bit_identical() -> None:
    """Why the workers compute cosines in the one-core run's blocks: the same cosines
    multiplied one rule at a time differ in their last bits for these vectors."""
    rules, trajectories = _inputs(3, 12, 20)
    matcher = mb.matcher_profile(None, True)
    texts = [mb.rule_text(r) for r in rules]
    views = [mb.views_for(t.record, matcher) for t in trajectories]
    whole = mb.SemanticCosines.prepare(texts, views, GivenVectors(), matcher).block(0, len(rules))
    single = mb.SemanticCosines.prepare(texts, views, GivenVectors(), matcher)
    one_by_one = np.vstack([single.block(i, i + 1) for i in range(len(rules)) if not single.forget()])
    assert np.allclose(whole, one_by_one)
    assert whole.tobytes() != one_by_one.tobytes()


def test_a_cancel_ends_every_worker_before_replay_returns() -> None:
    rules, trajectories = _inputs(11, 14, 20)
    cancel = mock.Mock()
    cancel.is_set.return_value = False
    alive: list[int] = []

    def on_results(results: list[RuleResult]) -> None:
        alive.append(len(_scoring_children()))
        cancel.is_set.return_value = True  # the first chunk is saved, then the reviewer cancels

    with small_chunks(2, len(trajectories)):
        out = engine.replay(rules, trajectories, WORKBENCH.with_(semantic=False), cancel=cancel,
                            on_results=on_results, workers=2)
    assert out.status == "cancelled" and out.results == []
    assert alive == [2]
    assert not _scoring_children()


def test_a_failing_worker_fails_the_run_with_its_traceback_and_ends_the_others() -> None:
    rules, trajectories = _inputs(5, 10, 20)
    original = engine.decide_chunk

    def decide_or_fail(chunk: Any, *args: Any) -> list[RuleResult]:
        if any(r.key == "r6" for r in chunk):
            raise ValueError("rule r6 broke the scorer")
        return original(chunk, *args)

    with small_chunks(2, len(trajectories)), mock.patch.object(engine, "decide_chunk", decide_or_fail), \
            pytest.raises(parallel.WorkerFailed, match="rule r6 broke the scorer"):
        engine.replay(rules, trajectories, WORKBENCH.with_(semantic=False), workers=2)
    assert not _scoring_children()


def test_the_worker_count_follows_the_request_the_setting_and_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(parallel.WORKERS_ENV, raising=False)
    big, small = parallel.MIN_PARALLEL_PAIRS, parallel.MIN_PARALLEL_PAIRS - 1
    assert parallel.resolve_workers(3, 10, 100) == 3  # asked for: taken as asked
    assert parallel.resolve_workers(1, big, 100) == 1
    assert parallel.resolve_workers(8, big, 2) == 2  # never more workers than units
    assert parallel.resolve_workers(None, big, 100) == min(100, parallel.machine_cores())
    assert parallel.resolve_workers(None, small, 100) == 1  # a small run stays in-process
    monkeypatch.setenv(parallel.WORKERS_ENV, "3")
    assert parallel.resolve_workers(None, small, 100) == 3
    monkeypatch.setenv(parallel.WORKERS_ENV, "many")
    assert parallel.resolve_workers(None, small, 100) == 1


def test_a_store_run_on_two_workers_stores_what_a_one_core_run_stores(tmp_path: Any, shared_corpus: Any) -> None:
    """Through ``run_replay`` (the one writer saving each chunk as the workers send it): the
    same results and the same evidence rows, rule for rule, as a one-core run."""
    from dataclasses import asdict

    from core.importing import import_paths
    from core.replaying import materialise_expected_rules, run_replay
    from core.store.engine import open_store
    from core.store.replay_repo import ReplayRepository

    store = open_store(tmp_path / "s.sqlite")
    try:
        import_paths(store, [shared_corpus])
        materialise_expected_rules(store)
        repo = ReplayRepository(store)
        stored = []
        for workers in (1, 2):
            summary = run_replay(store, WORKBENCH.with_(semantic=False), workers=workers)
            assert summary.status == "complete"
            stored.append([({k: v for k, v in asdict(r).items() if k not in ("id", "run_id")}, repo.outcomes(r.id))
                           for r in repo.results(summary.run_id)])
        assert stored[0] == stored[1] and len(stored[0]) > 100
    finally:
        store.close()


def test_replay_workers_on_the_command_line(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """``replay --workers N``: the same answers as one core; a count that is not a whole number
    from 1 up is refused in one line, before any run."""
    import json
    from pathlib import Path

    from core.cli import main

    store = str(tmp_path / "s.sqlite")
    main(["import", str(Path(__file__).resolve().parents[2] / "corpora" / "demo"), "--store", store])
    answers = []
    for workers in ("1", "2"):
        capsys.readouterr()
        assert main(["replay", "--store", store, "--no-semantic", "--from-expected-rule", "--json",
                     "--workers", workers]) == 0
        answers.append(json.loads(capsys.readouterr().out)["rules"])
    assert answers[0] == answers[1] and answers[0]
    for bad in ("0", "-2", "two"):
        with pytest.raises(SystemExit) as stop:
            main(["replay", "--store", store, "--workers", bad])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "--workers: expected a whole number of processes from 1 up" in err and "Traceback" not in err


def test_a_process_with_other_threads_scores_in_process() -> None:
    """A forked child keeps the locks other threads held (logging's, the store's, Qt's): a run
    started while this process has another thread (the window's job pool) does not fork, and
    still gives the same results."""
    import threading

    rules, trajectories = _inputs(21, 10, 20)
    profile = WORKBENCH.with_(semantic=False)
    seen: list[int] = []
    outputs: list[Any] = []
    with small_chunks(2, 20):
        expected = engine.replay(rules, trajectories, profile, workers=1)
        assert parallel.resolve_workers(2, 10**9, 10) == 2
        thread = threading.Thread(target=lambda: outputs.append(engine.replay(
            rules, trajectories, profile, workers=2, on_results=lambda r: seen.append(len(_scoring_children())))))
        thread.start()
        thread.join()
    assert seen and set(seen) == {0}
    _assert_identical(expected.results, outputs[0].results)
