"""One bucket of a rule's evidence: the trajectories replay put there, with why.

A bucket can hold 10^4 rows, so the model holds only the rows read so far: the first page
comes with the evidence board (``core.store.evidence_pages.evidence_board``), and every
later page is read through the window's ``DatabaseExecutor`` when the view asks for it
(``canFetchMore`` / ``fetchMore``, the pattern of ``PagedTableModel``): the rows are inserted
when they arrive, ``canFetchMore`` says no while a page is on its way, and an answer for a
bucket or result that is no longer shown is dropped. ``data()`` never reads the store.
Each row shows the view and floor that matched and the score, whether this reviewer has
opened or waived it (that is what gates approval for broken rows) and their agreement mark.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from core.store.evidence_pages import PAGE, evidence_page
from core.store.replay_repo import StoredOutcome

from cauterule_gui.glossary import explain, word
from cauterule_gui.models.formatting import MARK_TEXT, number, signed
from cauterule_gui.plain_text import plain_tooltip

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor

Index = QModelIndex | QPersistentModelIndex

COLUMNS: tuple[tuple[str, str], ...] = (
    ("Trajectory", "trajectory_id"),
    ("Corpus", "corpus (folder)"),
    ("Domain", "domain field"),
    ("Score", "final score (threshold and margin in the tooltip)"),
    ("View", "the text view of the trajectory that matched"),
    ("Floor", "the floor that applied (alias / phrase / signature / semantic), — if none"),
    ("Opened", "whether you opened or waived this row (every broken row must be, before approval)"),
    ("Mark", "your agreement mark: is replay right about this row?"),
)
COL_ID, COL_CORPUS, COL_DOMAIN, COL_SCORE, COL_VIEW, COL_FLOOR, COL_OPENED, COL_MARK = range(len(COLUMNS))
OUTCOME_ROLE = Qt.ItemDataRole.UserRole + 1


class EvidenceTableModel(QAbstractTableModel):
    page_loaded = Signal()  # a later page's rows are in
    page_failed = Signal(str)  # a later page could not be read (why)

    def __init__(self, parent: Any = None, page_size: int = PAGE) -> None:
        super().__init__(parent)
        self.bucket = "prevented"
        self.result_id: int | None = None
        self.total = 0  # rows in the bucket, read or not
        self._page = page_size
        self._rows: list[StoredOutcome] = []
        self._viewed: set[int] = set()
        self._waived: dict[int, str] = {}
        self._marks: dict[int | None, str] = {}
        self._db: DatabaseExecutor | None = None
        self._generation = 0  # bumped by every set_rows: a page for older rows is dropped
        self._pending = False
        self._after_page: list[Callable[[], None]] = []

    def set_executor(self, db: DatabaseExecutor | None) -> None:
        """Later pages are read through ``db`` (off the GUI thread); without one, none are."""
        self._db = db

    def set_rows(self, bucket: str, result_id: int | None, rows: list[StoredOutcome], total: int,
                 viewed: set[int], waived: Mapping[int, str], marks: Mapping[int | None, str]) -> None:
        """Show a bucket: its first rows (read with the board) and how many it holds in all."""
        self.beginResetModel()
        self._generation += 1
        self._pending = False
        self._after_page.clear()
        self.bucket, self.result_id, self.total = bucket, result_id, max(total, len(rows))
        self._rows = list(rows)
        self._viewed, self._waived, self._marks = set(viewed), dict(waived), dict(marks)
        self.endResetModel()

    def update_flags(self, viewed: set[int], waived: Mapping[int, str], marks: Mapping[int | None, str]) -> None:
        """Opened / waived / mark changed: repaint those columns without losing the selection."""
        self._viewed, self._waived, self._marks = set(viewed), dict(waived), dict(marks)
        if self._rows:
            self.dataChanged.emit(self.index(0, COL_OPENED), self.index(len(self._rows) - 1, COL_MARK))

    def outcome(self, row: int) -> StoredOutcome | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, trajectory_pk: int) -> int | None:
        """The row of a trajectory among the rows read so far."""
        return next((i for i, o in enumerate(self._rows) if o.trajectory_pk == trajectory_pk), None)

    @property
    def busy(self) -> bool:
        return self._pending

    # -- later pages, through the executor -----------------------------------------------
    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008 - Qt signature
        return (not parent.isValid() and not self._pending and self._db is not None
                and self.result_id is not None and len(self._rows) < self.total)

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent) or self._db is None or self.result_id is None:
            return
        result_id, bucket, offset, limit = self.result_id, self.bucket, len(self._rows), self._page
        generation = self._generation
        self._pending = True
        handle = self._db.query(lambda s: evidence_page(s.store, result_id, bucket, offset, limit),
                                lambda rows: self._insert(generation, offset, rows), name="evidence page",
                                on_error=lambda error: self._failed(generation, error))
        if handle is None:  # no store open
            self._pending = False

    def fetch_more_then(self, then: Callable[[], None]) -> bool:
        """Read the next page and call ``then`` once it is in; False when there is none to read."""
        if not self._pending and not self.canFetchMore():
            return False
        self._after_page.append(then)
        if not self._pending:
            self.fetchMore()
        return True

    def _insert(self, generation: int, offset: int, rows: list[StoredOutcome]) -> None:
        if generation != self._generation:
            return  # another bucket or result is shown now (set_rows cleared the page on its way)
        self._pending = False
        if offset != len(self._rows):
            return  # cannot happen while one page at a time is asked for; never insert out of order
        if not rows:
            self.total = len(self._rows)  # fewer rows than counted (a trajectory deleted): stop
        else:
            self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(rows) - 1)
            self._rows.extend(rows)
            self.endInsertRows()
        self.page_loaded.emit()
        waiting, self._after_page = self._after_page, []
        for then in waiting:
            then()

    def _failed(self, generation: int, error: BaseException) -> None:
        if generation == self._generation:
            self._pending = False
            self._after_page.clear()
            self.total = len(self._rows)  # stop asking (a scroll would ask again at once)
            self.page_failed.emit(f"{type(error).__name__}: {error}")

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
            return COLUMNS[section][1]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        item = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(item, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column in (COL_ID, COL_CORPUS, COL_DOMAIN):
                return plain_tooltip(self._display(item, column))
            if column == COL_SCORE:
                return f"score {number(item.score)} · threshold {number(item.threshold)} · margin {signed(item.margin)}"
            if column == COL_FLOOR and item.floor:  # what lifted the score, or the twin behind a claim
                return explain(item.floor)
            if column == COL_OPENED and item.trajectory_pk in self._waived:
                return plain_tooltip(f"waived: {self._waived[item.trajectory_pk]}")
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and column == COL_SCORE:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == OUTCOME_ROLE:
            return item
        return None

    def _display(self, item: StoredOutcome, column: int) -> str:
        if column == COL_ID:
            return item.trajectory_id
        if column == COL_CORPUS:
            return item.corpus
        if column == COL_DOMAIN:
            return item.domain or "—"
        if column == COL_SCORE:
            return number(item.score)
        if column == COL_VIEW:
            return item.view or "—"
        if column == COL_FLOOR:
            return word(item.floor)  # "alias phrase", not "ali…ase"
        if column == COL_OPENED:
            if item.trajectory_pk in self._waived:
                return "waived"
            if item.trajectory_pk in self._viewed:
                return "✓ opened"
            return "⚠ not opened" if self.bucket == "broken" else "—"
        if column == COL_MARK:
            return MARK_TEXT.get(self._marks.get(item.trajectory_pk, ""), "—")
        return ""

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
