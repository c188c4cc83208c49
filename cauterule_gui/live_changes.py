"""Other reviewers' changes, live: a team store's change feed wired to the window's refreshes.

``core.team.live.ChangeFeed`` listens on its own thread and calls back with the kinds of
change committed elsewhere (decisions, labels, agreement, runs, …). :class:`LiveChanges`
turns that call into a Qt signal (``changes_arrived``), which Qt delivers on the GUI thread,
and :func:`install_live_changes` connects it to the window: the window's ``changes_applied``
signal when it has one (the one change signal the panels follow), otherwise the coalesced
rule-table refresh and the workflow tabs' refresh. A SQLite store has one user: no feed.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from core.team.live import ChangeFeed

RULE_KINDS = frozenset({"decisions", "promotions", "rules", "runs", "evidence"})
TAB_KINDS = frozenset({"labels", "agreement", "decisions", "promotions"})


class LiveChanges(QObject):
    """Emits ``changes_arrived(kinds)`` on the GUI thread after another connection commits."""

    changes_arrived = Signal(object)  # frozenset[str]

    def __init__(self, url: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Called on the feed's thread; emitting there queues delivery to this object's thread.
        self._feed = ChangeFeed(url, self.changes_arrived.emit)

    def start(self) -> LiveChanges:
        self._feed.start()
        return self

    @property
    def listening(self) -> bool:
        return self._feed.listening

    def stop(self) -> None:
        self._feed.stop()


def _apply(window: Any, kinds: frozenset[str]) -> None:
    applied = getattr(window, "changes_applied", None)
    if applied is not None:
        applied.emit(kinds)
        return
    if kinds & RULE_KINDS:
        window._live_refresh.start()  # the coalesced rule-table refresh replay results use
    if kinds & TAB_KINDS:
        window.workflows.refresh()
    if "corpora" in kinds:
        window.refresh()


def install_live_changes(window: Any) -> LiveChanges | None:
    """Follow the window's store if it is a team store; stopped when the window is destroyed."""
    store = getattr(window.services, "store", None)
    if store is None or not store.is_postgres:
        return None
    live = LiveChanges(store.path.connect_url, window)
    live.changes_arrived.connect(lambda kinds: _apply(window, kinds))
    window.destroyed.connect(live.stop)
    return live.start()
