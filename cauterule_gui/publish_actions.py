"""File ▸ Publish to rule store…: bring a real CauterRule rule store up to date (issue 28).

The reviewer picks the rule store folder (one imported before); the dry run is read off the
GUI thread (``core.publish.service.preview``) and shown in a dialog as plain text: added,
changed with a diff per file, left alone, notes. Nothing is written until the reviewer
presses Publish; a new rule that fires at injection on no task needs its box ticked (the
acknowledgement goes into the audit log), and a store changed on disk since its import is
shown as the core's refusal with a second, explicit choice to publish over the changes.
The publish itself runs as a write on the database thread (it records the store's new state
and an audit event).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from core.publish.service import describe_result as describe

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.export_actions import Report, show_report
from cauterule_gui.jobs.runner import JobHandle
from cauterule_gui.services import StoreServices

ChooseFolder = Callable[[QWidget | None], Path | None]


def choose_rule_store(parent: QWidget | None) -> Path | None:
    folder = QFileDialog.getExistingDirectory(parent, "Publish to rule store (a folder imported before)", "",
                                              QFileDialog.Option.ShowDirsOnly)
    return Path(folder) if folder else None


class PublishDialog(QDialog):
    """The dry run and the confirmation. ``publish_confirmed(acknowledged ids)`` on Publish."""

    publish_confirmed = Signal(list)

    def __init__(self, result: Any, parent: QWidget | None = None, over_changes: bool = False) -> None:
        super().__init__(parent)
        self.setWindowTitle("Publish to rule store — dry run")
        self.over_changes = over_changes
        layout = QVBoxLayout(self)
        heading = QLabel("Nothing has been written yet. This is what publishing will do:")
        heading.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(heading)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setPlainText(describe(result))  # file names, rule text and diffs are data: plain text
        self.text.setFont(QFont("monospace"))
        self.text.setMinimumSize(760, 420)
        layout.addWidget(self.text)
        self.acknowledgements: dict[str, QCheckBox] = {}
        for standing_id in result.plan.no_task:
            box = QCheckBox(f"I acknowledge that {standing_id} fires at injection on no task of this store "
                            "(recorded in the audit log)", self)
            box.toggled.connect(lambda _on: self._update())
            self.acknowledgements[standing_id] = box
            layout.addWidget(box)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, parent=self)
        self.publish_button = self.buttons.addButton("Publish", QDialogButtonBox.ButtonRole.AcceptRole)
        self.publish_button.setEnabled(not result.plan.empty)
        self.buttons.accepted.connect(self._confirm)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._empty = result.plan.empty
        self._update()

    def _update(self) -> None:
        ticked = all(box.isChecked() for box in self.acknowledgements.values())
        self.publish_button.setEnabled(not self._empty and ticked)

    def _confirm(self) -> None:
        self.publish_confirmed.emit([i for i, box in self.acknowledgements.items() if box.isChecked()])
        self.accept()


def publish_interactive(parent: QWidget | None, db: DatabaseExecutor, actor: Callable[[], str | None],
                        choose_folder: ChooseFolder | None = None, report: Report | None = None,
                        show: Callable[[PublishDialog], None] | None = None) -> JobHandle | None:
    """Ask for the folder, show the dry run, publish on confirmation, and say what happened."""
    tell = report or show_report
    if db.services() is None:
        tell(parent, "Publish to rule store", "Open a store first: there is nothing to publish.", True)
        return None
    folder = (choose_folder or choose_rule_store)(parent)
    if folder is None:
        return None
    state: dict[str, Any] = {}

    def dry_run(over_changes: bool) -> JobHandle | None:
        def work(services: StoreServices) -> Any:
            from core.publish.service import preview

            return preview(services.store, folder, accept_changes=over_changes)

        return db.query(work, lambda result: offer(result, over_changes), name="publish dry run",
                        on_error=lambda error: refused(error, over_changes))

    def offer(result: Any, over_changes: bool) -> None:
        dialog = PublishDialog(result, parent, over_changes)
        dialog.publish_confirmed.connect(lambda ids: write(ids, over_changes))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        state["dialog"] = dialog
        (show or (lambda d: d.open()))(dialog)

    def write(acknowledged: list[str], over_changes: bool) -> None:
        name = actor()
        if not name:
            tell(parent, "Publish to rule store", "Set your reviewer name first (it goes into the audit log).", True)
            return

        def work(services: StoreServices) -> Any:
            from core.publish.service import publish

            return publish(services.store, folder, name, accept_changes=over_changes,
                           acknowledge_no_task=acknowledged)

        db.op(work, lambda result: tell(parent, "Published", describe(result), False), kinds={"promotion"},
              name="publish to rule store", on_error=lambda error: refused(error, over_changes))

    def refused(error: BaseException, over_changes: bool) -> None:
        from core.publish.plan import PublishRefused

        if isinstance(error, PublishRefused) and "changed on disk" in str(error) and not over_changes:
            ask_over_changes(error)
            return
        text = (f"Nothing was written.\n\n{error}" if isinstance(error, PublishRefused)
                else f"The publish to\n{folder}\nfailed:\n\n{type(error).__name__}: {error}")
        tell(parent, "Publish refused" if isinstance(error, PublishRefused) else "Publish failed", text, True)

    def ask_over_changes(error: BaseException) -> None:
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(QMessageBox.Icon.Warning, "The rule store changed on disk",
                          f"{error}\n\nRe-import the folder to review against what it holds now, or look at a dry "
                          "run that keeps those changes and publishes over them.",
                          QMessageBox.StandardButton.Cancel, parent)
        box.setTextFormat(Qt.TextFormat.PlainText)
        over = box.addButton("Dry run over the changes…", QMessageBox.ButtonRole.AcceptRole)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda button: dry_run(True) if button is over else None)
        state["changed_box"] = box
        box.open()

    return dry_run(False)
