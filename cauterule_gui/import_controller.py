"""Runs corpus imports as jobs and reports them: progress in the status bar, a result dialog."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from core.store.dto import ImportSummary

from cauterule_gui.jobs import JobFailure, JobHandle, JobRunner
from cauterule_gui.jobs.import_job import start_import
from cauterule_gui.panels.import_dialogs import ImportResultDialog, JobProgressWidget
from cauterule_gui.services import StoreServices


class ImportController(QObject):
    import_started = Signal(object)  # JobHandle
    import_finished = Signal(object)  # ImportSummary
    import_failed = Signal(object)  # JobFailure
    import_cancelled = Signal()
    import_done = Signal()  # after any outcome: the store may have changed, refresh views
    status_message = Signal(str)

    def __init__(self, runner: JobRunner, services: Callable[[], StoreServices | None],
                 progress: JobProgressWidget, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self._runner = runner
        self._services = services
        self._progress = progress
        self._parent = dialog_parent
        self.handle: JobHandle | None = None
        self.last_dialog: ImportResultDialog | None = None
        self.last_summary: ImportSummary | None = None

    @property
    def running(self) -> bool:
        return self.handle is not None and self.handle.running

    def start(self, paths: Sequence[Path], *, show_dialog: bool = True) -> JobHandle | None:
        services = self._services()
        if services is None or self.running:
            return None
        handle = start_import(self._runner, services.store, paths)
        self.handle = handle
        label = "Importing " + ", ".join(Path(p).name for p in paths)
        self._progress.track(handle, label, unit="files")
        handle.result.connect(lambda summary: self._on_result(summary, show_dialog))
        handle.error.connect(self._on_error)
        handle.cancelled.connect(self._on_cancelled)
        handle.finished.connect(self._on_finished)
        self.status_message.emit(label + "…")
        self.import_started.emit(handle)
        return handle

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()

    def _on_result(self, summary: ImportSummary, show_dialog: bool) -> None:
        self.last_summary = summary
        self.status_message.emit(
            f"Import finished: {summary.imported} imported, {summary.rejected} rejected "
            f"(report #{summary.report_id})"
        )
        if show_dialog:
            self.last_dialog = ImportResultDialog(summary, self._parent)
            self.last_dialog.open()  # window-modal, does not block the event loop
        # Announced once the report is on screen: what follows an import (the offer to replay)
        # waits for the report to close instead of opening on top of it.
        self.import_finished.emit(summary)

    def _on_error(self, failure: JobFailure) -> None:
        self.status_message.emit(f"Import failed: {failure}")
        self.import_failed.emit(failure)
        box = QMessageBox(QMessageBox.Icon.Critical, "Import failed", f"The import stopped:\n\n{failure}",
                          QMessageBox.StandardButton.Close, self._parent)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setDetailedText(failure.traceback)
        box.open()

    def _on_cancelled(self) -> None:
        self.status_message.emit("Import cancelled; files imported before the cancel are kept")
        self.import_cancelled.emit()

    def _on_finished(self) -> None:
        self.handle = None
        self.import_done.emit()
