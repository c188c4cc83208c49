"""A small read-only table model over a list of frozen rows (labels, agreement, audit, run history).

Subclasses give ``COLUMNS`` (header, tooltip) and ``cell(row, column)``; every cell made
from data is plain text and its tooltip is escaped (``plain_tooltip``), so markup in a label
or a rule is shown literally, never rendered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from cauterule_gui.plain_text import plain_tooltip

Index = QModelIndex | QPersistentModelIndex
Row = TypeVar("Row")
ROW_ROLE = Qt.ItemDataRole.UserRole + 1  # the row object itself


class RowsTableModel(QAbstractTableModel, Generic[Row]):
    COLUMNS: tuple[tuple[str, str], ...] = ()
    CENTRED: frozenset[int] = frozenset()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Row] = []

    # -- public API ----------------------------------------------------------------------
    def set_rows(self, rows: Sequence[Row]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rows(self) -> list[Row]:
        return list(self._rows)

    def row_at(self, row: int) -> Row | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def cell(self, item: Row, column: int) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def tooltip(self, item: Row, column: int) -> str | None:
        return plain_tooltip(self.cell(item, column))

    def foreground(self, item: Row, column: int) -> Any:
        return None

    # -- Qt model interface --------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.COLUMNS[section][1] or None
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows) or index.column() >= len(self.COLUMNS):
            return None
        item = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(item, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(item, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in self.CENTRED:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ForegroundRole:
            return self.foreground(item, column)
        if role == ROW_ROLE:
            return item
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


def one_line(text: str | None, limit: int = 160) -> str:
    """Whitespace collapsed to one line and cut at ``limit`` characters (for table cells)."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def when_text(at: str | None) -> str:
    return "—" if not at else at.replace("T", " ")[:19]
