"""One trajectory — task, steps and metadata — as plain text with emphasis.

Used twice: beside the corpus table, and in the review workspace where it also shows
replay's matched spans (highlighted through char formats) and a one-line score breakdown.

A long field is shown shortened with a "Show all (N characters)" button; the document is
built in time slices (``long_text.ProgressiveBuild``), so even a 10 MB field never blocks
the GUI thread for long.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QTextCursor, QTextOption
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QPushButton, QTextEdit, QVBoxLayout, QWidget

from core.store.dto import TrajectoryDetail

from cauterule_gui.panels.long_text import ProgressiveBuild
from cauterule_gui.panels.trajectory_document import Span, TrajectoryDocumentBuilder, ViewerOptions
from cauterule_gui.plain_text import plain_label

PLACEHOLDER = "Select a trajectory to read its task and steps."
# Records bigger than this are parsed on a worker thread: json.loads holds the GIL for the
# whole call, so the GUI thread still pauses once for it, but not for it plus the first
# slice of the document.
LARGE_RECORD_CHARS = 1_000_000
# Smaller records are shown in one go (a few milliseconds); bigger ones in slices.
PROGRESSIVE_CHARS = 200_000


class TrajectoryViewerPanel(QWidget):
    literal_newlines_changed = Signal(bool)
    rendered = Signal()  # the document is complete (also after a progressive build)

    def __init__(self, parent: QWidget | None = None, title: str = "Trajectory") -> None:
        super().__init__(parent)
        self._detail: TrajectoryDetail | None = None
        self._spans: tuple[Span, ...] = ()
        self.first_match: int | None = None
        self._expanded = False  # "Show all" was chosen for this trajectory
        self._builder: TrajectoryDocumentBuilder | None = None
        self._scroll_to_match = False
        self._progress = ProgressiveBuild(self)
        self._progress.finished.connect(self._on_built)
        self._record: tuple[str, dict[str, Any]] | None = None  # (record_json, parsed)
        self._parsing: dict[str, Any] = {}
        self._parse_poll = QTimer(self)
        self._parse_poll.setInterval(10)
        self._parse_poll.timeout.connect(self._poll_parse)

        heading = plain_label(title, self)
        self.heading = heading
        font = heading.font()
        font.setBold(True)
        heading.setFont(font)
        self.newlines_toggle = QCheckBox("Show \\n as line breaks", self)
        self.newlines_toggle.setObjectName("literalNewlinesToggle")
        self.newlines_toggle.setToolTip(
            "Some corpora store line breaks as the two characters \\ and n. "
            "Tick to show them as line breaks; untick to see the text exactly as stored."
        )
        self.newlines_toggle.toggled.connect(self._on_toggle)

        self.text = QTextEdit(self)
        self.text.setObjectName("trajectoryText")
        self.text.setAccessibleName("Trajectory text")
        self.text.setReadOnly(True)
        self.text.setAcceptRichText(False)  # nothing pasted or set here is ever interpreted
        self.text.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.text.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.text.setPlaceholderText(PLACEHOLDER)
        self.text.document().setUndoRedoEnabled(False)  # read-only: undo history would only cost memory

        self.show_all_button = QPushButton(self)
        self.show_all_button.setObjectName("showAllButton")
        self.show_all_button.setToolTip("Show long fields in full (built in the background; the window stays usable)")
        self.show_all_button.clicked.connect(self.show_all)
        self.show_all_button.hide()

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(heading)
        top.addStretch(1)
        top.addWidget(self.show_all_button)
        top.addWidget(self.newlines_toggle)
        # Why replay put this trajectory where it is (review workspace only).
        self.breakdown = plain_label("", self)
        self.breakdown.setObjectName("scoreBreakdown")
        self.breakdown.setWordWrap(True)
        self.breakdown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.breakdown.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.breakdown)
        layout.addWidget(self.text)

    @property
    def detail(self) -> TrajectoryDetail | None:
        return self._detail

    @property
    def literal_newlines(self) -> bool:
        return self.newlines_toggle.isChecked()

    def set_literal_newlines(self, on: bool) -> None:
        self.newlines_toggle.setChecked(on)

    def show_trajectory(self, detail: TrajectoryDetail | None, spans: Sequence[Span] = (),
                        breakdown: str | None = None) -> None:
        if detail is None or self._detail is None or detail.id != self._detail.id:
            self._expanded = False
        self._detail = detail
        self._spans = tuple(spans)
        self.breakdown.setText(breakdown or "")
        self.breakdown.setVisible(bool(breakdown) and detail is not None)
        self._scroll_to_match = True
        self._render()

    @property
    def is_complete(self) -> bool:
        """False while a long document is still being built."""
        return not self._progress.running and not self._parse_poll.isActive()

    def show_all(self) -> None:
        """Show every field in full; the document is rebuilt in slices (the GUI stays usable)."""
        self._expanded = True
        self._render()

    def rerender(self) -> None:
        """Rebuild the document (the palette or colour scheme changed)."""
        self._render()

    def plain_text(self) -> str:
        return self.text.document().toPlainText()

    def _on_toggle(self, on: bool) -> None:
        self._render()
        self.literal_newlines_changed.emit(on)

    def _render(self) -> None:
        document = self.text.document()
        self.first_match = None
        self._progress.cancel()
        self._parse_poll.stop()
        if self._detail is None:
            document.clear()
            self.show_all_button.hide()
            self.rendered.emit()
            return
        options = ViewerOptions(literal_newlines=self.literal_newlines)
        if self._expanded:
            options = ViewerOptions(literal_newlines=self.literal_newlines, shortened_chars=None)
        record = self._parsed_record(self._detail.record_json)
        if record is None:
            return  # parsing on a worker thread; _poll_parse renders when it is done
        self._builder = TrajectoryDocumentBuilder(document, self.palette(), options)
        ops = self._builder.operations(self._detail, self._spans, record)
        shortened = self._builder.shortened
        if shortened:
            longest = max(n for _field, n in shortened)
            self.show_all_button.setText(f"Show all ({longest:,} characters)")
        self.show_all_button.setVisible(bool(shortened))
        small = len(self._detail.record_json) < PROGRESSIVE_CHARS and not self._expanded
        self._progress.start(ops, all_now=small)  # small documents finish here, within this call

    def _parsed_record(self, record_json: str) -> dict[str, Any] | None:
        if self._record is not None and self._record[0] is record_json:
            return self._record[1]
        if len(record_json) < LARGE_RECORD_CHARS:
            self._record = (record_json, json.loads(record_json))
            return self._record[1]
        if self._parsing.get("json") is not record_json:
            job: dict[str, Any] = {"json": record_json}
            self._parsing = job
            threading.Thread(target=lambda: job.__setitem__("result", json.loads(record_json)), daemon=True).start()
        self._parse_poll.start()
        return None

    def _poll_parse(self) -> None:
        job = self._parsing
        if "result" not in job:
            return
        self._parse_poll.stop()
        self._parsing = {}
        if self._detail is not None and self._detail.record_json is job["json"]:
            self._record = (job["json"], job["result"])
            self._render()

    def _on_built(self) -> None:
        builder = self._builder
        self.first_match = builder.first_match if builder is not None else None
        self.text.moveCursor(QTextCursor.MoveOperation.Start)
        if self._scroll_to_match and self.first_match is not None:
            # Bring the first matched text into view (the header stays visible when it is near the top).
            cursor = self.text.textCursor()
            cursor.setPosition(self.first_match)
            self.text.setTextCursor(cursor)
            self.text.ensureCursorVisible()
        self._scroll_to_match = False
        self.rendered.emit()
