"""Iterate while calling a caller's ``check`` every few thousand items (cooperative cancel).

Long loops over every trajectory (loading, hashing, building views and indexes) call a
``check`` that raises once the caller's cancel token is set, so a cancel returns within
moments wherever it lands. Shared by the matcher's indexes and the replay engine, which
sit in different layers; this pure helper sits below both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
Check = Callable[[], None]
EVERY = 2048  # items between checks: a few ms of work at most


def checked(items: Iterable[T], check: Check | None, every: int = EVERY) -> Iterator[T]:
    """``items``, calling ``check`` before every ``every``-th one (never without a check)."""
    if check is None:
        yield from items
        return
    for position, item in enumerate(items):
        if position % every == 0:
            check()
        yield item
