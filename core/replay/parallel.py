"""Scoring on every core: a run's chunks of rules scored in worker processes, results in order.

Why processes: scoring a chunk is numpy and scipy calls interleaved with Python loops over
rules, needles and words (substring tests, the word indexes, the results), which hold the
GIL most of the time; threads would take turns. Why ``fork``, after the run's fixed part is
built: the workers inherit the trajectory side (views, token matrices, word indexes, the
pool index, the cosine targets), the rules and the profile without a byte copied or
pickled; at 10^5 trajectories that side is hundreds of MB and seconds to build, which a
``spawn``ed worker would have to rebuild or unpickle before its first chunk. The parent
keeps doing what it did: it is the one writer (``on_results`` saves each chunk), in chunk
order, while the workers score the next ones. What the children send back is each chunk's
``RuleResult`` list (the evidence as arrays, ``OutcomeColumns``): the very objects the
in-process path builds, so the store receives the same rows in the same order.

Fork after threads: a forked child has only the thread that forked, and a lock another
thread held at that moment stays held in the child. So only a process with one Python thread
forks (``fork_is_safe``): the CLI and the window's replay child (``cauterule_gui.replay_server``,
no Qt; a semantic run there has finished embedding before the workers start); the window's
own process (Qt, the job pool) and any run started from a worker thread score in-process. The
workers run numpy, scipy and this package's code only; they never touch the store, Qt or
torch, and they end with ``os._exit`` (multiprocessing's fork start), so no inherited
connection is closed or flushed twice.
Where ``fork`` does not exist (Windows, and macOS is not a target), a run uses one core.

Cancel: the parent polls the run's cancel token every ``POLL_S`` while it waits for a
result and, on a cancel, an error or the end of the run, kills the workers (SIGKILL: they
hold nothing that needs closing) and reaps them before ``replay`` returns.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
import traceback
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol, TypeVar

from core.replay.types import RuleResult

WORKERS_ENV = "CAUTERULE_WORKBENCH_WORKERS"
#: below this many pairs a run stays in-process when the worker count is automatic: forking
#: and sending results back cost tens of milliseconds, a run this small takes about a second
MIN_PARALLEL_PAIRS = 2_000_000
#: how often the parent looks at the cancel token while it waits for a worker (seconds)
POLL_S = 0.05
#: units handed to each worker ahead of the one it is scoring (so it never waits for the parent
#: while the parent saves a group of results: at 10^5 trajectories a unit is ~20 ms of scoring)
AHEAD_PER_WORKER = 3

T = TypeVar("T")
Bounds = tuple[int, int]
ScoreChunk = Callable[[int, int], list[RuleResult]]


class CancelToken(Protocol):
    def is_set(self) -> bool: ...


class WorkerFailed(RuntimeError):
    """A worker process died or raised; the message carries its traceback."""


def machine_cores() -> int:
    """The cores this process may run on (its affinity, not the host's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def fork_is_safe() -> bool:
    """Only a process with one Python thread forks: another thread may hold a lock (logging's,
    the store's, Qt's) that a forked child would wait on forever. The CLI and the window's
    replay child have one; the window itself (Qt, the job pool) and a run started from a
    worker thread score in-process. (Native threads such as torch's hold no Python lock; the
    workers never call into them.)"""
    return threading.active_count() == 1


def setting_from_env() -> int | None:
    """``CAUTERULE_WORKBENCH_WORKERS``: a positive count, or None (unset, empty, 0 or not a number:
    follow the machine)."""
    raw = os.environ.get(WORKERS_ENV, "").strip()
    if not raw.isdigit() or int(raw) <= 0:
        return None
    return int(raw)


def resolve_workers(requested: int | None, total_pairs: int, units: int) -> int:
    """How many worker processes a run uses; 1 means today's in-process path.

    ``requested`` (``replay(workers=...)``, ``replay --workers N``) is taken as asked; None
    takes the setting (``CAUTERULE_WORKBENCH_WORKERS``) as asked too, and without one follows
    the machine's cores, keeping runs under ``MIN_PARALLEL_PAIRS`` in-process (a what-if of
    one rule need not fork). Never more workers than units of work."""
    if requested is None:
        requested = setting_from_env()
    if requested is None:
        requested = machine_cores() if total_pairs >= MIN_PARALLEL_PAIRS else 1
    if requested <= 1 or not fork_available() or not fork_is_safe():
        return 1
    return max(1, min(requested, units))


def units_of(bounds: Sequence[Bounds], starts: Sequence[int] | None) -> list[list[Bounds]]:
    """The chunks grouped into units of work, each a run of consecutive chunks. ``starts``: the
    first rule of the chunks that must begin a unit (where a one-core run computes a new block
    of cosines, so that a worker computes the very same products); None: one chunk per unit."""
    if starts is None:
        return [[b] for b in bounds]
    begin = set(starts)
    units: list[list[Bounds]] = []
    for lo, hi in bounds:
        if lo in begin or not units:
            units.append([])
        units[-1].append((lo, hi))
    return units


@dataclass
class _Job:
    score_chunk: ScoreChunk
    units: list[list[Bounds]]
    at_unit_start: Callable[[], None] | None


_JOB: _Job | None = None  # set by the parent just before it forks: the children inherit it


def _serve(conn: Connection) -> None:
    """A worker: score the units the parent sends until it sends None.

    Results are sent by a thread of the worker's own: a unit's results (0.5 MB at 10^5
    trajectories, 5 MB at 10^6) do not fit in the connection's buffer, and a send blocks until
    the parent reads them, which it does between saves; meanwhile this thread scores the next
    unit (the worker is a forked child that never forks, so a thread is safe here)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the replay server's cooperative handler
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the parent's to handle
    job = _JOB
    assert job is not None
    outbox: queue.SimpleQueue[tuple[str, int, Any] | None] = queue.SimpleQueue()

    def send_all() -> None:
        while (message := outbox.get()) is not None:
            try:
                conn.send(message)
            except OSError:  # the parent is gone
                return

    sender = threading.Thread(target=send_all, name="replay-results", daemon=True)
    sender.start()
    try:
        while True:
            try:
                unit = conn.recv()
            except EOFError:  # the parent is gone (killed): nothing is waiting for this worker
                return
            if unit is None:
                return
            try:
                if job.at_unit_start is not None:
                    job.at_unit_start()
                outbox.put(("ok", unit, [job.score_chunk(lo, hi) for lo, hi in job.units[unit]]))
            except BaseException as error:  # noqa: BLE001 - every failure must reach the parent
                outbox.put(("error", unit, f"{type(error).__name__}: {error}\n{traceback.format_exc()}"))
                return
    finally:
        outbox.put(None)
        sender.join()


def scored_here(
    score_chunk: ScoreChunk, bounds: Sequence[Bounds], cancel: CancelToken | None,
) -> Generator[tuple[Bounds, list[RuleResult]], None, None]:
    """The one-core path: each chunk scored in this process when it is asked for; none after
    ``cancel`` is set."""
    for lo, hi in bounds:
        if cancel is not None and cancel.is_set():
            return
        yield (lo, hi), score_chunk(lo, hi)


def scored_in_order(
    score_chunk: ScoreChunk,
    units: list[list[Bounds]],
    workers: int,
    cancel: CancelToken | None,
    at_unit_start: Callable[[], None] | None = None,
) -> Generator[tuple[Bounds, list[RuleResult]], None, None]:
    """Each chunk's results, in chunk order, scored by ``workers`` forked processes.

    Stops (without yielding more) once ``cancel`` is set; the caller checks the token after the
    generator ends. Closing the generator early, or an error, kills and reaps the workers.
    ``at_unit_start`` runs in the worker before each unit (it resets per-unit caches)."""
    global _JOB
    context = multiprocessing.get_context("fork")
    processes: list[Any] = []
    conns: list[Connection] = []
    try:
        _JOB = _Job(score_chunk, units, at_unit_start)
        try:
            for _ in range(workers):
                parent_end, child_end = context.Pipe()
                conns.append(parent_end)
                process = context.Process(target=_serve, args=(child_end,), daemon=True, name="replay-scoring")
                process.start()
                child_end.close()
                processes.append(process)
        finally:
            _JOB = None  # the parent's copy is not needed after the fork
        yield from _dispatch(units, conns, processes, cancel)
    finally:
        _reap(processes, conns)


def _dispatch(
    units: list[list[Bounds]], conns: list[Connection], processes: list[Any], cancel: CancelToken | None,
) -> Iterator[tuple[Bounds, list[RuleResult]]]:
    next_unit = 0
    in_flight = [0] * len(conns)
    done: dict[int, list[list[RuleResult]]] = {}

    def hand_out(worker: int) -> None:
        nonlocal next_unit
        while in_flight[worker] <= AHEAD_PER_WORKER and next_unit < len(units):
            conns[worker].send(next_unit)
            in_flight[worker] += 1
            next_unit += 1

    for worker in range(len(conns)):
        hand_out(worker)
    for wanted in range(len(units)):
        while wanted not in done:
            if cancel is not None and cancel.is_set():
                return
            ready = wait([*conns, *(p.sentinel for p in processes)], timeout=POLL_S)
            for worker, conn in enumerate(conns):
                if conn in ready:
                    status, unit, payload = conn.recv()
                    if status != "ok":
                        raise WorkerFailed(f"a scoring worker failed on rules "
                                           f"{units[unit][0][0]}-{units[unit][-1][1]}: {payload}")
                    done[unit] = payload
                    in_flight[worker] -= 1
                    hand_out(worker)
            for process, conn in zip(processes, conns, strict=True):
                if process.sentinel in ready and not conn.poll():
                    raise WorkerFailed(f"a scoring worker ended unexpectedly (exit code {process.exitcode})")
        for bounds, results in zip(units[wanted], done.pop(wanted), strict=True):
            yield bounds, results
    for conn in conns:
        conn.send(None)


def _call(task: Callable[[], Any], conn: Connection) -> None:
    """A helper process of ``forked_calls``: run ``task`` and send back its value (or its failure)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        value = task()
    except BaseException as error:  # noqa: BLE001 - every failure must reach the parent
        conn.send(("error", f"{type(error).__name__}: {error}\n{traceback.format_exc()}"))
        return
    conn.send(("ok", value))


def forked_calls(
    here: Callable[[], T], elsewhere: Sequence[Callable[[], T]], check: Callable[[], None] | None = None,
) -> list[T]:
    """``[here(), *(task() for task in elsewhere)]``, each of ``elsewhere`` run in a forked
    process while this one runs ``here`` (the trajectory side of a large run, built per slice).

    The same rules as the scoring workers: fork only where ``fork_is_safe`` (the caller checks),
    values come back pickled, ``check`` (a cancel, which may raise) is called every ``POLL_S``
    while waiting, and whatever happens the helpers are killed and reaped before this returns.
    A helper's exception or death raises ``WorkerFailed``."""
    context = multiprocessing.get_context("fork")
    processes: list[Any] = []
    readers: list[Connection] = []
    try:
        for task in elsewhere:
            reader, writer = context.Pipe(duplex=False)
            readers.append(reader)
            process = context.Process(target=_call, args=(task, writer), daemon=True, name="replay-side")
            process.start()
            writer.close()
            processes.append(process)
        values = [here()]
        for process, reader in zip(processes, readers, strict=True):
            while True:
                if check is not None:
                    check()
                ready = wait([reader, process.sentinel], timeout=POLL_S)
                if reader in ready:
                    try:
                        status, payload = reader.recv()
                    except EOFError:  # it died while sending
                        status, payload = "error", f"exit code {process.exitcode}"
                    if status != "ok":
                        raise WorkerFailed(f"a process building the trajectory side failed: {payload}")
                    values.append(payload)
                    break
                if process.sentinel in ready and not reader.poll():
                    raise WorkerFailed(f"a process building the trajectory side ended unexpectedly "
                                       f"(exit code {process.exitcode})")
        return values
    finally:
        _reap(processes, readers)


def _reap(processes: list[Any], connections: list[Connection]) -> None:
    """Kill what still runs (an early close, an error, a cancel), wait for every process and
    close its pipe: no child outlives the call that forked it."""
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join()
        process.close()
    for connection in connections:
        connection.close()
