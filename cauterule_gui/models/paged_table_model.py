"""The base of the large, SQL-backed tables (trajectories, rules): lazy pages, SQL sorting.

A subclass holds only the rows fetched so far and says how to get them: ``_reload()``
fetches the total and the first page, ``_fetch(offset)`` the next page. Sorting asks the
repository for another order (a reset: the re-sorted first page may hold fewer rows), and
the next page is fetched when the view scrolls near the end (``canFetchMore`` /
``fetchMore``). ``COLUMNS`` holds (header, repository sort key, header tooltip).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

Index = QModelIndex | QPersistentModelIndex
Row = TypeVar("Row")


class PagedTableModel(QAbstractTableModel, Generic[Row]):
    total_changed = Signal(int)  # rows matching the filter (not just those fetched)
    COLUMNS: tuple[tuple[str, str, str], ...] = ()

    def __init__(self, parent: Any = None, page_size: int = 200, order_by: str = "id") -> None:
        super().__init__(parent)
        self._page = page_size
        self._order_by = order_by
        self._descending = False
        self._rows: list[Row] = []
        self._total = 0

    # -- what a subclass provides -------------------------------------------------------
    def _reload(self) -> None:
        """Set ``self._total`` and ``self._rows`` (the first page) for the current query."""
        raise NotImplementedError

    def _fetch(self, offset: int) -> list[Row]:
        """The page of rows starting at ``offset``; [] when there are none (or no store)."""
        raise NotImplementedError

    # -- shared behaviour ---------------------------------------------------------------
    @property
    def total(self) -> int:
        return self._total

    def refresh(self) -> None:
        self.beginResetModel()
        self._reload()
        self.endResetModel()
        self.total_changed.emit(self._total)

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008 - Qt signature
        return not parent.isValid() and len(self._rows) < self._total

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if parent.isValid():
            return
        rows = self._fetch(len(self._rows))
        if not rows:
            # The store shrank under us (another import): stop asking for more.
            self._total = len(self._rows)
            return
        self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.COLUMNS[section][2]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self.COLUMNS):
            return
        order_by = self.COLUMNS[column][1]
        descending = order == Qt.SortOrder.DescendingOrder
        if (order_by, descending) == (self._order_by, self._descending):
            return
        self._order_by, self._descending = order_by, descending
        self.refresh()
