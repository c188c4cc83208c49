"""The trajectory table: a lazy, SQL-backed model.

It holds only the rows fetched so far (pages of ``PAGE_SIZE`` summaries, never steps) and
fetches the next page when the view scrolls near the end (``canFetchMore`` / ``fetchMore``).
Filtering and sorting are done by the repository in SQL; changing either resets the model.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from core.store.corpus_repo import CorpusRepository, TrajectoryFilter
from core.store.dto import TrajectorySummary

from cauterule_gui.glossary import word
from cauterule_gui.models.paged_table_model import FirstPage, PagedTableModel
from cauterule_gui.plain_text import plain_tooltip

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor

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
    ("Gate", "id", "would 0.3.1's pre-extraction gate silence it (strict mode), and why"),
    ("Source", "id", "source trust: tainted when an injection marker or encoded blob is found (§6.7)"),
)
COL_ID, COL_CORPUS, COL_DOMAIN, COL_SUCCESS, COL_FAILURE, COL_EXPECTED, COL_GATE, COL_TRUST = range(len(COLUMNS))

# Role carrying the store primary key of a row (int).
PK_ROLE = Qt.ItemDataRole.UserRole + 1


class TrajectoryTableModel(PagedTableModel[TrajectorySummary]):
    """Rows: trajectories matching the current filter, in SQL order, fetched a page at a time."""

    COLUMNS = COLUMNS

    def __init__(self, repository: CorpusRepository | None = None, parent: Any = None,
                 page_size: int = PAGE_SIZE, db: DatabaseExecutor | None = None) -> None:
        super().__init__(parent, page_size, order_by="id", db=db)
        self._repo = repository
        self._filter = TrajectoryFilter()
        self._loop: dict[int, Any] = {}  # pk -> core.loop.views.TrajectoryLoopInfo, computed off the GUI thread
        self._reload()

    def set_loop_info(self, info: dict[int, Any]) -> None:
        """Gate and taint per trajectory (from a job); repaints the two loop columns."""
        self._loop = dict(info)
        if self._rows:
            self.dataChanged.emit(self.index(0, COL_GATE), self.index(len(self._rows) - 1, COL_TRUST))

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

    def summary(self, row: int) -> TrajectorySummary | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, pk: int) -> int | None:
        """Row of an already fetched trajectory (None if not fetched or filtered out)."""
        for row, item in enumerate(self._rows):
            if item.id == pk:
                return row
        return None

    # -- loading -----------------------------------------------------------------------
    def _first(self, limit: int) -> FirstPage[TrajectorySummary]:
        if self._repo is None:
            return FirstPage(0, [])
        return FirstPage(self._repo.count_trajectories(self._filter), self._page_at(0, limit))

    def _fetch(self, offset: int) -> list[TrajectorySummary]:
        return self._page_at(offset, self._page)

    def _page_at(self, offset: int, limit: int) -> list[TrajectorySummary]:
        if self._repo is None:
            return []
        return self._repo.list_trajectories(
            self._filter, offset=offset, limit=limit, order_by=self._order_by, descending=self._descending
        )

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        item = self._rows[index.row()]
        column = index.column()
        if column in (COL_GATE, COL_TRUST) and role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return _loop_cell(self._loop.get(item.id), column, role == Qt.ItemDataRole.ToolTipRole)
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(item, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tooltip(item, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (COL_SUCCESS, COL_EXPECTED):
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == PK_ROLE:
            return item.id
        return None


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


def _loop_cell(info: Any, column: int, tooltip: bool) -> str | None:
    if info is None:
        return None if tooltip else "…"
    if column == COL_GATE:
        strict, relaxed = info.strict, info.relaxed
        if tooltip:
            return plain_tooltip(f"strict: {'silence' if strict.silenced else 'extract'} — {strict.why}\n"
                                 f"relaxed: {'silence' if relaxed.silenced else 'extract'} — {relaxed.why}")
        return f"silenced ({word(strict.reason)})" if strict.silenced else "extract"
    if tooltip:
        return plain_tooltip(info.taint.summary())
    return "⚠ tainted" if info.taint.tainted else "clean"


def _tooltip(item: TrajectorySummary, column: int) -> str | None:
    if column in (COL_ID, COL_CORPUS, COL_DOMAIN, COL_FAILURE):
        return plain_tooltip(_display(item, column))  # data: escaped, never interpreted
    if column == COL_EXPECTED:
        return "expected_rule present" if item.has_expected_rule else "no expected_rule (unmeasured, not zero)"
    return None
