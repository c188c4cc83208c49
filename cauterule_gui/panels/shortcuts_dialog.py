"""The `?` cheat sheet, built from the actions themselves so every key shown is a key that acts."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cauterule_gui.plain_text import plain_label


def action_rows(groups: Sequence[tuple[str, Sequence[QAction]]]) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    for group, actions in groups:
        for action in actions:
            keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts() if not k.isEmpty()]
            if keys:
                rows.append((group, action.text().replace("&", ""), "  or  ".join(keys)))
    return rows


class ShortcutsDialog(QDialog):
    def __init__(self, groups: Sequence[tuple[str, Sequence[QAction]]], parent: QWidget | None = None, *,
                 rows: Sequence[tuple[str, str, str]] = (), heading: str = "") -> None:
        """``rows`` (the keys of the tab in front) come first, then the ``groups`` of actions."""
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle(f"Keyboard shortcuts — {heading}" if heading else "Keyboard shortcuts")
        self.rows = list(rows) + action_rows(groups)
        note = plain_label(
            (f"Keys of the {heading} tab first, then the keys that work everywhere. " if heading else "")
            + "Single-key shortcuts act only when no text field has focus (Esc leaves a text field). "
            "Review ▸ Single-key shortcuts turns them off.", self,
        )
        note.setWordWrap(True)
        table = QTableWidget(len(self.rows), 3, self)
        table.setObjectName("shortcutsTable")
        table.setHorizontalHeaderLabels(["Area", "Action", "Keys"])
        for r, values in enumerate(self.rows):
            for c, value in enumerate(values):
                table.setItem(r, c, QTableWidgetItem(value))
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        table.resizeColumnToContents(0)
        table.resizeColumnToContents(2)
        self.table = table
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(table, 1)
        layout.addWidget(buttons)
        self.resize(620, 640)
