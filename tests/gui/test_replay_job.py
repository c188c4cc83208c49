"""The replay job: a CPU-pool job that owns a replay child, reads its typed messages with a
blocking read and turns each into one signal of the job's handle; cancel terminates the child."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import build_replayed_store

from core.replay.messages import ChunkSaved, Failed, Finished, ModelState, RunReplay, Started
from core.store.engine import open_store
from core.store.replay_repo import ReplayRepository

from cauterule_gui.jobs import JobRunner
from cauterule_gui.jobs.replay_job import ReplayRequest, start_replay
from cauterule_gui.jobs.replay_process import ReplayProcess, ReplayProcessError
from cauterule_gui.jobs.runner import CancelEvent


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory, demo_corpus: Path) -> Path:
    """The demo corpus twice, candidates from every expected_rule, one lexical run: no vectors
    in the embedding cache, so a semantic replay embeds (a cold run that takes seconds)."""
    path = tmp_path_factory.mktemp("replay_job") / "demo.sqlite"
    build_replayed_store(path, [demo_corpus], copies=2)
    return path


@pytest.fixture
def store_path(tmp_path: Path, demo_store: Path) -> Path:
    import shutil

    target = tmp_path / "demo.sqlite"
    shutil.copy(demo_store, target)
    return target


@pytest.fixture
def process() -> Iterator[ReplayProcess]:
    made = ReplayProcess()
    yield made
    made.stop()


def _events(handle: Any) -> list[Any]:
    events: list[Any] = []
    handle.posted.connect(events.append)
    handle.progress.connect(lambda done, total, unit: events.append(("progress", done, total, unit)))
    return events


def _ended(pid: int) -> bool:
    """The process is gone (or a zombie waiting to be reaped: it runs no more code)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_the_run_id_arrives_before_the_first_progress(qtbot: Any, runner: JobRunner, store_path: Path,
                                                      process: ReplayProcess) -> None:
    handle = start_replay(runner, store_path, ReplayRequest("everything", "workbench", False).with_scope(), process)
    events = _events(handle)
    with qtbot.waitSignal(handle.finished, timeout=120_000):
        pass
    done = handle.value
    assert handle.outcome == "result" and isinstance(done, Finished) and done.status == "complete"
    assert isinstance(events[0], Started) and events[0].run_id == done.run_id
    progress = [e for e in events if isinstance(e, tuple)]
    assert progress and progress[-1][1] == progress[-1][2] == done.pairs
    chunks = [e for e in events if isinstance(e, ChunkSaved)]
    assert chunks and {c.run_id for c in chunks} == {done.run_id}
    assert sum(c.rules for c in chunks) == done.rules


def test_the_child_stays_warm_for_the_next_job(qtbot: Any, runner: JobRunner, store_path: Path,
                                               process: ReplayProcess) -> None:
    pids = []
    for label in ("first", "second"):
        handle = start_replay(runner, store_path, ReplayRequest(label, "workbench", False).with_scope(), process)
        handle.posted.connect(lambda message: pids.extend(process.pids) if isinstance(message, Started) else None)
        with qtbot.waitSignal(handle.finished, timeout=120_000):
            pass
        assert handle.outcome == "result"
    assert len(pids) == 2 and pids[0] == pids[1]


def test_cancel_terminates_the_child_and_the_run_is_kept_as_cancelled(
    qtbot: Any, runner: JobRunner, store_path: Path, process: ReplayProcess,
) -> None:
    handle = start_replay(runner, store_path, ReplayRequest("everything", "workbench", True).with_scope(), process)
    events = _events(handle)
    children: list[int] = []

    def cancel_while_embedding(message: Any) -> None:
        if isinstance(message, Started):
            children.extend(process.pids)

    handle.posted.connect(cancel_while_embedding)
    handle.progress.connect(lambda _d, _t, unit: handle.cancel() if unit == "texts" else None)
    with qtbot.waitSignal(handle.finished, timeout=300_000):
        pass
    assert any(isinstance(e, tuple) and e[3] == "texts" for e in events), "never reached the embedding phase"
    started = next(e for e in events if isinstance(e, Started))
    assert handle.value.status == "cancelled" if handle.outcome == "result" else handle.outcome == "cancelled"
    assert len(children) == 1
    qtbot.waitUntil(lambda: _ended(children[0]), timeout=15_000)  # the child is gone, not kept
    assert children[0] not in process.pids
    store = open_store(store_path)
    try:
        run = next(r for r in ReplayRepository(store).runs() if r.id == started.run_id)
        assert run.status == "cancelled"
    finally:
        store.close()


