"""Chunks' results saved in groups (``core.replay.save_groups``): the first at once, then at
most one group per interval, every result once and in order; and a store run saves them in
fewer transactions than chunks, with the same rows."""

from __future__ import annotations

from typing import Any
from unittest import mock

from core.replay import save_groups
from core.replay.save_groups import SaveGroups


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _results(*names: str) -> list[Any]:
    return list(names)  # the grouping never looks inside a result


def test_the_first_chunk_is_saved_at_once_and_later_ones_at_most_once_per_interval() -> None:
    clock, saved = Clock(), []
    groups = SaveGroups(saved.append, interval=1.0, clock=clock)
    groups.add(_results("a"))
    assert saved == [["a"]]
    clock.now = 0.5
    groups.add(_results("b", "c"))
    groups.add(_results("d"))
    assert saved == [["a"]]  # within the interval: held
    clock.now = 1.0
    groups.add(_results("e"))
    assert saved == [["a"], ["b", "c", "d", "e"]]


def test_flush_saves_what_is_pending_once_and_nothing_when_nothing_is() -> None:
    clock, saved = Clock(), []
    groups = SaveGroups(saved.append, interval=1.0, clock=clock)
    groups.add(_results("a"))
    groups.add(_results("b"))
    groups.flush()
    groups.flush()
    assert saved == [["a"], ["b"]] and groups.groups == 2


def test_a_group_never_holds_more_than_the_bound() -> None:
    saved: list[list[Any]] = []
    groups = SaveGroups(saved.append, interval=1e9, clock=Clock())
    with mock.patch.object(save_groups, "MAX_GROUP_RESULTS", 3):
        for name in "abcdefg":
            groups.add(_results(name))
    assert saved == [["a"], ["b", "c", "d"], ["e", "f", "g"]]


def test_a_store_run_saves_its_chunks_in_fewer_transactions_with_the_same_rows(tmp_path: Any,
                                                                                shared_corpus: Any) -> None:
    from dataclasses import asdict

    from core.importing import import_paths
    from core.replay import engine
    from core.replay.profiles import WORKBENCH
    from core.replaying import materialise_expected_rules, run_replay
    from core.store.engine import open_store
    from core.store.replay_repo import ReplayRepository

    store = open_store(tmp_path / "s.sqlite")
    try:
        import_paths(store, [shared_corpus])
        materialise_expected_rules(store)
        repo = ReplayRepository(store)
        real_save = ReplayRepository.save_results
        stored, saves = [], []
        for interval in (0.0, 1e9):  # every chunk its own transaction; the first, then all the rest
            calls: list[int] = []

            def counted(self: Any, run_id: int, results: Any, *args: Any, **kwargs: Any) -> None:
                calls.append(len(results))
                real_save(self, run_id, results, *args, **kwargs)

            with mock.patch.object(engine, "TARGET_PAIRS_PER_CHUNK", 4 * 358), \
                    mock.patch.object(save_groups, "SAVE_INTERVAL_S", interval), \
                    mock.patch.object(ReplayRepository, "save_results", counted):
                summary = run_replay(store, WORKBENCH.with_(semantic=False), workers=1)
            assert summary.status == "complete"
            saves.append(calls)
            stored.append([({k: v for k, v in asdict(r).items() if k not in ("id", "run_id")}, repo.outcomes(r.id))
                           for r in repo.results(summary.run_id)])
        assert stored[0] == stored[1] and len(stored[0]) > 100
        assert len(saves[0]) > 20 and len(saves[1]) == 2 and sum(saves[0]) == sum(saves[1])
    finally:
        store.close()
