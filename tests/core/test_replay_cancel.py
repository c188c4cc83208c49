"""A run cancelled mid-way through the store returns at once and never looks complete."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from core.importing import import_paths
from core.replay.profiles import WORKBENCH
from core.replaying import run_replay
from core.store.engine import open_store
from core.store.replay_repo import ReplayRepository
from core.store.result_repo import ResultRepository
from core.store.workspace_query import WorkspaceFilter, WorkspaceScope

from benchmarks.make_scale_corpus import generate


def test_cancel_mid_run_returns_quickly_and_keeps_nothing_as_complete(tmp_path: Path, shared_corpus: Path) -> None:
    generate(1200, 240, seed=3, out=tmp_path / "corpus", source=shared_corpus)
    store = open_store(tmp_path / "s.sqlite")
    try:
        import_paths(store, [tmp_path / "corpus"])
        cancel = threading.Event()
        asked: list[float] = []
        chunks: list[int] = []

        def on_results(results: object) -> None:
            chunks.append(1)
            if len(chunks) == 2:  # a few rules saved, most of the run still to go
                cancel.set()
                asked.append(time.perf_counter())

        summary = run_replay(store, WORKBENCH.with_(semantic=False), include_expected_rules=False,
                             cancel=cancel, on_results=on_results)
        returned = time.perf_counter()
        assert asked and returned - asked[0] < 2.0
        assert summary.status == "cancelled" and summary.results == []
        assert 0 < summary.pairs < 1200 * 240
        repo = ReplayRepository(store)
        run = repo.get_run(summary.run_id)
        assert run is not None and run.status == "cancelled"
        assert repo.latest_complete_run() is None
        # The chunks saved before the cancel stay out of the rules table.
        assert ResultRepository(store).count_rules(WorkspaceScope(), WorkspaceFilter()) == 0
    finally:
        store.close()


class CancelOnQuestion:
    """A cancel token that turns set when it is asked for the ``n``-th time, so the cancel
    lands at a chosen check: while loading, hashing, indexing, or between chunks."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.asked = 0
        self.set_at: float | None = None

    def is_set(self) -> bool:
        self.asked += 1
        if self.asked >= self.n and self.set_at is None:
            self.set_at = time.perf_counter()
        return self.asked >= self.n


def test_a_cancel_at_any_check_of_a_run_returns_at_once_and_stores_no_complete_run(
    tmp_path: Path, shared_corpus: Path
) -> None:
    generate(2500, 40, seed=5, out=tmp_path / "corpus", source=shared_corpus)
    store = open_store(tmp_path / "s.sqlite")
    try:
        import_paths(store, [tmp_path / "corpus"])
        repo = ReplayRepository(store)
        asked = []
        # 2,500 trajectories: word indexes are built, every loop over them checks once or
        # twice, so questions 1..14 cover loading, hashing, views, indexes and the first chunks.
        for n in range(1, 15):
            token = CancelOnQuestion(n)
            summary = run_replay(store, WORKBENCH.with_(semantic=False), include_expected_rules=False, cancel=token)
            returned = time.perf_counter()
            assert summary.status == "cancelled", n
            assert token.set_at is not None and returned - token.set_at < 2.0, n
            run = repo.get_run(summary.run_id)
            assert run is not None and run.status == "cancelled", n
            asked.append(token.asked)
        assert repo.latest_complete_run() is None
        assert len(set(asked)) > 5  # the cancels landed at different checks
    finally:
        store.close()
