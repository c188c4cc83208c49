"""The window's replay processes: children that replay and embed, each driven by a pool job.

A pool job leases a child (``ReplayProcess.lease``), sends it one request and reads its
replies with a blocking ``readline`` in the pool thread (the GIL is free while it waits):
no polling loop, no reader thread. One child is kept warm between jobs (the embedding
model stays loaded); a job that finds none idle (a replay runs while the promotion queue
wants vectors) starts another. Cancel terminates the child: ``ReplayWorker.terminate``
sends SIGTERM, which the child turns into a cooperative cancel (the run is closed as
``cancelled`` and reported) before it exits; a child that does not exit within
``KILL_AFTER_S`` is killed (its run, left ``running``, is closed as ``failed`` the next
time the store is opened, by ``core/store/run_owner.py``).

Which embedder a child runs the model with (``ReplayProcess.set_embedder``: the window's
Replay ▸ Embedding runtime) is given to it in its environment
(``CAUTERULE_WORKBENCH_EMBEDDER``) when it starts; a child started under another choice is not
leased again, so the next job runs the new one and a running job is never cut off.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
import weakref
from collections.abc import Generator, Iterator
from contextlib import contextmanager

from core.embeddings import EMBEDDER_SETTING_ENV
from core.replay.messages import (
    DraftReplayed,
    Embed,
    Embedded,
    Failed,
    Finished,
    LoadModel,
    ModelState,
    Quit,
    ReplayDraft,
    Reply,
    Request,
    RunReplay,
    decode,
    encode,
)

from cauterule_gui.jobs.runner import CancelEvent

SERVER_MODULE = "cauterule_gui.replay_server"
KILL_AFTER_S = 10.0
QUIT_WAIT_S = 10.0


class ReplayProcessError(RuntimeError):
    """The child failed a request (``remote_traceback`` is its traceback) or ended early."""

    def __init__(self, message: str, remote_traceback: str = "") -> None:
        super().__init__(message)
        self.remote_traceback = remote_traceback


class ReplayWorker:
    """One child process, serving one request at a time."""

    def __init__(self, embedder: str | None = None) -> None:
        # The child runs the same code as this process: the same interpreter (in a frozen app
        # that is the app itself, which understands ``-m``: packaging/entry.py) with this
        # process's environment and working directory unchanged, so it imports the package
        # from wherever this process did (installed, or PYTHONPATH set by whoever started us).
        # ``embedder`` (None: this process's setting) is the one thing its environment adds.
        self.embedder = embedder
        env = None if embedder is None else {**os.environ, EMBEDDER_SETTING_ENV: embedder}
        self.proc = subprocess.Popen([sys.executable, "-m", SERVER_MODULE],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.terminated = False
        self._kill_timer: threading.Timer | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, request: Request) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(encode(request))
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):  # ValueError: our end already closed
            raise self._ended() from None

    def receive(self) -> Reply:
        """The next reply, waiting for it (a blocking read: call from a pool thread)."""
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise self._ended()
        return decode(line)  # type: ignore[return-value]

    def replies(self, request: Request, cancel: CancelEvent | None = None) -> Generator[Reply, None, None]:
        """Send ``request``; yield its replies, ending with the one that answers it. A
        ``Failed`` reply raises ``ReplayProcessError``; setting ``cancel`` terminates the child."""
        stop_on_cancel = cancel.call_on_set(self.terminate) if cancel is not None else (lambda: None)
        try:
            self.send(request)
            while True:
                reply = self.receive()
                if isinstance(reply, Failed):
                    raise ReplayProcessError(f"{reply.exc_type}: {reply.message}", reply.traceback)
                yield reply
                if _answers(request, reply):
                    return
        finally:
            stop_on_cancel()

    def terminate(self) -> None:
        """Stop the child (any thread): SIGTERM now, a kill if it has not exited in time."""
        if self.terminated or not self.alive:
            return
        self.terminated = True
        self.proc.terminate()
        self._kill_timer = threading.Timer(KILL_AFTER_S, self._kill)
        self._kill_timer.daemon = True
        self._kill_timer.start()

    def _kill(self) -> None:
        if self.alive:
            self.proc.kill()

    def quit(self, timeout: float | None = QUIT_WAIT_S) -> None:
        """Ask the child to quit and wait for it (killed if it does not); ``timeout=None``
        does not wait (a job's end need not wait for torch to unload: seconds)."""
        try:
            if self.alive and not self.terminated:
                self.send(Quit())
        except ReplayProcessError:
            pass
        finally:
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    stream.close()
        if timeout is None:
            return  # reaped by subprocess when this object goes; the kill timer still guards
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        if self._kill_timer is not None:
            self._kill_timer.cancel()

    def _ended(self) -> ReplayProcessError:
        code = self.proc.wait()
        why = "after it was cancelled" if self.terminated else "unexpectedly"
        return ReplayProcessError(f"the replay process ended {why} (exit code {code})")


def _answers(request: Request, reply: Reply) -> bool:
    if isinstance(request, RunReplay):
        return isinstance(reply, Finished)
    if isinstance(request, LoadModel):
        return isinstance(reply, ModelState) and reply.state != "loading"
    if isinstance(request, Embed):
        return isinstance(reply, Embedded)
    if isinstance(request, ReplayDraft):
        return isinstance(reply, DraftReplayed)
    return True


class ReplayProcess:
    """The window's replay children: ``lease()`` one for a job; one is kept warm between jobs."""

    def __init__(self, keep_idle: int = 1) -> None:
        self._keep_idle = keep_idle
        self._idle: list[ReplayWorker] = []
        self._busy: set[ReplayWorker] = set()
        self._lock = threading.Lock()
        self._stopped = False
        self._embedder: str | None = None  # None: the environment's (CAUTERULE_WORKBENCH_EMBEDDER), else torch
        _ALL.add(self)

    @property
    def embedder(self) -> str | None:
        return self._embedder

    def set_embedder(self, kind: str | None) -> None:
        """Children started from now on run the model with ``kind``; idle ones started under
        another are quit now, busy ones when their job ends (never cut off)."""
        with self._lock:
            self._embedder = kind
            stale = [w for w in self._idle if w.embedder != kind]
            self._idle = [w for w in self._idle if w.embedder == kind]
        for worker in stale:
            worker.quit(timeout=None)

    @property
    def stopped(self) -> bool:
        return self._stopped

    def start(self) -> None:
        """Start a child now (importing takes a second or two), not at the first job."""
        with self._lock:
            self._stopped = False
            if not any(w.alive for w in self._idle):
                self._idle.append(ReplayWorker(self._embedder))

    @property
    def pids(self) -> list[int]:
        """The children alive now (idle and busy)."""
        with self._lock:
            return [w.pid for w in (*self._idle, *self._busy) if w.alive]

    @contextmanager
    def lease(self) -> Iterator[ReplayWorker]:
        """A child for one job; kept for the next job if the job ended normally."""
        with self._lock:
            if self._stopped:
                raise ReplayProcessError("the replay processes have been stopped (the window is closing)")
            worker = None
            while self._idle and worker is None:
                candidate = self._idle.pop()
                if candidate.alive and candidate.embedder == self._embedder:
                    worker = candidate
            worker = worker or ReplayWorker(self._embedder)
            self._busy.add(worker)
        reusable = False
        try:
            yield worker
            reusable = True
        finally:
            with self._lock:
                self._busy.discard(worker)
                keep = (reusable and worker.alive and not worker.terminated and not self._stopped
                        and worker.embedder == self._embedder and len(self._idle) < self._keep_idle)
                if keep:
                    self._idle.append(worker)
            if not keep:
                worker.quit(timeout=None)

    def stop(self) -> None:
        """Quit the idle children and terminate busy ones (their jobs end as cancelled)."""
        with self._lock:
            self._stopped = True
            idle, self._idle = self._idle, []
            busy = list(self._busy)
        for worker in busy:
            worker.terminate()
        for worker in idle:
            worker.quit()


_SHARED: ReplayProcess | None = None
_SHARED_LOCK = threading.Lock()
_ALL: weakref.WeakSet[ReplayProcess] = weakref.WeakSet()


def shared_process() -> ReplayProcess:
    """The children that serve embeddings to panels (promotion similarity, label feedback,
    the dashboard's semantic comparators): the window's own (``share``), so the model it
    preloads at start-up serves them too, else one made here."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None or _SHARED.stopped:
            _SHARED = ReplayProcess()
        return _SHARED


def share(process: ReplayProcess) -> None:
    """Make ``process`` the one ``shared_process`` returns (the window's, at start-up)."""
    global _SHARED
    with _SHARED_LOCK:
        _SHARED = process


@atexit.register
def _stop_all() -> None:
    """No child outlives this process (a child also quits when its stdin closes)."""
    for process in list(_ALL):
        process.stop()
