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
