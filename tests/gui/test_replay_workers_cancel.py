"""The window's replay child with scoring workers (issue 27): a cancel from the window reaches
the workers. The child turns SIGTERM into a cooperative cancel; the workers it forked must not
inherit that handler and keep scoring: they are ended, and the run is kept as cancelled."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.importing import import_paths
from core.replay.messages import Finished, Progress, RunReplay
from core.replay.parallel import WORKERS_ENV
from core.store.engine import open_store
from core.store.replay_repo import ReplayRepository

from benchmarks.make_scale_corpus import generate
from cauterule_gui.jobs.replay_process import ReplayProcess
from cauterule_gui.jobs.runner import CancelEvent


@pytest.fixture(scope="module")
def scale_store(tmp_path_factory: pytest.TempPathFactory, shared_corpus: Path) -> Path:
    """3,000 trajectories x 160 rules: a lexical run of about 16 chunks of ten rules."""
    folder = tmp_path_factory.mktemp("workers_cancel")
    generate(3000, 160, seed=4, out=folder / "corpus", source=shared_corpus)
    store = open_store(folder / "s.sqlite")
    try:
        import_paths(store, [folder / "corpus"])
    finally:
        store.close()
    return folder / "s.sqlite"


@pytest.fixture
def process(monkeypatch: pytest.MonkeyPatch) -> Iterator[ReplayProcess]:
    monkeypatch.setenv(WORKERS_ENV, "2")  # the child inherits the window's environment
    made = ReplayProcess()
    yield made
    made.stop()


def _children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _ended(pid: int) -> bool:
    """The process is gone (or a zombie waiting to be reaped: it runs no more code)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_a_cancel_from_the_window_ends_the_scoring_workers_and_keeps_the_run_cancelled(
    qtbot: Any, scale_store: Path, process: ReplayProcess,
) -> None:
    cancel = CancelEvent()
    workers: list[int] = []
    finished: list[Finished] = []
    request = RunReplay(str(scale_store), "workbench", False, None, False, "test")
    with process.lease() as child:
        for reply in child.replies(request, cancel):
            if isinstance(reply, Progress) and reply.unit == "pairs" and not cancel.is_set():
                workers.extend(_children(child.pid))  # the first chunk is saved: the workers are busy
                cancel.set()  # what the window's Cancel does (the job's cancel event)
            if isinstance(reply, Finished):
                finished.append(reply)
    assert len(workers) == 2
    qtbot.waitUntil(lambda: all(_ended(pid) for pid in workers), timeout=15_000)
    assert finished and finished[0].status == "cancelled"
    assert 0 < finished[0].pairs < 3000 * 160
    store = open_store(scale_store)
    try:
        run = ReplayRepository(store).get_run(finished[0].run_id)
        assert run is not None and run.status == "cancelled"
    finally:
        store.close()
