"""Cancelling the fixed part of a run (loading, hashing, indexing the trajectories).

Between chunks the engine asks the cancel token itself. Before the first chunk a 10^5 run
spends many seconds in loops over every trajectory; those loops call a ``check`` every few
thousand items, which raises :class:`Cancelled` once the token is set, so a cancel returns
within moments wherever it lands.
"""

from __future__ import annotations

from typing import Any

from core.checked import Check


class Cancelled(Exception):
    """The run was cancelled (not a failure)."""


def checker(cancel: Any) -> Check | None:
    """A ``check()`` that raises :class:`Cancelled` once ``cancel.is_set()``; None without a token."""
    if cancel is None:
        return None

    def check() -> None:
        if cancel.is_set():
            raise Cancelled

    return check
