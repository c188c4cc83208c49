"""File > Export rule store…: write the store's standing rules as a CauterRule 0.3.1 rule store.

The folder is picked with a dialog, the export runs as a read through the window's database
executor (it reads the store and writes files, and records nothing in the store, so it is a
``query``, not an ``op``; the GUI thread never waits), and the outcome is shown: how many rules, where,
and any format notes — or the core's refusal as it is (a non-empty folder that is not a
previous Workbench export is never written to).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.jobs.runner import JobHandle
from cauterule_gui.services import StoreServices

ChooseFolder = Callable[[QWidget | None], Path | None]
Report = Callable[[QWidget | None, str, str, bool], None]  # parent, title, text, is_error


def choose_export_folder(parent: QWidget | None) -> Path | None:
    folder = QFileDialog.getExistingDirectory(
        parent, "Export rule store to folder (new, empty, or a previous export)", "",
        QFileDialog.Option.ShowDirsOnly,
    )
    return Path(folder) if folder else None


def show_report(parent: QWidget | None, title: str, text: str, is_error: bool) -> None:
    """Window-modal, non-blocking: the event loop (and other jobs) keep running."""
    box = QMessageBox(QMessageBox.Icon.Warning if is_error else QMessageBox.Icon.Information, title, text,
                      QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)  # paths and notes are data
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()


def describe_result(result: Any) -> str:
    count = result.rules
    lines = [f"Exported {count} standing rule{'s' if count != 1 else ''} to\n{result.out_dir}",
             f"({len(result.files)} files: one YAML per rule plus index.yaml; CauterRule 0.3.1 can load it.)"]
    if result.notes:
        lines.append("\nNotes:")
        lines.extend(f"• {note}" for note in result.notes)
    return "\n".join(lines)


def export_rule_store_interactive(parent: QWidget | None, db: DatabaseExecutor,
                                  choose_folder: ChooseFolder | None = None,
                                  report: Report | None = None) -> JobHandle | None:
    """Ask for a folder, export there in the background, and say what happened.

    Returns the job (None if there is no store or the reviewer cancelled the folder choice).
    """
    tell = report or show_report
    if db.services() is None:
        tell(parent, "Export rule store", "Open a store first: there is nothing to export.", True)
        return None
    folder = (choose_folder or choose_export_folder)(parent)
    if folder is None:
        return None

    def work(services: StoreServices) -> Any:
        from core.export.rule_store import export_rule_store

        return export_rule_store(services.store, folder)

    def done(result: Any) -> None:
        tell(parent, "Rule store exported", describe_result(result), False)

    def failed(error: BaseException) -> None:
        from core.export.atomic import ExportBusyError
        from core.export.rule_store import RuleStoreExportError

        if isinstance(error, ExportBusyError):  # one sentence: who holds the folder, what to do
            tell(parent, "Export not done: the folder is busy",
                 f"Another export ({error.holder}) is still writing {folder}, so nothing was changed: "
                 "export again when it has finished.", True)
            return
        refused = isinstance(error, RuleStoreExportError)
        if refused:
            text = f"Nothing was exported, and nothing in the folder was changed.\n\n{error}"
        else:
            text = f"The export to\n{folder}\nfailed:\n\n{type(error).__name__}: {error}"
        tell(parent, "Export refused" if refused else "Export failed", text, True)

    return db.query(work, done, name="export rule store", on_error=failed)