def test_a_bad_request_is_answered_with_a_clear_error_and_the_child_serves_on(process: ReplayProcess,
                                                                             store_path: Path) -> None:
    with process.lease() as worker:
        assert worker.proc.stdin is not None
        worker.proc.stdin.write(b'{"v": 1, "type": "run_replay", "store": 3}\n')
        worker.proc.stdin.flush()
        reply = worker.receive()
        assert isinstance(reply, Failed) and reply.exc_type == "ProtocolError"
        assert "field 'store': expected string, got int" in reply.message
        with pytest.raises(ReplayProcessError, match="no profile 'no-such-profile' in this store"):
            list(worker.replies(RunReplay(str(store_path), "no-such-profile", False, None, False, "")))
        assert worker.alive


def test_a_store_that_cannot_open_fails_the_job_with_the_childs_reason(
    qtbot: Any, runner: JobRunner, tmp_path: Path, process: ReplayProcess,
) -> None:
    not_a_store = tmp_path / "notes.sqlite"
    not_a_store.write_text("these are my notes, not a database\n")
    handle = start_replay(runner, not_a_store, ReplayRequest("everything", "workbench", False).with_scope(), process)
    with qtbot.waitSignal(handle.finished, timeout=60_000):
        pass
    assert handle.outcome == "error"
    failure = handle.value
    assert isinstance(failure.exception, ReplayProcessError)
    assert "notes.sqlite" in str(failure) and failure.exception.remote_traceback
    assert not_a_store.read_text() == "these are my notes, not a database\n"


def test_the_model_loads_once_in_a_child_and_reports_its_state(qtbot: Any, runner: JobRunner,
                                                               process: ReplayProcess) -> None:
    from cauterule_gui.jobs.replay_job import start_model_load

    states: list[ModelState] = []
    for _ in range(2):
        handle = start_model_load(runner, process)
        handle.posted.connect(states.append)
        with qtbot.waitSignal(handle.finished, timeout=300_000):
            pass
    assert [s.state for s in states] == ["loading", "ready", "ready"]  # kept loaded for the second job
    assert states[1].info and states[1].info.startswith("model@")


def test_the_cancel_event_runs_what_stops_a_blocked_job() -> None:
    event = CancelEvent()
    calls: list[str] = []
    remove = event.call_on_set(lambda: calls.append("first"))
    event.call_on_set(lambda: calls.append("second"))
    remove()
    event.set()
    assert calls == ["second"] and event.is_set()
    event.call_on_set(lambda: calls.append("late"))  # already cancelled: runs at once
    assert calls == ["second", "late"]


def test_progress_keeps_every_phase_change_and_the_last_update(qtbot: Any, runner: JobRunner) -> None:
    from cauterule_gui.jobs import JobContext

    def job(ctx: JobContext) -> None:
        for unit, total in (("texts", 500), ("pairs", 900)):
            for done in range(total + 1):
                ctx.progress(done, total, unit)

    handle = runner.submit(job, name="phases")
    seen: list[tuple[int, int, str]] = []
    handle.progress.connect(lambda d, t, u: seen.append((d, t, u)))
    with qtbot.waitSignal(handle.finished, timeout=10_000):
        pass
    units = [u for _d, _t, u in seen]
    assert units.index("pairs") > 0 and seen[units.index("pairs")][0] == 0  # the new phase's first update
    assert seen[-1] == (900, 900, "pairs") and len(seen) < 100  # throttled, last one kept


def test_a_new_message_alone_does_not_bypass_the_throttle(qtbot: Any, runner: JobRunner) -> None:
    from cauterule_gui.jobs import JobContext

    def job(ctx: JobContext) -> None:  # an import names each file it reads
        for done in range(2001):
            ctx.progress(done, 2000, f"file{done}.jsonl")

    handle = runner.submit(job, name="files")
    seen: list[int] = []
    handle.progress.connect(lambda d, _t, _m: seen.append(d))
    with qtbot.waitSignal(handle.finished, timeout=10_000):
        pass
    assert seen[0] == 0 and seen[-1] == 2000 and len(seen) < 100


def test_the_adopted_profile_is_what_the_window_replays_by_default(
    qtbot: Any, runner: JobRunner, store_path: Path, process: ReplayProcess,
) -> None:
    """Issue 26: the window's default profile setting is the store's adopted one, recorded as name@version."""
    from core.replay.profiles import WORKBENCH
    from core.store.profile_repo import ProfileRepository

    store = open_store(store_path)
    try:
        ProfileRepository(store).add("team", WORKBENCH.with_(threshold=0.7), "lee")
    finally:
        store.close()
    handle = start_replay(runner, store_path, ReplayRequest("everything", "adopted", False).with_scope(), process)
    events = _events(handle)
    with qtbot.waitSignal(handle.finished, timeout=120_000):
        pass
    assert handle.outcome == "result"
    started = next(e for e in events if isinstance(e, Started))
    assert started.profile == "team@1"
    store = open_store(store_path)
    try:
        assert next(r for r in ReplayRepository(store).runs() if r.id == started.run_id).profile == "team@1"
    finally:
        store.close()
