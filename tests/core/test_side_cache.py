"""The trajectory side kept in the store: a new process's first replay reads it instead of
building it, gets exactly the results of a fresh build, misses it whenever the records, the
view options or the trajectories' fields change, and rebuilds (and replaces) an entry that
cannot be read. On both back ends."""

from __future__ import annotations

import copy
import hashlib
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import text

from core.importing import import_paths
from core.replay import engine, view_cache
from core.replay.engine import replay
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH
from core.replaying import load_inputs, materialise_expected_rules, run_replay
from core.store import side_cache_repo
from core.store.engine import Store, open_store
from core.store.outcome_reads import result_block
from core.store.replay_repo import ReplayRepository
from core.store.side_cache_repo import SideCacheRepository, StoredSides, keep_side

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


class TopicEmbed:
    """Deterministic: texts sharing their first three characters get the same unit vector."""

    model_id = "topic-test"

    def __call__(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, hashlib.sha256(t[:3].encode()).digest()[0] % 64] = 1.0
        return out


@pytest.fixture()
def store(store_location: Path | str) -> Store:
    opened = open_store(store_location)
    import_paths(opened, [DEMO])
    materialise_expected_rules(opened)
    view_cache.clear()  # each test starts as a new process would
    yield opened
    opened.close()
    view_cache.clear()


