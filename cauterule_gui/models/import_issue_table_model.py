"""Rejected records of one import run (file, line, field, reason): a small, fixed list."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from core.store.dto import ImportIssue

from cauterule_gui.plain_text import plain_tooltip

Index = QModelIndex | QPersistentModelIndex

HEADERS = ("File", "Line", "Field", "Reason", "Corpus")
COL_FILE, COL_LINE, COL_FIELD, COL_REASON, COL_CORPUS = range(len(HEADERS))


class ImportIssueTableModel(QAbstractTableModel):
    def __init__(self, issues: Sequence[ImportIssue] = (), parent: Any = None) -> None:
        super().__init__(parent)
        self._issues = list(issues)

    def issue(self, row: int) -> ImportIssue:
        return self._issues[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._issues)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(HEADERS):
            return HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._issues):
            return None
        issue = self._issues[index.row()]
        values = (issue.file, issue.line, issue.field or "—", issue.reason, issue.corpus or "—")
        if role == Qt.ItemDataRole.DisplayRole:
            value = values[index.column()]
            return "—" if value is None else value
        if role == Qt.ItemDataRole.ToolTipRole and index.column() in (0, 3):
            return plain_tooltip(str(values[index.column()]))
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
