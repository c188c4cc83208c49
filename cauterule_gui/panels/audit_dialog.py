"""A rule's audit log: every decision, undo, mark and waiver, oldest first."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.store.review_repo import AuditEvent

from cauterule_gui.models.audit_table_model import AuditTableModel
from cauterule_gui.plain_text import plain_label


class AuditDialog(QDialog):
    def __init__(self, title: str, events: Sequence[AuditEvent], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("auditDialog")
        self.setWindowTitle("Audit log")
        heading = plain_label(title, self)
        heading.setWordWrap(True)
        self.model = AuditTableModel(events, self)
        self.table = QTableView(self)
        self.table.setObjectName("auditTable")
        self.table.setAccessibleName("Audit log")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        empty = plain_label("Nothing has been done to this rule yet." if not events else "", self)
        empty.setVisible(not events)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(empty)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(1000, 420)
