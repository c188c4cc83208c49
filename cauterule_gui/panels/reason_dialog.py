"""A small dialog asking for a reason (reject, waive, defer note): Enter accepts, Esc cancels.

OK stays disabled until something is typed, so an empty reason can never be submitted.
Opened with ``open()`` (window-modal, not blocking the event loop); ``reason_given`` carries
the text.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLineEdit, QVBoxLayout, QWidget

from cauterule_gui.plain_text import plain_label


class ReasonDialog(QDialog):
    reason_given = Signal(str)

    def __init__(self, title: str, prompt: str, parent: QWidget | None = None, *, required: bool = True,
                 ok_text: str = "OK") -> None:
        super().__init__(parent)
        self.setObjectName("reasonDialog")
        self.setWindowTitle(title)
        self._required = required
        self.prompt = plain_label(prompt, self)
        self.prompt.setWordWrap(True)
        self.edit = QLineEdit(self)
        self.edit.setObjectName("reasonEdit")
        self.edit.setAccessibleName(title)
        self.edit.setPlaceholderText("reason (required)" if required else "note (optional)")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText(ok_text)
        self.ok_button.setDefault(True)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        self.edit.textChanged.connect(self._update)
        layout = QVBoxLayout(self)
        layout.addWidget(self.prompt)
        layout.addWidget(self.edit)
        layout.addWidget(self.buttons)
        self.resize(480, self.sizeHint().height())
        self._update()

    def _update(self) -> None:
        self.ok_button.setEnabled(bool(self.edit.text().strip()) or not self._required)

    def _accept(self) -> None:
        text = self.edit.text().strip()
        if self._required and not text:
            return
        self.accept()
        self.reason_given.emit(text)
