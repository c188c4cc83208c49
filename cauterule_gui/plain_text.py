"""Untrusted text is always shown as plain text.

Trajectories carry injection payloads and HTML. Qt guesses rich text in labels and tooltips
(``Qt::mightBeRichText``), so every label that shows data is built here with
``Qt.PlainText``, and every tooltip made from data is converted from plain text first
(escaped, so the markup appears literally). Bidi control characters (a right-to-left
override would show ``exe.txt`` as ``txt.exe``) are shown as visible ``<U+202E>`` marks.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import QLabel, QWidget

from core.plain import show_bidi


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(show_bidi(text))
    return label


def plain_tooltip(text: str | None) -> str | None:
    """A tooltip string that Qt will render as exactly ``text`` (markup shown, not applied)."""
    if not text:
        return None
    return GuiQt.convertFromPlainText(show_bidi(text))


def literal_newlines(text: str) -> str:
    """Render the two-character sequence backslash-n as a line break (some corpora escape twice)."""
    return text.replace("\\r\\n", "\n").replace("\\n", "\n")
