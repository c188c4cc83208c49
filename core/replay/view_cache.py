"""The trajectory side of a run (views and their index), kept for the next run on the same
trajectories: in memory, and through a ``Persisted`` (the store, ``core.store.side_cache_repo``)
for a new process.

Building it is a fixed cost of every run (normalising and tokenising every record: about a
fifth of a 119 x 358 replay), and a reviewer replays the same trajectories again and again
(the what-if loop, replaying a selection, a corpus, everything). The key is the run's corpus
hash (a sha256 over every record and its corpus, ``snapshot.corpus_hash``) with the view
options, so a changed record is a different entry: a hit is exactly what a fresh build would
return. Only sets up to ``MAX_TRAJECTORIES`` are kept (one entry in memory), so a 10^5 run
does not hold its index after it ends.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Protocol, TypeVar

MAX_TRAJECTORIES = 20_000
MAX_ENTRIES = 1  # the set being worked on; bounded memory in a long-running window

T = TypeVar("T")
_entries: OrderedDict[Hashable, object] = OrderedDict()
_lock = threading.Lock()


class Persisted(Protocol):
    """Where a side outlives the process. ``load`` returns None for no (usable) entry;
    ``built`` is told of a side built because there was none (it may keep it now or later)."""

    def load(self, key: tuple[Any, ...]) -> Any | None: ...

    def built(self, key: tuple[Any, ...], value: Any) -> None: ...


def cached(key: tuple[Any, ...], size: int, build: Callable[[], T], persisted: Persisted | None = None) -> T:
    """``build()``, or the value built before under ``key`` (sets of ``size`` trajectories):
    from memory, else from ``persisted``."""
    if size > MAX_TRAJECTORIES:
        return build()
    with _lock:
        found = _entries.get(key)
        if found is not None:
            _entries.move_to_end(key)
            return found  # type: ignore[return-value]
    value: T | None = persisted.load(key) if persisted is not None else None
    if value is None:
        value = build()  # outside the lock: two runs may build the same entry; both are equal
        if persisted is not None:
            persisted.built(key, value)
    with _lock:
        _entries[key] = value
        _entries.move_to_end(key)
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)
    return value


def clear() -> None:
    with _lock:
        _entries.clear()
