"""One trajectory — task, steps and metadata — as plain text with emphasis.

Used twice: beside the corpus table, and in the review workspace where it also shows
replay's matched spans (highlighted through char formats) and a one-line score breakdown.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QTextCursor, QTextOption
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QTextEdit, QVBoxLayout, QWidget

from core.store.dto import TrajectoryDetail

from cauterule_gui.panels.trajectory_document import Span, TrajectoryDocumentBuilder, ViewerOptions
from cauterule_gui.plain_text import plain_label

PLACEHOLDER = "Select a trajectory to read its task and steps."


class TrajectoryViewerPanel(QWidget):
    literal_newlines_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None, title: str = "Trajectory") -> None:
        super().__init__(parent)
        self._detail: TrajectoryDetail | None = None
        self._spans: tuple[Span, ...] = ()
        self.first_match: int | None = None

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

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(heading)
        top.addStretch(1)
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
        self._detail = detail
        self._spans = tuple(spans)
        self.breakdown.setText(breakdown or "")
        self.breakdown.setVisible(bool(breakdown) and detail is not None)
        self._render()
        if self.first_match is not None:
            # Bring the first matched text into view (the header stays visible when it is near the top).
            cursor = self.text.textCursor()
            cursor.setPosition(self.first_match)
            self.text.setTextCursor(cursor)
            self.text.ensureCursorVisible()

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
        if self._detail is None:
            document.clear()
            return
        builder = TrajectoryDocumentBuilder(
            document, self.palette(), ViewerOptions(literal_newlines=self.literal_newlines)
        )
        builder.build(self._detail, self._spans)
        self.first_match = builder.first_match
        self.text.moveCursor(QTextCursor.MoveOperation.Start)
