"""Showing very long record fields without freezing the GUI thread.

Qt lays a text block out in one go, and the cost grows much faster than the block's length
when the text has no break opportunities: a 1 MB ``task`` without spaces took 77 s on the
GUI thread. So (1) a field longer than :data:`SHORTENED_CHARS` is shown shortened, with an
explicit "show all (N characters)" action; (2) runs without whitespace are cut into blocks
of at most :data:`PIECE_CHARS` characters, where the viewer wraps anyway; and (3) the
document is built by a list of small operations that :class:`ProgressiveBuild` runs in
time slices from the event loop, so even a 10 MB field never blocks it for long.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QTimer, Signal

SHORTENED_CHARS = 20_000
PIECE_CHARS = 2_000
BLOCK_CHARS = 50_000  # ordinary text lays out at ~0.6 ms per 1,000 characters
SLICE_SECONDS = 0.008  # work per event-loop turn; Qt then lays out and paints (tens of ms on a huge document)
_UNBROKEN = re.compile(r"\S{%d,}" % (PIECE_CHARS + 1))

# An operation edits the document; one that returns an iterator is stepped through, a step
# at a time, so a long field is inserted piece by piece across event-loop turns.
Operation = Callable[[], "Iterator[None] | None"]


@dataclass
class Pieces:
    """A text cut into pieces, and where the cuts are (offsets into the text)."""

    parts: list[str]
    cuts: list[int] = field(default_factory=list)

    def doc_offset(self, offset: int) -> int:
        """Position in the document of ``offset`` into the text: each cut before it added a block break."""
        low, high = 0, len(self.cuts)
        while low < high:  # number of cuts strictly before offset
            middle = (low + high) // 2
            if self.cuts[middle] < offset:
                low = middle + 1
            else:
                high = middle
        return offset + low


def split_pieces(text: str, piece: int = PIECE_CHARS, block: int = BLOCK_CHARS) -> Pieces:
    """All pieces of ``text`` at once (see :func:`iter_pieces`)."""
    pieces = Pieces([])
    pieces.parts = list(iter_pieces(text, pieces.cuts, piece, block))
    return pieces


def iter_pieces(text: str, cuts: list[int], piece: int = PIECE_CHARS, block: int = BLOCK_CHARS) -> Iterator[str]:
    """Cut ``text`` into pieces that lay out quickly, lazily, appending each cut's offset to
    ``cuts``: inside runs of more than ``piece`` characters without whitespace (every
    ``piece`` characters, where the viewer wraps anyway) and, for very long ordinary text,
    at a space at most every ``block`` characters. Text of ordinary length is not cut."""
    start = 0
    while len(text) - start > piece:
        window_end = min(len(text), start + block)
        run = _UNBROKEN.search(text, start, window_end)
        if run is not None:
            end = run.start() + piece
        elif window_end == len(text):
            break
        else:
            end = max(text.rfind(" ", start, window_end), text.rfind("\n", start, window_end)) + 1
            if end <= start:
                end = window_end
        yield text[start:end]
        cuts.append(end)
        start = end
    yield text[start:]


class ProgressiveBuild(QObject):
    """Runs a list of document operations: all at once when small, else in time slices."""

    finished = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ops: list[Operation] = []
        self._next = 0
        self._current: Iterator[None] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(lambda: self._run_slice())

    @property
    def running(self) -> bool:
        return self._next < len(self._ops) or self._current is not None

    def start(self, ops: list[Operation], all_now: bool = False) -> None:
        """Run ``ops``; ``all_now``: in this call (a small document), else in slices."""
        self.cancel()
        self._ops, self._next = ops, 0
        self._run_slice(None if all_now else SLICE_SECONDS)

    def cancel(self) -> None:
        self._timer.stop()
        self._ops, self._next, self._current = [], 0, None

    def _run_slice(self, budget: float | None = SLICE_SECONDS) -> None:
        deadline = time.perf_counter() + budget if budget is not None else float("inf")
        ops = self._ops
        while self.running:
            if self._current is not None:
                try:
                    next(self._current)
                except StopIteration:
                    self._current = None
            else:
                steps = ops[self._next]()
                self._next += 1
                if steps is not None:
                    self._current = iter(steps)
            if time.perf_counter() > deadline and self.running:
                self._timer.start()  # the rest on the next event-loop turn
                return
        self.finished.emit()
