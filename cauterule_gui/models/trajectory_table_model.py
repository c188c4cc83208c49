"""The trajectory table: a lazy, SQL-backed model.

It holds only the rows fetched so far (pages of ``PAGE_SIZE`` summaries, never steps) and
fetches the next page when the view scrolls near the end (``canFetchMore`` / ``fetchMore``).
Filtering and sorting are done by the repository in SQL; changing either resets the model.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from core.store.corpus_repo import CorpusRepository, TrajectoryFilter
from core.store.dto import TrajectorySummary

from cauterule_gui.plain_text import plain_tooltip

PAGE_SIZE = 200

Index = QModelIndex | QPersistentModelIndex

# (header, repository sort key, tooltip)
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("Trajectory", "trajectory_id", "trajectory_id as written in the corpus file"),
    ("Corpus", "corpus", "corpus (folder relative to the import root)"),
    ("Domain", "domain", "domain field"),
    ("Success", "success", "success field of the trajectory"),
    ("Failure class", "failure_class", "failure_class field"),
    ("Expected rule", "expected_rule", "whether expected_rule (ground truth) is present"),
)
COL_ID, COL_CORPUS, COL_DOMAIN, COL_SUCCESS, COL_FAILURE, COL_EXPECTED = range(len(COLUMNS))

# Role carrying the store primary key of a row (int).
PK_ROLE = Qt.ItemDataRole.UserRole + 1


class TrajectoryTableModel(QAbstractTableModel):
    """Rows: trajectories matching the current filter, in SQL order, fetched a page at a time."""

    total_changed = Signal(int)  # rows matching the filter (not just those fetched)

    def __init__(self, repository: CorpusRepository | None = None, parent: Any = None,
                 page_size: int = PAGE_SIZE) -> None:
        super().__init__(parent)
        self._repo = repository
        self._page = page_size
        self._filter = TrajectoryFilter()
        self._order_by = "id"
        self._descending = False
        self._rows: list[TrajectorySummary] = []
        self._total = 0
        self._reload()

    # -- public API --------------------------------------------------------------------
    def set_repository(self, repository: CorpusRepository | None) -> None:
        self._repo = repository
        self.refresh()

    @property
    def filter(self) -> TrajectoryFilter:
        return self._filter

    def set_filter(self, flt: TrajectoryFilter) -> None:
        if flt != self._filter:
            self._filter = flt
            self.refresh()

    def set_text(self, text: str) -> None:
        self.set_filter(replace(self._filter, text=text.strip()))

    def set_corpus(self, corpus: str | None) -> None:
        self.set_filter(replace(self._filter, corpus=corpus))

    def refresh(self) -> None:
        self.beginResetModel()
        self._reload()
        self.endResetModel()
        self.total_changed.emit(self._total)

    @property
    def total(self) -> int:
        return self._total

    def summary(self, row: int) -> TrajectorySummary | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, pk: int) -> int | None:
        """Row of an already fetched trajectory (None if not fetched or filtered out)."""
        for row, item in enumerate(self._rows):
            if item.id == pk:
                return row
        return None

    # -- loading -----------------------------------------------------------------------
    def _reload(self) -> None:
        self._rows = []
        if self._repo is None:
            self._total = 0
            return
        self._total = self._repo.count_trajectories(self._filter)
        self._rows = self._fetch(0)

    def _fetch(self, offset: int) -> list[TrajectorySummary]:
        assert self._repo is not None
        return self._repo.list_trajectories(
            self._filter, offset=offset, limit=self._page, order_by=self._order_by, descending=self._descending
        )

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008 - Qt signature
        return not parent.isValid() and len(self._rows) < self._total

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if parent.isValid() or self._repo is None:
            return
        rows = self._fetch(len(self._rows))
        if not rows:
            # The store shrank under us (another import): stop asking for more.
            self._total = len(self._rows)
            return
        self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    # -- Qt model interface ------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section][2]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        item = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(item, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tooltip(item, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (COL_SUCCESS, COL_EXPECTED):
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == PK_ROLE:
            return item.id
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        order_by = COLUMNS[column][1]
        descending = order == Qt.SortOrder.DescendingOrder
        if (order_by, descending) == (self._order_by, self._descending):
            return
        self._order_by, self._descending = order_by, descending
        # A reset, not a layout change: the re-sorted first page may hold fewer rows.
        self.refresh()


def _display(item: TrajectorySummary, column: int) -> str:
    if column == COL_ID:
        return item.trajectory_id
    if column == COL_CORPUS:
        return item.corpus
    if column == COL_DOMAIN:
        return item.domain or "—"
    if column == COL_SUCCESS:
        return "✓ success" if item.success else "✗ failure"
    if column == COL_FAILURE:
        return item.failure_class or "—"
    if column == COL_EXPECTED:
        return "yes" if item.has_expected_rule else "—"
    return ""


def _tooltip(item: TrajectorySummary, column: int) -> str | None:
    if column in (COL_ID, COL_CORPUS, COL_DOMAIN, COL_FAILURE):
        return plain_tooltip(_display(item, column))  # data: escaped, never interpreted
    if column == COL_EXPECTED:
        return "expected_rule present" if item.has_expected_rule else "no expected_rule (unmeasured, not zero)"
    return None
