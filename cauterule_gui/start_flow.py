"""Getting started: the demo store, the next step, and "replay now?" after an import.

The demo corpus lives in its own store (``demo.sqlite`` beside the default store), opened
with File ▸ Open demo store or from the welcome page; it is never imported into a
reviewer's store, where its rules would be replayed against real trajectories.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMessageBox

from core.importing import ImportSummary
from core.store.engine import default_store_path
from core.store.workspace_query import WorkspaceFilter, WorkspaceScope

from cauterule_gui.panels.welcome_panel import next_step
from cauterule_gui.self_test import demo_corpus_path

if TYPE_CHECKING:
    from cauterule_gui.main_window import MainWindow


def demo_store_path() -> Path:
    return default_store_path().with_name("demo.sqlite")


class StartFlow:
    def __init__(self, window: MainWindow) -> None:
        self._window = window
        self.interactive = True  # False for --screenshot / tests that drive the flow themselves
        self.replay_offer: QMessageBox | None = None
        self._replay_demo = False
        window.importer.import_finished.connect(self._on_import_finished)

    def describe(self) -> None:
        """Refresh the welcome page's store sentence and its next step."""
        window = self._window
        services = window.services
        if services is None:
            window.welcome.set_store_description("No store is open.")
            window.welcome.set_next_step("import", next_step(0, False, 0)[1])
            return
        demo = " (the demo store)" if self.is_demo_store() else ""

        def shown(found: tuple[list[Any], bool, int]) -> None:
            corpora, has_results, unreviewed = found
            count = sum(c.trajectories for c in corpora)
            window.welcome.set_store_description(
                f"Store {services.path}{demo}: {count} trajectories in {len(corpora)} corpora. "
                "Everything stays on this machine.")
            window.welcome.set_next_step(*next_step(len(corpora), has_results, unreviewed))

        # The rules nobody has decided, counted in the store (newest result per rule): the rules
        # table's count follows its filter and is read again later than this.
        undecided = WorkspaceFilter(status="unreviewed")
        window.db.query(lambda s: (s.corpora.list_corpora(), s.results.has_results(),
                                   s.results.count_rules(WorkspaceScope(), undecided)), shown,
                        name="store summary", key="start-describe")

    def is_demo_store(self) -> bool:
        services = self._window.services
        return services is not None and services.path.resolve() == demo_store_path().resolve()

    def open_demo_store(self) -> bool:
        """Switch to the demo store; the first time, import the demo corpus and replay it."""
        window = self._window
        if not window.switch_store(demo_store_path()):
            return False
        services = window.services
        if services is not None and not services.corpora.list_corpora():
            self._replay_demo = True
            window.importer.start([demo_corpus_path()], show_dialog=False)
        self.describe()
        return True

    def _on_import_finished(self, summary: ImportSummary) -> None:
        window = self._window
        if self._replay_demo:
            self._replay_demo = False
            window.replay_everything()
            window.show_review()
            return
        if not self.interactive or summary.rules_imported + summary.imported == 0:
            return
        dialog = window.importer.last_dialog
        if dialog is not None and dialog.isVisible():
            dialog.finished.connect(lambda _r: self.offer_replay(summary))
        else:
            self.offer_replay(summary)

    def offer_replay(self, summary: ImportSummary) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Question, "Replay now?",
                          f"Imported {summary.imported} trajectories and {summary.rules_imported} rules.\n\n"
                          "Replay every rule against the store now and open the Review tab? Results "
                          "appear in the Review tab as they finish.", QMessageBox.StandardButton.NoButton,
                          self._window)
        box.setTextFormat(Qt.TextFormat.PlainText)
        replay = box.addButton("Replay and review", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Not now", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(replay)
        box.buttonClicked.connect(lambda button: self._replay_and_review() if button is replay else None)
        self.replay_offer = box
        box.open()
        return box

    def _replay_and_review(self) -> None:
        self._window.replay_everything()
        # After the offer has closed (it hands the focus back as it hides): the rules table
        # then keeps the focus, so J / K / A / R / D act at once.
        QTimer.singleShot(0, self._window.show_review)
