"""The window's Review-tab chores kept out of ``main_window.py``: choosing a corpus to replay
and refreshing the Review tab (both read the store through the window's executor), and
``LiveResults``: a running replay's results shown in the Review tab as they arrive, one
refresh per beat, in slices of GUI work."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QInputDialog

from core.store.workspace_query import WorkspaceScope

if TYPE_CHECKING:
    from cauterule_gui.main_window import MainWindow


def replay_corpus(window: MainWindow) -> None:
    """Ask which corpus's rules to replay (the choices are read first, off the GUI thread)."""
    def choose(corpora: list[str]) -> None:
        if not corpora:
            window.statusBar().showMessage("No corpus holds rules", 10_000)
            return
        name, ok = QInputDialog.getItem(window, "Replay a corpus", "Replay the rules of corpus:", corpora, 0, False)
        if ok and name:
            window.db.query(lambda s: s.rules.ids_in_corpus(name),
                            lambda ids: window.replay.start(f"corpus {name}", ids), name="rules of a corpus")

    window.db.query(lambda s: s.rules.corpora(), choose, name="corpora with rules")


def refresh_review(window: MainWindow) -> None:
    """The Review tab reads again: the start page's summary, duplicates, filter choices, rows."""
    window.start.describe()
    window.bulk.refresh_duplicates()
    window.workspace.rules.refresh_options()
    window.workspace.rules.refresh()


LIVE_REFRESH_MS = 250
DUPLICATES_AFTER_REPLAY_MS = 1500  # well after the post-replay refresh slices


class LiveResults:
    """A replay's results reaching the Review tab (a mixin of ``MainWindow``)."""

    _live_refresh: QTimer

    def _build_live_refresh(self: MainWindow) -> None:
        self._live_refresh = QTimer(self)
        self._live_refresh.setSingleShot(True)
        self._live_refresh.setInterval(LIVE_REFRESH_MS)
        self._live_refresh.timeout.connect(self._live_tick)

    def _on_results_arrived(self: MainWindow, run_id: int) -> None:
        rules = self.workspace.rules
        if rules.model.scope.run_id is None and run_id not in rules.model.scope.live_run_ids:
            rules.model.set_scope(WorkspaceScope(live_run_ids=(run_id,)))
            self.refresh_history()
        # Coalesced: chunks can arrive faster than a reviewer can read; one refresh per beat.
        if not self._live_refresh.isActive():
            self._live_refresh.start()

    def _live_tick(self: MainWindow) -> None:
        # A read still on its way is let land (a new one would drop it): the next beat re-reads.
        if self.workspace.rules.model.busy:
            self._live_refresh.start()
        else:
            self._sliced(self.workspace.rules.refresh)

    def _on_replay_done(self: MainWindow) -> None:
        self._live_refresh.stop()
        QTimer.singleShot(DUPLICATES_AFTER_REPLAY_MS, self.bulk.refresh_duplicates)  # replay made candidates; after the refresh
        self.db.notify({"replay"}, self.replay)  # the review table below refreshes itself, sliced
        self._set_store_actions_enabled(True)
        rules = self.workspace.rules
        if rules.model.scope.live_run_ids:
            self._sliced(lambda: rules.model.set_scope(WorkspaceScope()), rules.refresh_options)
        else:
            self._sliced(rules.refresh, rules.refresh_options)

    def _sliced(self: MainWindow, first: Callable[[], object], *later: Callable[[], object]) -> None:
        """Refresh the table now; the filter choices and the evidence board in later
        event-loop turns, so no single slice of GUI work grows past a few tens of ms."""
        self.review.hold()
        try:
            keep = self.workspace.rules.current_rule_id()
            first()
            if keep is not None and self.workspace.rules.current_rule_id() != keep:
                self.workspace.rules.select_rule(keep)
        finally:
            for step in later:
                QTimer.singleShot(0, step)
            QTimer.singleShot(0, self.review.release)
