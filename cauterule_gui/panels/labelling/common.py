"""What the labelling pages share: timings, the status filter's choices, the guidelines file, the semantic
embedder and the variant list editor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

AUTOSAVE_MS = 800
FEEDBACK_MS = 300
FILTER_MS = 250
STATUSES = (("all", "All trajectories"), ("missing", "Missing my label"), ("labelled", "Has my label"),
            ("no_ground_truth", "No ground truth at all"))
NO_GUIDELINES = ("No labelling guidelines yet.\n\nThe team's guidelines are read from\n{path}\n"
                 "which does not exist (yet). Write them there in Markdown and press Reload.")


def guidelines_path() -> Path:
    from cauterule_gui.self_test import resources_path

    return resources_path() / "labelling-guidelines.md"


def semantic_embedder() -> Any:
    """The in-memory embedder shared with the promotion screen (raises when unavailable)."""
    from cauterule_gui.panels.promotion import load_embedder

    return load_embedder()


class VariantListEditor(QWidget):
    """A small list editor for acceptable variant sentences (items are plain text)."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget(self)
        self.list.setObjectName("labelVariants")
        self.list.setAccessibleName("Acceptable variants")
        self.list.setMaximumHeight(78)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed
                                  | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.list.itemChanged.connect(lambda _item: self.changed.emit())
        self.add_button = QPushButton("Add", self)
        self.add_button.setAccessibleName("Add a variant")
        self.add_button.setToolTip("Add an acceptable alternative rule sentence (“when …, do …”)")
        self.add_button.clicked.connect(lambda: self.add_variant(""))
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setAccessibleName("Remove the selected variant")
        self.remove_button.clicked.connect(self.remove_current)
        buttons = QVBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)

    def variants(self) -> tuple[str, ...]:
        return tuple(self.list.item(i).text() for i in range(self.list.count()))

    def set_variants(self, variants: tuple[str, ...]) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        for text in variants:
            self._item(text)
        self.list.blockSignals(False)

    def _item(self, text: str) -> QListWidgetItem:
        item = QListWidgetItem(text)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        self.list.addItem(item)
        return item

    def add_variant(self, text: str = "") -> None:
        item = self._item(text)
        self.list.setCurrentItem(item)
        if not text:
            self.list.editItem(item)
        self.changed.emit()

    def remove_current(self) -> None:
        row = self.list.currentRow()
        if row >= 0:
            self.list.takeItem(row)
            self.changed.emit()

