"""Import UI: the status-bar progress widget (with Cancel) and the result dialog."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.store.dto import ImportSummary

from cauterule_gui.column_fit import ColumnFit
from cauterule_gui.jobs import JobHandle
from cauterule_gui.models.import_issue_table_model import (
    COL_CORPUS,
    COL_FIELD,
    COL_FILE,
    COL_LINE,
    COL_REASON,
    ImportIssueTableModel,
)
from cauterule_gui.plain_text import plain_label
from cauterule_gui.status_bar import section_label

SHOW_AFTER_MS = 500  # short jobs finish without the progress bar flashing


class JobProgressWidget(QWidget):
    """Progress bar, ETA and Cancel for one job at a time; appears only if the job takes a while."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The job's words elide (whole in the tooltip) and the bar shrinks: a running job must
        # not make the window wider than the screen.
        self.label = section_label(self, "jobLabel", 8, 50)
        self.eta_label = section_label(self, "jobEta", 4, 12)
        self._started = 0.0
        self._unit: str | Callable[[str], str] = ""
        self.bar = QProgressBar(self)
        self.bar.setMaximumWidth(260)
        self.bar.setMinimumWidth(self.fontMetrics().averageCharWidth() * 8)
        self.bar.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.bar.setTextVisible(True)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setAccessibleName("Cancel the running job")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.eta_label)
        layout.addWidget(self.cancel_button)
        self._handle: JobHandle | None = None
        self._show_timer = QTimer(self)
        self._show_timer.setSingleShot(True)
        self._show_timer.setInterval(SHOW_AFTER_MS)
        self._show_timer.timeout.connect(self._reveal)
        self.cancel_button.clicked.connect(self._cancel)
        self.hide()

    def track(self, handle: JobHandle, label: str, unit: str | Callable[[str], str] = "") -> None:
        """Follow ``handle``; the bar reads "368 / 469 <unit>" (``unit`` may be read from the
        job's progress message, e.g. the replay's "pairs" / "texts")."""
        self._handle = handle
        self._unit = unit
        self._started = time.monotonic()
        self.eta_label.set_full_text("")
        self.label.set_full_text(label)
        self.bar.setRange(0, 0)  # busy until the first progress report
        self.cancel_button.setEnabled(True)
        handle.progress.connect(self._on_progress)
        handle.finished.connect(self._on_finished)
        self._show_timer.start()

    def _reveal(self) -> None:
        if self._handle is not None and self._handle.running:
            self.show()

    def _on_progress(self, done: int, total: int, message: str) -> None:
        if total > 0:
            self.bar.setRange(0, total)
            self.bar.setValue(done)
            unit = self._unit(message) if callable(self._unit) else self._unit
            self.bar.setFormat(f"{done:,} / {total:,} {unit}".rstrip())
            self.eta_label.set_full_text(eta_text(time.monotonic() - self._started, done, total))
        if message:
            self.bar.setToolTip(message)

    def _cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self.cancel_button.setEnabled(False)
            self.label.set_full_text("Cancelling…")

    def _on_finished(self) -> None:
        self._show_timer.stop()
        self._handle = None
        self.hide()


def eta_text(elapsed: float, done: int, total: int) -> str:
    """Remaining time from the rate so far; nothing until there is a rate to go on."""
    if done <= 0 or total <= 0 or elapsed < 0.5:
        return "ETA …"
    remaining = max(0.0, elapsed * (total - done) / done)
    if remaining < 60:
        return f"ETA {remaining:.0f} s"
    return f"ETA {remaining / 60:.0f} min"


def summary_text(summary: ImportSummary) -> str:
    updated = sum(c.updated for c in summary.corpora)
    unchanged = sum(c.unchanged for c in summary.corpora)
    removed = sum(c.removed for c in summary.corpora)
    lines = [
        f"{len(summary.corpora)} {'corpus' if len(summary.corpora) == 1 else 'corpora'}: "
        f"{summary.imported} trajectories imported, {updated} updated, "
        f"{unchanged} unchanged, {removed} removed; {summary.rules_imported} rules imported.",
        f"{summary.rejected} records rejected" + (" (listed below; the records around them were imported)."
                                                  if summary.rejected else "."),
    ]
    lines.extend(f"Note: {note}" for note in summary.notes)
    return "\n".join(lines)


class ImportResultDialog(QDialog):
    """What an import did, and every rejected record with file, line, field and reason."""

    def __init__(self, summary: ImportSummary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Import finished — report #{summary.report_id}")
        self.summary = summary
        self.summary_label = plain_label(summary_text(summary), self)
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model = ImportIssueTableModel(summary.issues, self)
        self.table = QTableView(self)
        self.table.setObjectName("rejectionTable")
        self.table.setAccessibleName("Rejected records")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # The reason is what the reviewer reads: it gets the room and wraps; the file path is
        # elided at its front (its name stays), whole in the tooltip.
        self.table.setWordWrap(True)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.column_fit = ColumnFit(self.table, {COL_LINE: "12345", COL_FIELD: "expected_outcome"},
                                    {COL_FILE: (1.0, 14), COL_REASON: (3.0, 30), COL_CORPUS: (0.6, 8)})
        self.column_fit.elide_left(COL_FILE, COL_CORPUS)
        self.table.setVisible(bool(summary.issues))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(860, 420 if summary.issues else 160)
