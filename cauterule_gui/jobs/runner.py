"""The job runner: long work leaves the GUI thread as a ``QRunnable`` that emits signals only.

A job is a plain callable ``fn(ctx: JobContext) -> result``. It reports progress through
``ctx.progress(done, total, message)`` (throttled here to about ten updates a second, the last
one always delivered) and stops cooperatively when ``ctx.cancel_event`` is set. It never
touches a widget: the worker emits on a private bridge whose signals are queued to the
``JobHandle``, which lives on the GUI thread and re-emits them there. Consumers therefore
connect to the handle with any slot or lambda and are always called on the GUI thread.

Three pools: database writes are serialised on a pool of one thread (SQLite has one writer);
store reads run on a small read pool (WAL readers never wait for the writer, so a table page
does not queue behind an import); CPU work (replay, embeddings) runs on its own pool.
"""

from __future__ import annotations

import threading
import time
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal, Slot

PROGRESS_INTERVAL_S = 0.1
READ_THREADS = 2  # enough for a table page beside an evidence load; reads are short
# Every runner alive in this process (weakly held): lets a shutdown check, or the GUI tests'
# leftover-work guard, look at the pools the application really uses.
_LIVE_RUNNERS: weakref.WeakSet[JobRunner] = weakref.WeakSet()


class JobPool(Enum):
    DB = "db"  # serialised writes (one thread)
    READ = "read"  # store reads (WAL lets them run beside the writer)
    CPU = "cpu"  # parallel computation


