"""The window's Review-tab chores kept out of ``main_window.py``: choosing a corpus to replay
and refreshing the Review tab (both read the store through the window's executor)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QInputDialog

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