@pytest.fixture()
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many trajectory sides were built (the real build runs; each call is counted)."""
    calls: list[int] = []
    real = engine.build_trajectory_side

    def counted(trajectories: Any, *args: Any) -> Any:
        calls.append(len(trajectories))
        return real(trajectories, *args)

    monkeypatch.setattr(engine, "build_trajectory_side", counted)
    return calls


_COLUMNS = ("trajectory_pk", "bucket", "score", "token_f1", "bigram", "cosine", "view", "floor", "threshold", "margin")


def _stored_run(store: Store, run_id: int) -> list[tuple[Any, ...]]:
    """Every result field the store keeps and every outcome row a reader gets, per rule."""
    out = []
    with store.read_session() as session:
        for r in ReplayRepository(store).results(run_id):
            rows = sorted(tuple(row[c] for c in _COLUMNS) for row in result_block(session, r.id).rows())
            fields = {k: v for k, v in vars(r).items() if k not in ("id", "run_id")}
            out.append((sorted(fields.items()), rows))
    return sorted(out, key=repr)


def _results(out: Any) -> list[Any]:
    return list(out.results)  # RuleResult: every field, the outcomes included


def test_the_first_replay_after_an_import_reads_the_side_from_the_store(store: Store, builds: list[int]) -> None:
    assert len(SideCacheRepository(store).keys()) == 1  # written by the import
    warm = run_replay(store, REFERENCE_0_3_1)
    assert builds == []
    view_cache.clear()
    side_cache_repo_keys = SideCacheRepository(store).keys()
    with store.session() as session:
        session.execute(text("DELETE FROM replay_side_cache"))
    fresh = run_replay(store, REFERENCE_0_3_1)
    assert builds == [len(warm.inputs.trajectories)]
    assert SideCacheRepository(store).keys() == side_cache_repo_keys  # kept again after the run
    assert _stored_run(store, warm.run_id) == _stored_run(store, fresh.run_id)
    assert [(r.rule_key, r.verdict, r.reason, r.precision, r.recall) for r in warm.results] == [
        (r.rule_key, r.verdict, r.reason, r.precision, r.recall) for r in fresh.results]


@pytest.mark.parametrize("profile", [REFERENCE_0_3_1, WORKBENCH], ids=["lexical", "semantic"])
def test_a_replay_through_the_stored_side_equals_a_fresh_build(store: Store, builds: list[int], profile: Any) -> None:
    inputs = load_inputs(store)
    embed = TopicEmbed() if profile.semantic else None
    loaded = replay(inputs.rules, inputs.trajectories, profile, embed=embed,
                    side_store=StoredSides(store, inputs.trajectories))
    assert builds == []  # the import's entry was used
    view_cache.clear()
    fresh = replay(inputs.rules, inputs.trajectories, profile, embed=embed)
    assert builds == [len(inputs.trajectories)]
    assert loaded.semantic_state == fresh.semantic_state == ("on" if profile.semantic else "off")
    assert _results(loaded) == _results(fresh)
    assert sum(len(r.outcomes) for r in loaded.results) > 0


def _trajectories_changed(store: Store, how: str) -> list[Any]:
    ts = list(load_inputs(store).trajectories)
    i = next(i for i, t in enumerate(ts) if not t.success)
    if how == "record":  # the record's hash is computed again from the changed record
        record = {**copy.deepcopy(ts[i].record), "task": str(ts[i].record.get("task", "")) + " and the disk filled up"}
        ts[i] = replace(ts[i], record=record, record_hash=None)
    elif how == "field":
        ts[i] = replace(ts[i], domain="elsewhere")
    return ts


@pytest.mark.parametrize("how", ["record", "field", "option"])
def test_a_change_misses_the_stored_side(store: Store, builds: list[int], how: str) -> None:
    ts = _trajectories_changed(store, how)
    sides = StoredSides(store, ts)
    out = replay(load_inputs(store).rules, ts, REFERENCE_0_3_1, side_store=sides,
                 prune=True if how == "option" else None)
    assert builds == [len(ts)]
    assert sides.save_pending()
    assert len(SideCacheRepository(store).keys()) == 2  # the import's entry and this one
    view_cache.clear()
    again = replay(load_inputs(store).rules, ts, REFERENCE_0_3_1, side_store=StoredSides(store, ts),
                   prune=True if how == "option" else None)
    assert builds == [len(ts)]  # the new entry is read back
    assert _results(again) == _results(out)


def _damage(store: Store, how: str) -> None:
    with store.read_session() as session:
        blob = bytes(session.execute(text("SELECT data FROM replay_side_cache")).scalar_one())
    damaged = {
        "truncated": blob[: len(blob) // 2],
        "corrupted": blob[:-40] + bytes(b ^ 0x55 for b in blob[-40:]),
        "version": blob.replace(b'"format": 1', b'"format": 9', 1),
        "garbage": b"\x80\x04\x95 not a side at all",
    }[how]
    assert damaged != blob
    with store.session() as session:
        session.execute(text("UPDATE replay_side_cache SET data = :d"), {"d": damaged})


@pytest.mark.parametrize("how", ["truncated", "corrupted", "version", "garbage"])
def test_an_unreadable_entry_is_rebuilt_and_replaced(
    store: Store, builds: list[int], how: str, caplog: pytest.LogCaptureFixture,
) -> None:
    expected = replay(load_inputs(store).rules, load_inputs(store).trajectories, REFERENCE_0_3_1)
    view_cache.clear()
    builds.clear()
    _damage(store, how)
    with caplog.at_level(logging.WARNING, logger="core.store.side_cache_repo"):
        summary = run_replay(store, REFERENCE_0_3_1)
    assert summary.status == "complete" and builds == [len(summary.inputs.trajectories)]
    assert "ignored" in caplog.text
    view_cache.clear()
    again = replay(summary.inputs.rules, summary.inputs.trajectories, REFERENCE_0_3_1,
                   side_store=StoredSides(store, summary.inputs.trajectories))
    assert builds == [len(summary.inputs.trajectories)]  # the replaced entry is read
    assert _results(again) == _results(expected)


def test_the_store_keeps_a_bounded_number_of_entries(store: Store) -> None:
    ts = load_inputs(store).trajectories
    written = []
    for n in range(1, side_cache_repo.MAX_STORED + 4):  # n = 0 is the import's entry
        subset = ts[: len(ts) - n]
        assert keep_side(store, subset)
        written.append(SideCacheRepository(store).keys()[-1])
    assert SideCacheRepository(store).keys() == written[-side_cache_repo.MAX_STORED:]


def test_a_set_larger_than_the_memory_cache_bound_is_not_kept(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    ts = load_inputs(store).trajectories
    monkeypatch.setattr(view_cache, "MAX_TRAJECTORIES", len(ts) - 1)
    with store.session() as session:
        session.execute(text("DELETE FROM replay_side_cache"))
    assert not keep_side(store, ts)
    run_replay(store, REFERENCE_0_3_1)
    assert SideCacheRepository(store).keys() == []