class CancelEvent(threading.Event):
    """The cancel flag, which can also act when set: a job blocked in a read (the replay job
    waiting on its child process) cannot check a flag, so ``call_on_set`` lets it register
    what stops the read (terminating the child). Callbacks run on the thread that cancels."""

    def __init__(self) -> None:
        super().__init__()
        self._callbacks: list[Callable[[], None]] = []
        self._callbacks_lock = threading.Lock()

    def call_on_set(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` when the flag is set (now, if it already is); returns a remover."""
        with self._callbacks_lock:
            if not self.is_set():
                self._callbacks.append(callback)
                return lambda: self._remove(callback)
        callback()
        return lambda: None

    def _remove(self, callback: Callable[[], None]) -> None:
        with self._callbacks_lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

    def set(self) -> None:
        with self._callbacks_lock:
            super().set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()


class JobCancelled(Exception):
    """Raise from a job (or let the core raise its own) after seeing ``cancel_event``."""


@dataclass(frozen=True)
class JobFailure:
    """What the GUI learns about a job that raised: enough for a dialog with a traceback."""

    job: str
    exc_type: str
    message: str
    traceback: str
    exception: BaseException | None = None

    def __str__(self) -> str:
        return f"{self.exc_type}: {self.message}"


class JobContext:
    """Handed to the job function on the worker thread."""

    def __init__(self, bridge: _WorkerBridge, cancel_event: CancelEvent, interval: float) -> None:
        self._bridge = bridge
        self.cancel_event = cancel_event
        self._interval = interval
        self._last = 0.0
        self._last_count = (0, -1)  # (done, total) last delivered

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def raise_if_cancelled(self) -> None:
        if self.cancel_event.is_set():
            raise JobCancelled()

    def progress(self, done: int, total: int, message: str = "") -> None:
        """Report progress; calls closer than the throttle interval are dropped, except the last
        one and the first of a new count (the total changed or the count went back: a new
        phase, e.g. replay's texts embedded, then pairs scored)."""
        now = time.monotonic()
        last_done, last_total = self._last_count
        new_count = total != last_total or done < last_done
        if now - self._last < self._interval and not (total and done >= total) and not new_count:
            return
        self._last, self._last_count = now, (done, total)
        self._bridge.progress.emit(int(done), int(total), str(message))

    def post(self, message: object) -> None:
        """Hand ``message`` to the GUI thread as the handle's ``posted`` signal, in order with
        the job's progress (e.g. the replay child's run id and saved chunks)."""
        self._bridge.posted.emit(message)


class _WorkerBridge(QObject):
    # Emitted on the worker thread; connected with QueuedConnection to the handle.
    progress = Signal(int, int, str)
    posted = Signal(object)
    result = Signal(object)
    error = Signal(object)
    cancelled = Signal()
    finished = Signal()


class JobHandle(QObject):
    """The GUI-thread face of one job. Signals arrive on the GUI thread, in this order:
    any number of ``progress``, then exactly one of ``result`` / ``error`` / ``cancelled``,
    then ``finished``."""

    progress = Signal(int, int, str)
    posted = Signal(object)  # whatever the job passed to ``ctx.post``
    result = Signal(object)
    error = Signal(object)  # JobFailure
    cancelled = Signal()
    finished = Signal()

    def __init__(self, name: str, pool: JobPool, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.pool = pool
        self.cancel_event = CancelEvent()
        self.running = True
        self.outcome: str | None = None  # "result" | "error" | "cancelled"
        self.value: Any = None
        self._superseded = False

    def cancel(self) -> None:
        """Ask the job to stop; it stops at its next cancellation check."""
        self.cancel_event.set()

    def supersede(self) -> None:
        """Cancel and drop any late result: a newer job of the same key has replaced this one."""
        self._superseded = True
        self.cancel()

    @Slot(int, int, str)
    def _on_progress(self, done: int, total: int, message: str) -> None:
        if not self._superseded:
            self.progress.emit(done, total, message)

    @Slot(object)
    def _on_posted(self, message: object) -> None:
        if not self._superseded:
            self.posted.emit(message)

    @Slot(object)
    def _on_result(self, value: object) -> None:
        if self._superseded:
            self._on_cancelled()
            return
        self.outcome, self.value = "result", value
        self.result.emit(value)

    @Slot(object)
    def _on_error(self, failure: object) -> None:
        self.outcome, self.value = "error", failure
        self.error.emit(failure)

    @Slot()
    def _on_cancelled(self) -> None:
        self.outcome = "cancelled"
        self.cancelled.emit()

    @Slot()
    def _on_finished(self) -> None:
        self.running = False
        self.finished.emit()


class _Job(QRunnable):
    def __init__(self, name: str, fn: Callable[[JobContext], Any], bridge: _WorkerBridge,
                 cancel_event: CancelEvent, interval: float) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._name = name
        self._fn = fn
        self._bridge = bridge
        self._cancel_event = cancel_event
        self._interval = interval

    def run(self) -> None:
        bridge = self._bridge
        ctx = JobContext(bridge, self._cancel_event, self._interval)
        try:
            value = self._fn(ctx)
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the GUI
            if isinstance(exc, JobCancelled) or self._cancel_event.is_set():
                bridge.cancelled.emit()
            else:
                bridge.error.emit(
                    JobFailure(self._name, type(exc).__name__, str(exc), traceback.format_exc(), exc)
                )
        else:
            bridge.result.emit(value)
        finally:
            bridge.finished.emit()


class JobRunner(QObject):
    """Starts jobs on the right pool and keeps track of them until they finish."""

    job_started = Signal(object)  # JobHandle
    job_finished = Signal(object)  # JobHandle

    def __init__(self, cpu_threads: int | None = None, parent: QObject | None = None,
                 progress_interval: float = PROGRESS_INTERVAL_S) -> None:
        super().__init__(parent)
        self._db_pool = QThreadPool(self)
        self._db_pool.setMaxThreadCount(1)
        self._read_pool = QThreadPool(self)
        self._read_pool.setMaxThreadCount(READ_THREADS)
        self._cpu_pool = QThreadPool(self)
        if cpu_threads:
            self._cpu_pool.setMaxThreadCount(cpu_threads)
        self._pools = {JobPool.DB: self._db_pool, JobPool.READ: self._read_pool, JobPool.CPU: self._cpu_pool}
        self._interval = progress_interval
        self._active: set[JobHandle] = set()
        self._bridges: dict[JobHandle, tuple[_WorkerBridge, _Job]] = {}
        self._keyed: dict[str, JobHandle] = {}
        _LIVE_RUNNERS.add(self)

    def submit(self, fn: Callable[[JobContext], Any], *, name: str, pool: JobPool = JobPool.CPU,
               key: str | None = None) -> JobHandle:
        """Run ``fn(ctx)`` on ``pool``. With ``key``, a still-running job of the same key is
        superseded (cancelled, its late result dropped), so a panel never shows stale work."""
        if key is not None and (previous := self._keyed.get(key)) is not None and previous.running:
            previous.supersede()
        # No Qt parent: the handle lives as long as the runner or a consumer references it.
        handle = JobHandle(name, pool)
        bridge = _WorkerBridge()  # lives on the GUI thread; emitted from the worker
        queued = Qt.ConnectionType.QueuedConnection
        bridge.progress.connect(handle._on_progress, queued)
        bridge.posted.connect(handle._on_posted, queued)
        bridge.result.connect(handle._on_result, queued)
        bridge.error.connect(handle._on_error, queued)
        bridge.cancelled.connect(handle._on_cancelled, queued)
        bridge.finished.connect(handle._on_finished, queued)
        handle.finished.connect(lambda h=handle: self._forget(h))
        self._active.add(handle)
        job = _Job(name, fn, bridge, handle.cancel_event, self._interval)
        self._bridges[handle] = (bridge, job)  # keep both alive until the job has finished
        if key is not None:
            self._keyed[key] = handle
        self._pools[pool].start(job)
        self.job_started.emit(handle)
        return handle

    def _forget(self, handle: JobHandle) -> None:
        self._active.discard(handle)
        self._bridges.pop(handle, None)
        for key, value in list(self._keyed.items()):
            if value is handle:
                del self._keyed[key]
        self.job_finished.emit(handle)

    @property
    def active_jobs(self) -> list[JobHandle]:
        return list(self._active)

    def is_busy(self) -> bool:
        return bool(self._active)

    def cancel_all(self) -> None:
        for handle in list(self._active):
            handle.cancel()

    def wait_for_done(self, msecs: int = -1) -> bool:
        """Block until every pool is idle (queued signals still need an event-loop turn)."""
        return all([pool.waitForDone(msecs) for pool in self._pools.values()])

    def shutdown(self, msecs: int = 10_000) -> bool:
        """Cancel everything and wait; called when the window closes or the store changes."""
        self.cancel_all()
        return self.wait_for_done(msecs)

    def work_left(self, msecs: int) -> list[str]:
        """Wait up to ``msecs`` for every pool; the names of the jobs still running then (a pool
        still busy with no job known to the runner is reported as ``<db pool>``, ``<read pool>``
        or ``<cpu pool>``)."""
        if self.wait_for_done(msecs):
            return []
        names = sorted(handle.name for handle in self._active if handle.running)
        pools = [f"<{kind.value} pool>" for kind, pool in self._pools.items() if pool.activeThreadCount() > 0]
        return names or pools


def live_runners() -> list[JobRunner]:
    """Every ``JobRunner`` alive in this process."""
    return list(_LIVE_RUNNERS)


def work_left_behind(msecs: int, runners: list[JobRunner] | None = None) -> list[str]:
    """The jobs still running in ``runners`` (default: every live runner) after waiting up to
    ``msecs`` for each."""
    return [name for runner in (live_runners() if runners is None else runners) for name in runner.work_left(msecs)]
