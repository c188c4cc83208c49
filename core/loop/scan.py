"""The loop's store-wide views computed in chunks, so a caller can stop them.

Gate (both modes) and taint for every trajectory cost about a millisecond of Python per
record (NFKC folding and the marker scans over every text field). On a 10^5-trajectory
store that is minutes of CPU, so the GUI must be able to drop the work at once when the
store is switched or the window closes: :func:`scan_loop` reads the records a chunk at a
time (never the whole table in memory at once) and checks ``cancel`` between chunks (and
every few records inside one), raising :class:`LoopScanCancelled`.

The taint of candidate rules needs only the rules' source trajectories
(:func:`core.loop.views.candidate_taint`), so it is not part of this scan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from core.loop.gate import CorpusGateSummary, GateRow, gate_record, summarise
from core.loop.injection import PoolItem
from core.loop.taint import scan_record
from core.loop.views import TrajectoryLoopInfo
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store

SCAN_CHUNK = 250  # records read per query: ~0.25 s of work, so cancel is seen quickly
CHECK_EVERY = 25  # records between two cancel checks inside a chunk


class CancelFlag(Protocol):
    def is_set(self) -> bool: ...


class LoopScanCancelled(Exception):
    """The scan saw its cancel flag set; nothing partial is returned."""


@dataclass(frozen=True)
class LoopScan:
    info: dict[int, TrajectoryLoopInfo]
    summaries: list[CorpusGateSummary]
    pool: list[PoolItem]


def _check(cancel: CancelFlag | None) -> None:
    if cancel is not None and cancel.is_set():
        raise LoopScanCancelled("the loop scan was cancelled")


def scan_loop(store: Store, cancel: CancelFlag | None = None, chunk: int = SCAN_CHUNK,
              progress: Callable[[int, int], None] | None = None,
              between_chunks: Callable[[], None] | None = None) -> LoopScan:
    """Gate and taint of every trajectory, the per-corpus gate summaries and the injection
    pool, read ``chunk`` records at a time. ``between_chunks`` runs after each chunk (the GUI
    passes a short sleep so its thread gets the interpreter back)."""
    repo = CorpusRepository(store)
    _check(cancel)
    pks = repo.trajectory_pks()
    info: dict[int, TrajectoryLoopInfo] = {}
    rows: list[GateRow] = []
    pool: list[PoolItem] = []
    for start in range(0, len(pks), chunk):
        _check(cancel)
        for n, d in enumerate(repo.get_trajectories(pks[start:start + chunk])):
            if n % CHECK_EVERY == 0:
                _check(cancel)
            record = d.record
            strict, relaxed = gate_record(record, "strict"), gate_record(record, "relaxed")
            info[d.id] = TrajectoryLoopInfo(d.id, strict, relaxed, scan_record(record))
            rows += [GateRow(d.id, d.corpus, d.trajectory_id, d.expected_outcome, v) for v in (strict, relaxed)]
            pool.append(PoolItem(d.id, d.task, d.success))
        if progress is not None:
            progress(min(start + chunk, len(pks)), len(pks))
        if between_chunks is not None:
            between_chunks()
    _check(cancel)
    return LoopScan(info, summarise(rows), pool)
