"""Replay as a job: a QThreadPool job that drives the replay process.

The job runs on the CPU pool like every long task (progress throttled, cancel cooperative,
signals only), but the computing happens in ``cauterule_gui.replay_server``, a child
process: there, numpy / scipy calls that hold the GIL cannot stall the window. The job's
thread just waits on the child's messages (the GIL is free while it waits) and relays
them: progress through the job context (the message is the unit: ``texts`` while a cold
semantic run embeds, then ``pairs``), each saved chunk through
``ReplayNotifier.results_saved`` (queued to the GUI thread), which is how results appear in
the window as they finish. ``run_replay`` in the child writes the results to the store.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from cauterule_gui.jobs.runner import JobCancelled, JobContext, JobHandle, JobPool, JobRunner


class ReplayProcessError(RuntimeError):
    def __init__(self, message: str, remote_traceback: str = "") -> None:
        super().__init__(message)
        self.remote_traceback = remote_traceback


@dataclass(frozen=True)
class ReplayRequest:
    label: str  # what the reviewer asked for, e.g. "selection (3 rules)"
    profile: str
    semantic: bool
    rule_ids: tuple[int, ...] | None = None  # None: every rule
    materialise_expected: bool = False  # turn expected_rule labels into candidates first
    scope: str = field(default="")

    def with_scope(self) -> ReplayRequest:
        return replace(self, scope=f"gui: {self.label} [{uuid.uuid4().hex[:8]}]")


@dataclass(frozen=True)
class ReplayDone:
    run_id: int
    status: str  # complete | cancelled
    rules: int
    pairs: int
    seconds: float
    semantic_state: str
    semantic_note: str | None
    model_id: str | None


class ReplayNotifier(QObject):
    """Lives on the GUI thread; emitted from the job's thread (queued delivery)."""

    results_saved = Signal(int)  # rules saved in this chunk
    model_loading = Signal()
    model_ready = Signal(str)  # model id
    model_unavailable = Signal(str)  # why


class ReplayProcess:
    """The long-lived replay child process; one request at a time."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._lock = threading.Lock()  # one request at a time
        self._start_lock = threading.Lock()

    def start(self) -> None:
        """Start the process now (it takes a second or two to import), not at the first replay."""
        self._ensure()

    def _ensure(self) -> subprocess.Popen[str]:
        with self._start_lock:
            if self._proc is not None and self._proc.poll() is None:
                return self._proc
            root = str(Path(__file__).resolve().parent.parent.parent)
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
            self._messages = queue.Queue()
            proc = subprocess.Popen(
                [sys.executable, "-m", "cauterule_gui.replay_server"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, text=True, encoding="utf-8", env=env, bufsize=1,
            )
            threading.Thread(target=self._read, args=(proc, self._messages), daemon=True).start()
            self._proc = proc
            return proc

    @staticmethod
    def _read(proc: subprocess.Popen[str], messages: queue.Queue[dict[str, Any] | None]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                messages.put(json.loads(line))
            except ValueError:
                continue
        messages.put(None)  # the process ended

    def _send(self, proc: subprocess.Popen[str], **message: Any) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    def request(self, cancel: threading.Event, **message: Any) -> Iterator[dict[str, Any]]:
        """Send one request and yield its messages up to and including ``done`` / ``error``."""
        with self._lock:
            proc = self._ensure()
            request_id = uuid.uuid4().hex
            self._send(proc, id=request_id, **message)
            cancel_sent = False
            while True:
                if cancel.is_set() and not cancel_sent:
                    self._send(proc, op="cancel", id=request_id)
                    cancel_sent = True
                try:
                    item = self._messages.get(timeout=0.05)
                except queue.Empty:
                    continue
                if item is None:
                    raise ReplayProcessError(f"the replay process ended unexpectedly (exit code {proc.poll()})")
                yield item
                if item.get("type") in ("done", "error"):
                    return

    def stop(self, timeout: float = 10.0) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None:
                self._send(proc, op="quit")
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait(timeout)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait(5)


def _relay(message: dict[str, Any], ctx: JobContext, notifier: ReplayNotifier) -> None:
    kind = message.get("type")
    if kind == "progress":
        unit = str(message.get("unit") or "pairs")
        done, total = int(message["done"]), int(message["total"])
        ctx.progress(done, total, unit)
    elif kind == "results":
        notifier.results_saved.emit(int(message["n"]))
    elif kind == "model":
        state = message.get("state")
        if state == "loading":
            notifier.model_loading.emit()
        elif state == "ready":
            notifier.model_ready.emit(str(message.get("info")))
        else:
            notifier.model_unavailable.emit(str(message.get("info") or "unknown reason"))
    elif kind == "error":
        raise ReplayProcessError(f"{message.get('exc_type')}: {message.get('message')}",
                                 str(message.get("traceback") or ""))


def make_replay_job(store_path: Path, request: ReplayRequest, process: ReplayProcess,
                    notifier: ReplayNotifier):  # type: ignore[no-untyped-def]
    def run(ctx: JobContext) -> ReplayDone:
        ctx.raise_if_cancelled()
        for message in process.request(
            ctx.cancel_event, op="replay", store=str(store_path), profile=request.profile, semantic=request.semantic,
            rule_ids=list(request.rule_ids) if request.rule_ids is not None else None,
            materialise=request.materialise_expected, scope=request.scope,
        ):
            if message.get("type") == "done":
                fields = {k: message.get(k) for k in ReplayDone.__dataclass_fields__}
                return ReplayDone(**fields)  # type: ignore[arg-type]
            _relay(message, ctx, notifier)
        raise ReplayProcessError("the replay process sent no result")

    return run


def start_replay(runner: JobRunner, store_path: Path, request: ReplayRequest, process: ReplayProcess,
                 notifier: ReplayNotifier) -> JobHandle:
    return runner.submit(make_replay_job(store_path, request, process, notifier), name=f"replay {request.label}",
                         pool=JobPool.CPU, key="replay")


def start_model_load(runner: JobRunner, store_path: Path, process: ReplayProcess,
                     notifier: ReplayNotifier) -> JobHandle:
    def run(ctx: JobContext) -> None:
        for message in process.request(ctx.cancel_event, op="load_model", store=str(store_path)):
            if message.get("type") == "done":
                return
            _relay(message, ctx, notifier)
        if ctx.cancelled:
            raise JobCancelled()

    return runner.submit(run, name="load embedding model", pool=JobPool.CPU, key="model")
