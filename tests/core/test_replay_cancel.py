"""A run cancelled mid-way through the store returns at once and never looks complete."""

from __future__ import annotations

import threading
from pathlib import Path
from unittest import mock

from core.importing import import_paths
from core.replay import save_groups
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
        chunks: list[int] = []

        def on_results(results: object) -> None:
            chunks.append(1)
            if len(chunks) == 2:  # a few rules saved, most of the run still to go
                cancel.set()

        # Every chunk saved on its own (as a run slower than this small one saves them): the
        # cancel lands after the second chunk, not after a group of all the others.
        with mock.patch.object(save_groups, "SAVE_INTERVAL_S", 0.0):
            summary = run_replay(store, WORKBENCH.with_(semantic=False), include_expected_rules=False,
                                 cancel=cancel, on_results=on_results)
        # Counted in chunks, not seconds: no chunk is scored after the cancel (the seconds from a
        # cancel to the return are benchmarks/cancel_drill.py's figure).
        assert len(chunks) == 2, f"{len(chunks) - 2} chunks were saved after the cancel"
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

    def is_set(self) -> bool:
        self.asked += 1
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
            assert summary.status == "cancelled", n
            # "At once" as work, not seconds: the run stops at the check that saw the cancel,
            # give or take the one more check of the loop it was in.
            assert token.asked <= n + 1, (n, token.asked)
            run = repo.get_run(summary.run_id)
            assert run is not None and run.status == "cancelled", n
            asked.append(token.asked)
        assert repo.latest_complete_run() is None
        assert len(set(asked)) > 5  # the cancels landed at different checks
    finally:
        store.close()
