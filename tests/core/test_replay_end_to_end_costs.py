"""What the end-to-end replay skips to be fast, and why the results cannot change.

* The run's corpus hash is built from each record's hash; over the store that is the
  stored ``content_hash``, so a stored run and a run on the same records in memory agree,
  and a changed record changes it.
* The trajectory side (views, index, pools, recovered runs) is reused only for the very
  same trajectories: the same records with another store key, id or success flag are a
  different entry, and the results equal a fresh build's.
* The store keeps one idle connection, so a run does not checkpoint the WAL when its last
  session closes; closing the store does.
* The objects from before a run are frozen for the garbage collector during it (a full
  collection would walk them all) and released after it.
"""

from __future__ import annotations

import copy
import dataclasses
import gc
from pathlib import Path

import pytest

from core.hashing import canonical_json, sha256_text
from core.importing import import_paths
from core.replay import view_cache
from core.replay.engine import replay
from core.replay.inputs import rule_from_expected
from core.replay.profiles import REFERENCE_0_3_1
from core.replay.snapshot import corpus_hash
from core.replay.types import ReplayRule, ReplayTrajectory
from core.replaying import load_inputs, materialise_expected_rules, run_replay
from core.store.engine import Store, open_store

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    opened = open_store(tmp_path / "store.sqlite")
    import_paths(opened, [DEMO])
    materialise_expected_rules(opened)
    yield opened
    opened.close()


def _in_memory(trajectories: list[ReplayTrajectory]) -> list[ReplayTrajectory]:
    """The same trajectories as a caller without the store has them: no record hash."""
    return [dataclasses.replace(t, record=copy.deepcopy(t.record), record_hash=None) for t in trajectories]


def _summary(out: object) -> list[tuple]:
    return [(r.rule_key, r.verdict, r.reason, r.prevented, r.broken, r.near_miss, r.missed, r.precision,
             r.recall, r.recall_pool, r.precision_pool, r.outcomes)
            for r in out.results]  # type: ignore[attr-defined]


def test_stored_record_hashes_are_the_hashes_of_the_records(store: Store) -> None:
    trajectories = load_inputs(store).trajectories
    assert trajectories
    assert all(t.record_hash == sha256_text(canonical_json(t.record)) for t in trajectories)


def test_the_corpus_hash_is_the_same_from_the_store_and_from_the_records(store: Store) -> None:
    trajectories = load_inputs(store).trajectories
    assert corpus_hash(trajectories) == corpus_hash(_in_memory(trajectories))


def test_a_changed_record_changes_the_corpus_hash(store: Store) -> None:
    trajectories = _in_memory(load_inputs(store).trajectories)
    before = corpus_hash(trajectories)
    trajectories[0].record["task"] = str(trajectories[0].record.get("task", "")) + " (edited)"
    assert corpus_hash(trajectories) != before


def test_a_stored_run_records_the_corpus_hash_of_its_records(store: Store) -> None:
    summary = run_replay(store, REFERENCE_0_3_1)
    from core.store.replay_repo import ReplayRepository

    run = ReplayRepository(store).get_run(summary.run_id)
    assert run is not None
    assert run.corpus_hash == corpus_hash(_in_memory(summary.inputs.trajectories))


def _rules(trajectories: list[ReplayTrajectory]) -> list[ReplayRule]:
    return [r for t in trajectories if (r := rule_from_expected(f"r{t.key}", t)) is not None]


def test_other_keys_or_labels_beside_the_same_records_are_another_entry(store: Store) -> None:
    trajectories = _in_memory(load_inputs(store).trajectories)
    rules = _rules(trajectories)
    view_cache.clear()
    replay(rules, trajectories, REFERENCE_0_3_1)
    before = set(view_cache._entries)
    # Same records, but one success flag and every store key differ: the pool index and
    # the recovered-run mask read those, so the kept entry must not be used.
    flipped = [dataclasses.replace(t, key=t.key + 1000, success=not t.success if i == 0 else t.success)
               for i, t in enumerate(trajectories)]
    moved_rules = [dataclasses.replace(r, source_key=None if r.source_key is None else r.source_key + 1000)
                   for r in rules]
    cached = replay(moved_rules, flipped, REFERENCE_0_3_1)
    assert set(view_cache._entries) != before
    view_cache.clear()
    fresh = replay(moved_rules, flipped, REFERENCE_0_3_1)
    assert _summary(cached) == _summary(fresh)


def test_a_run_on_the_same_trajectories_reuses_the_whole_trajectory_side(store: Store) -> None:
    inputs = load_inputs(store)
    view_cache.clear()
    first = replay(inputs.rules, inputs.trajectories, REFERENCE_0_3_1)
    (entry,) = view_cache._entries.values()
    again = replay(inputs.rules, load_inputs(store).trajectories, REFERENCE_0_3_1)  # reloaded: new objects
    (kept,) = view_cache._entries.values()
    assert kept is entry
    assert _summary(again) == _summary(first)


def test_a_run_leaves_the_wal_to_sqlite_and_closing_the_store_checkpoints_it(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    opened = open_store(path)
    import_paths(opened, [DEMO])
    run_replay(opened, REFERENCE_0_3_1)
    wal = Path(f"{path}-wal")
    # Without the store's idle connection, the run's last session to close would have
    # checkpointed the WAL into the file and removed it.
    assert wal.exists() and wal.stat().st_size > 0
    opened.close()
    assert not wal.exists() or wal.stat().st_size == 0
    reopened = open_store(path)  # everything the run wrote is in the file
    from core.store.replay_repo import ReplayRepository

    assert ReplayRepository(reopened).latest_complete_run() is not None
    reopened.close()


def test_the_heap_from_before_a_run_is_frozen_during_it_and_released_after(store: Store) -> None:
    frozen: list[int] = []
    assert gc.get_freeze_count() == 0
    run_replay(store, REFERENCE_0_3_1, on_results=lambda _results: frozen.append(gc.get_freeze_count()))
    assert frozen and all(count > 0 for count in frozen)
    assert gc.get_freeze_count() == 0 and gc.isenabled()


def test_a_caller_that_froze_objects_itself_keeps_them_frozen(store: Store) -> None:
    gc.freeze()
    try:
        run_replay(store, REFERENCE_0_3_1)
        assert gc.get_freeze_count() > 0  # not unfrozen by the run (freed ones leave the count)
    finally:
        gc.unfreeze()
