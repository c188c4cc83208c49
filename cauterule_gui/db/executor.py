"""One database executor per window: reads and writes leave the GUI thread, results come back to it.

The pattern is Anki's ``QueryOp`` / ``CollectionOp``:

- ``query(fn, on_done)`` runs ``fn(services)`` on the runner's read pool (SQLite in WAL mode lets
  readers run beside the writer) and calls ``on_done(result)`` on the GUI thread;
- ``op(fn, on_done, kinds=...)`` runs ``fn(services)`` on the runner's database pool (one thread,
  so writes are serialised and never wait on each other's locks), then calls ``on_done`` and
  emits ``changes_applied(kinds)`` on the GUI thread: panels refresh on the kinds they show
  instead of being called by hand;
- ``query_cancellable(fn, on_done)`` is a long read that stops when superseded:
  ``fn(services, cancel_event)`` (the metrics dashboard; ``heavy=True`` puts it on the CPU pool);
- ``compute(fn, on_done)`` runs ``fn()`` (pure work on rows a query already read: the gate
  over every trajectory, a candidate's live preview) on the CPU pool, so long computation
  never holds one of the two read threads.

A failure goes to ``on_error(exception)`` when given, else to the ``failed`` signal (a
``JobFailure``); both on the GUI thread. A result that arrives after the store was switched
(or closed) is dropped: it describes a store no panel shows any more.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject, Signal

from cauterule_gui.jobs.runner import JobContext, JobFailure, JobHandle, JobPool, JobRunner
from cauterule_gui.services import StoreServices

T = TypeVar("T")

# What a write can change; a panel names the ones it shows (``TabRegistry.register``).
# ("measurements": a loop measurement kept for the report, e.g. the last cross-session comparison.)
KINDS = frozenset({"decisions", "labels", "marks", "rules", "replay", "agreement", "corpora", "promotion",
                   "measurements"})

_WRITE = threading.local()


def in_write_op() -> bool:
    """True on the database thread while an ``op`` function runs (tests check where writes run)."""
    return bool(getattr(_WRITE, "active", False))


class DatabaseExecutor(QObject):
    changes_applied = Signal(object, object)  # frozenset[str] kinds, the initiator; after a write committed
    failed = Signal(object)  # JobFailure of a job without its own on_error

    def __init__(self, runner: JobRunner, services: Callable[[], StoreServices | None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self._services = services
        self._closed = False

    def close(self) -> None:
        """The window is closing: start nothing more and deliver nothing late."""
        self._closed = True

    def services(self) -> StoreServices | None:
        return None if self._closed else self._services()

    def query(self, fn: Callable[[StoreServices], T], on_done: Callable[[T], None] | None = None, *,
              name: str = "read", key: str | None = None,
              on_error: Callable[[BaseException], None] | None = None) -> JobHandle | None:
        """Read: ``fn(services)`` off the GUI thread; ``on_done(result)`` on it. With ``key``, a
        still-running read of the same key is superseded (its late result dropped)."""
        return self._submit(lambda services, _cancel: fn(services), on_done, on_error, name=name, key=key,
                            pool=JobPool.READ, kinds=None)

    def query_cancellable(self, fn: Callable[[StoreServices, threading.Event], T],
                          on_done: Callable[[T], None] | None = None, *, name: str = "read", key: str | None = None,
                          on_error: Callable[[BaseException], None] | None = None,
                          heavy: bool = False) -> JobHandle | None:
        """A long read that checks a cancel flag: ``fn(services, cancel_event)`` (the event is set when
        a newer read of the same ``key`` supersedes it or the runner shuts down; ``fn`` stops by
        raising). ``heavy``: a read followed by long computation (the dashboard's ruler, a semantic
        queue) runs on the CPU pool, so it never holds one of the two read threads a table page needs."""
        return self._submit(fn, on_done, on_error, name=name, key=key, pool=JobPool.CPU if heavy else JobPool.READ,
                            kinds=None)

    def op(self, fn: Callable[[StoreServices], T], on_done: Callable[[T], None] | None = None, *,
           kinds: Iterable[str], name: str = "write", initiator: object = None,
           on_error: Callable[[BaseException], None] | None = None) -> JobHandle | None:
        """Write: ``fn(services)`` on the database thread (serialised); then ``on_done(result)``
        and ``changes_applied(kinds, initiator)`` on the GUI thread (the initiator, e.g. the panel
        that asked, has updated itself; the others refresh). A failed write changes nothing, so
        it emits no ``changes_applied``."""
        changed = _checked(kinds)
        return self._submit(lambda services, _cancel: fn(services), on_done, on_error, name=name, key=None,
                            pool=JobPool.DB, kinds=changed, initiator=initiator)

    def compute(self, fn: Callable[[], T], on_done: Callable[[T], None] | None = None, *,
                name: str = "compute", key: str | None = None,
                on_error: Callable[[BaseException], None] | None = None) -> JobHandle | None:
        """Pure work on what a ``query`` read (``fn`` never touches the store): on the CPU pool;
        ``on_done(result)`` on the GUI thread, dropped like a query's if the store changed."""
        return self._submit(lambda _services, _cancel: fn(), on_done, on_error, name=name, key=key, pool=JobPool.CPU,
                            kinds=None)

    def notify(self, kinds: Iterable[str], initiator: object = None) -> None:
        """Writes made outside the executor (a replay's child process, an import job) committed."""
        self.changes_applied.emit(_checked(kinds), initiator)

    def _submit(self, fn: Callable[[StoreServices, threading.Event], Any], on_done: Callable[[Any], None] | None,
                on_error: Callable[[BaseException], None] | None, *, name: str, key: str | None,
                pool: JobPool, kinds: frozenset[str] | None, initiator: object = None) -> JobHandle | None:
        services = self.services()
        if services is None:
            return None

        def run(ctx: JobContext) -> Any:
            if kinds is None:
                return fn(services, ctx.cancel_event)
            _WRITE.active = True
            try:
                return fn(services, ctx.cancel_event)
            finally:
                _WRITE.active = False

        handle = self.runner.submit(run, name=name, pool=pool, key=None if key is None else f"db:{id(self)}:{key}")

        def done(value: object) -> None:
            if self._closed or not shiboken6.isValid(self) or self._services() is not services:
                return  # the store changed while this ran
            if on_done is not None:
                on_done(value)
            if kinds:
                self.changes_applied.emit(kinds, initiator)

        def error(failure: JobFailure) -> None:
            if self._closed or not shiboken6.isValid(self) or self._services() is not services:
                return
            if on_error is not None and failure.exception is not None:
                on_error(failure.exception)
            else:
                self.failed.emit(failure)

        handle.result.connect(done)
        handle.error.connect(error)
        return handle


def _checked(kinds: Iterable[str]) -> frozenset[str]:
    changed = frozenset(kinds)
    unknown = changed - KINDS
    if unknown:
        raise ValueError(f"unknown change kinds {sorted(unknown)}; expected some of {sorted(KINDS)}")
    return changed
