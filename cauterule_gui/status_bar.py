"""The window's status bar: the message, the jobs, the store path, the reviewer and the model
state each in their own widget, separated, so a long message never runs into the store path.

``QStatusBar.showMessage`` paints its text in the space the permanent widgets leave, with no
border between them ("…F-010-deploStore: …"). Here ``showMessage`` / ``currentMessage`` /
``clearMessage`` keep their meaning (every caller and test uses them) but the text lives in
its own label, elided at the right with the whole text in its tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QStatusBar, QWidget

from core.plain import show_bidi

from cauterule_gui.plain_text import plain_tooltip


class ElidedLabel(QLabel):
    """A one-line plain-text label that elides what does not fit (the tooltip has it whole)."""

    def __init__(self, parent: QWidget | None = None, mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._full = ""
        self._mode = mode
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def set_full_text(self, text: str) -> None:
        self._full = show_bidi(text)
        self.setToolTip(plain_tooltip(text) or "")  # names and paths are data: never rich text
        self._elide()

    def full_text(self) -> str:
        return self._full

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        """The whole text's width (capped by the maximum width): a permanent section asks for
        what it shows, so it never overlaps its neighbour."""
        hint = super().sizeHint()
        wanted = self.fontMetrics().horizontalAdvance(" ".join(self._full.split())) + 4
        return QSize(max(self.minimumWidth(), min(wanted, self.maximumWidth())), hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(self.minimumWidth(), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        one_line = " ".join(self._full.split())
        self.setText(self.fontMetrics().elidedText(one_line, self._mode, max(self.width(), 0)))


def section_label(parent: QWidget, name: str, min_chars: int, max_chars: int,
                  mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight) -> ElidedLabel:
    """A permanent status-bar section that asks for its whole text (up to ``max_chars``) and
    gives way down to ``min_chars`` when the window is narrow: a status bar must never make
    the window wider (a long reviewer name or model state used to push its minimum past
    1,000 px). The tooltip keeps the whole text."""
    label = ElidedLabel(parent, mode)
    label.setObjectName(name)
    chars = parent.fontMetrics().averageCharWidth()
    label.setMinimumWidth(chars * min_chars)
    label.setMaximumWidth(chars * max_chars)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
    return label


def separator(parent: QWidget) -> QFrame:
    line = QFrame(parent)
    line.setFrameShape(QFrame.Shape.VLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line


class WindowStatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message_label = ElidedLabel(self)
        self.message_label.setObjectName("statusMessage")
        self.message_label.setAccessibleName("Status message")
        self.addWidget(self.message_label, 1)
        self._expire = QTimer(self)
        self._expire.setSingleShot(True)
        self._expire.timeout.connect(self.clearMessage)

    def add_section(self, widget: QWidget) -> None:
        """A permanent widget after a separator line (store path, reviewer, model state)."""
        self.addPermanentWidget(separator(self))
        self.addPermanentWidget(widget)

    def showMessage(self, text: str, timeout: int = 0) -> None:  # noqa: N802 (Qt's name)
        self.message_label.set_full_text(text)
        self.messageChanged.emit(text)
        if timeout > 0:
            self._expire.start(timeout)
        else:
            self._expire.stop()

    def currentMessage(self) -> str:  # noqa: N802 (Qt's name)
        return self.message_label.full_text()

    def clearMessage(self) -> None:  # noqa: N802 (Qt's name)
        self._expire.stop()
        if self.message_label.full_text():
            self.message_label.set_full_text("")
            self.messageChanged.emit("")
