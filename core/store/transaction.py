"""One write transaction around several repository calls (a unit of work).

Repositories open their own short session per call. An operation that must succeed or fail
as a whole (a team-file merge: labels, adjudications, sessions and judgements) runs them on
``one_transaction(store)``: a view of the store whose every session, read or write, is the one
outer write session. Nothing is committed until the block ends; an error anywhere rolls all of
it back, and reads inside the block see the block's own writes.

    with one_transaction(store) as tx:
        LabelRepository(tx).import_label(...)
        AgreementRepository(tx).create_session(...)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlmodel import Session

from core.store.engine import Store


class SharedTransaction(Store):
    """A store whose sessions are all the caller's one open write session (never committed here)."""

    def __init__(self, store: Store, session: Session) -> None:
        # Deliberately not Store.__init__: no engine or lock of its own; the outer session holds
        # the connection and the write lock. Anything else is the real store's (``__getattr__``).
        self._store = store
        self._outer = session
        self.path = store.path
        self.engine = store.engine

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    @contextmanager
    def session(self) -> Iterator[Session]:
        # An error propagates to the outer block, which rolls the whole transaction back.
        yield self._outer

    write_session = session
    read_session = session

    def close(self) -> None:
        """The real store stays open; closing is its owner's business."""


@contextmanager
def one_transaction(store: Store) -> Iterator[Store]:
    """Everything done with the yielded store commits together at the end, or not at all."""
    with store.session() as session:
        yield SharedTransaction(store, session)
