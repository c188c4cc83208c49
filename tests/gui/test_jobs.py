"""The job runner: signals on the GUI thread, throttled progress, cancel, errors."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from cauterule_gui.jobs import JobContext, JobFailure, JobPool, JobRunner


def test_result_arrives_on_gui_thread_from_a_worker_thread(qtbot: Any, runner: JobRunner) -> None:
    seen: dict[str, Any] = {}

    def work(_ctx: JobContext) -> int:
        seen["worker"] = threading.current_thread()
        return 42

    handle = runner.submit(work, name="answer")
    handle.result.connect(lambda value: seen.update(result=value, slot=threading.current_thread()))
    with qtbot.waitSignal(handle.finished, timeout=5000):
        pass
    assert seen["result"] == 42
    assert seen["worker"] is not threading.main_thread()
    assert seen["slot"] is threading.main_thread()


def test_progress_is_throttled_but_the_last_report_arrives(qtbot: Any, runner: JobRunner) -> None:
    reports: list[tuple[int, int]] = []

    def work(ctx: JobContext) -> None:
        for i in range(1, 2001):
            ctx.progress(i, 2000, "")
            if i % 500 == 0:
                time.sleep(0.11)

    handle = runner.submit(work, name="chatty")
    handle.progress.connect(lambda done, total, _msg: reports.append((done, total)))
    with qtbot.waitSignal(handle.finished, timeout=5000):
        pass
    assert 2 <= len(reports) <= 10
    assert reports[-1] == (2000, 2000)


def test_cancel_is_cooperative_and_reported(qtbot: Any, runner: JobRunner) -> None:
    started = threading.Event()

    def work(ctx: JobContext) -> None:
        started.set()
        while True:
            ctx.raise_if_cancelled()
            time.sleep(0.005)

    handle = runner.submit(work, name="forever", pool=JobPool.CPU)
    assert started.wait(5)
    with qtbot.waitSignal(handle.cancelled, timeout=5000):
        handle.cancel()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=5000)


def test_an_exception_becomes_an_error_signal(qtbot: Any, runner: JobRunner) -> None:
    def work(_ctx: JobContext) -> None:
        raise ValueError("broken corpus")

    handle = runner.submit(work, name="failing", pool=JobPool.DB)
    with qtbot.waitSignal(handle.error, timeout=5000) as blocker:
        pass
    failure = blocker.args[0]
    assert isinstance(failure, JobFailure)
    assert (failure.exc_type, failure.message) == ("ValueError", "broken corpus")
    assert "Traceback" in failure.traceback


def test_a_new_job_with_the_same_key_supersedes_the_old_one(qtbot: Any, runner: JobRunner) -> None:
    gate = threading.Event()

    def slow(ctx: JobContext) -> str:
        gate.wait(5)
        return "stale"

    first = runner.submit(slow, name="first", key="panel")
    second = runner.submit(lambda _ctx: "fresh", name="second", key="panel")
    results: list[str] = []
    first.result.connect(results.append)
    second.result.connect(results.append)
    gate.set()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=5000)
    assert results == ["fresh"]
    assert first.outcome == "cancelled"


def test_database_pool_runs_one_job_at_a_time(qtbot: Any, runner: JobRunner) -> None:
    active, peak = [0], [0]
    lock = threading.Lock()

    def work(_ctx: JobContext) -> None:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.02)
        with lock:
            active[0] -= 1

    for i in range(4):
        runner.submit(work, name=f"write {i}", pool=JobPool.DB)
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=5000)
    assert peak[0] == 1


@pytest.mark.parametrize("pool", [JobPool.CPU, JobPool.DB, JobPool.READ])
def test_the_leftover_work_guard_fails_while_a_runner_job_still_runs(qtbot: Any, pool: JobPool) -> None:
    from conftest import assert_no_work_left

    runner = JobRunner()
    release = threading.Event()
    handle = runner.submit(lambda _ctx: release.wait(10), name="sleeper", pool=pool)
    try:
        with pytest.raises(AssertionError, match="sleeper"):
            assert_no_work_left([runner], msecs=50)  # the app's own pool, not the global one
        with pytest.raises(AssertionError, match="sleeper"):
            assert_no_work_left(msecs=50)  # the default looks at every live runner
    finally:
        release.set()
        with qtbot.waitSignal(handle.finished, timeout=5000):
            pass
    assert_no_work_left([runner])
