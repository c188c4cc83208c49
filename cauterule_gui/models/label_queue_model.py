"""The labelling list: a lazy model whose pages are fetched by DB jobs, never on the GUI thread.

``canFetchMore`` is true while fewer rows are loaded than the filter matches; ``fetchMore``
does not query anything itself, it emits ``fetch_requested(offset)`` once, and the panel runs
``label_data.queue_page`` as a DB job and hands the page to ``append_page``. Filtering and
ordering are done in SQL by ``LabelRepository.queue``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal

from core.domain.labels import LabelQueueRow

from cauterule_gui.models.rows_table_model import Index, RowsTableModel, one_line

COLUMNS: tuple[tuple[str, str], ...] = (
    ("Trajectory", "trajectory_id as written in the corpus file"),
    ("Domain", "domain field"),
    ("Outcome", "success field of the trajectory"),
    ("My label", "your label (when …, do …); “—” when you have not labelled it; “(no rule expected)” for an "
                 "empty label"),
    ("Labels", "labels by every reviewer; ⚖ = a lead's adjudication is in force"),
)
COL_ID, COL_DOMAIN, COL_OUTCOME, COL_MINE, COL_LABELS = range(len(COLUMNS))
PK_ROLE = Qt.ItemDataRole.UserRole + 2


class LabelQueueModel(RowsTableModel[LabelQueueRow]):
    COLUMNS = COLUMNS
    CENTRED = frozenset({COL_OUTCOME, COL_LABELS})
    fetch_requested = Signal(int)  # offset of the next page
    total_changed = Signal(int)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._total = 0
        self._pending: int | None = None
        self.generation = 0  # bumped on reset: a page from an older filter is dropped

    @property
    def total(self) -> int:
        return self._total

    def reset_rows(self, rows: tuple[LabelQueueRow, ...], total: int) -> None:
        self.generation += 1
        self._pending = None
        self._total = max(total, len(rows))
        self.set_rows(rows)
        self.total_changed.emit(self._total)

    def append_page(self, offset: int, rows: tuple[LabelQueueRow, ...], generation: int) -> None:
        if generation != self.generation or offset != len(self._rows):
            return  # stale (the filter changed) or duplicate
        self._pending = None
        if not rows:
            self._total = len(self._rows)  # the store shrank under us: stop asking
            return
        self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    def fetch_failed(self) -> None:
        self._pending = None

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008 - Qt signature
        return not parent.isValid() and len(self._rows) < self._total and self._pending is None

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if parent.isValid() or not self.canFetchMore():
            return
        self._pending = len(self._rows)
        self.fetch_requested.emit(len(self._rows))

    def row_of(self, pk: int) -> int | None:
        for row, item in enumerate(self._rows):
            if item.trajectory_pk == pk:
                return row
        return None

    def set_my_label(self, pk: int, sentence: str | None) -> None:
        """Show a just-saved label in its row (the filter is re-applied on the next reload)."""
        row = self.row_of(pk)
        if row is None:
            return
        item = self._rows[row]
        labels = item.labels + (1 if item.my_label is None and sentence is not None else 0)
        self._rows[row] = replace(item, my_label=sentence, labels=labels)
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == PK_ROLE and index.isValid() and 0 <= index.row() < len(self._rows):
            return self._rows[index.row()].trajectory_pk
        return super().data(index, role)

    def cell(self, item: LabelQueueRow, column: int) -> str:
        if column == COL_ID:
            return item.trajectory_id
        if column == COL_DOMAIN:
            return item.domain or "—"
        if column == COL_OUTCOME:
            return "✓ success" if item.success else "✗ failure"
        if column == COL_MINE:
            if item.my_label is None:
                return "—"
            return one_line(item.my_label) or "(no rule expected)"
        if column == COL_LABELS:
            return f"{item.labels}" + (" ⚖" if item.adjudicated else "")
        return ""

    def tooltip(self, item: LabelQueueRow, column: int) -> str | None:
        from cauterule_gui.plain_text import plain_tooltip

        if column == COL_ID:
            return plain_tooltip(f"{item.trajectory_id}\n{item.corpus}/{item.file}:{item.line}"
                                 + (f"\nfailure class: {item.failure_class}" if item.failure_class else "")
                                 + (f"\nimported expected_rule: {item.imported_rule}" if item.imported_rule else ""))
        if column == COL_MINE:
            return plain_tooltip(item.my_label) if item.my_label else (
                "you have not labelled this trajectory" if item.my_label is None else "no rule expected")
        if column == COL_LABELS:
            return f"{item.labels} label(s)" + ("; adjudicated by a lead" if item.adjudicated else "")
        return super().tooltip(item, column)
