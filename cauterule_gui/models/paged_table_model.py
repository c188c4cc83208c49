"""The base of the large, SQL-backed tables (trajectories, rules): lazy pages, SQL sorting.

A subclass holds only the rows fetched so far and says how to get them: ``_first(limit)``
returns the total and the first rows (a ``FirstPage``, plus any extra the subclass keeps,
applied by ``_apply_extra``), ``_fetch(offset)`` the next page. Neither touches ``self``'s
rows: once the model has its ``DatabaseExecutor`` (``db=`` at construction, or ``set_executor``),
both run off the GUI thread and the rows arrive by signal (``loaded`` after a refresh, rows
inserted after ``fetchMore``). Without an executor (a model used alone) they run at once.

A model built with ``db=`` reads nothing while the window is being built: it is ``loading``
(empty, ``busy``) and asks for its first page on the first event-loop turn, once, whatever
the construction changed meanwhile (reviewer, repository, restored filter). So the window
paints before any table page is read, and every read of it is on a worker thread.

A refresh re-reads at least as many rows as were shown, so the row the reviewer was on is
still there to re-select; a result from an older refresh (the filter changed again) is
dropped. While a page is on its way ``canFetchMore`` says no, so a scroll asks once.
Sorting asks the repository for another order. ``COLUMNS`` holds (header, repository sort
key, header tooltip).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor

Index = QModelIndex | QPersistentModelIndex
Row = TypeVar("Row")
Page = TypeVar("Page")


@dataclass(frozen=True)
class FirstPage(Generic[Row]):
    total: int
    rows: list[Row]
    extra: dict[str, Any] = field(default_factory=dict)


class PagedTableModel(QAbstractTableModel, Generic[Row]):
    total_changed = Signal(int)  # rows matching the filter (not just those fetched)
    loaded = Signal()  # a refresh's rows are in (the view may re-select now)
    COLUMNS: tuple[tuple[str, str, str], ...] = ()

    def __init__(self, parent: Any = None, page_size: int = 200, order_by: str = "id",
                 db: DatabaseExecutor | None = None) -> None:
        super().__init__(parent)
        self._page = page_size
        self._order_by = order_by
        self._descending = False
        self._rows: list[Row] = []
        self._total = 0
        self._db: DatabaseExecutor | None = db
        self._generation = 0  # bumped by every refresh: older answers are dropped
        self._pending_page = False
        # Built with an executor: no read until the first event-loop turn (``_start``); the
        # refreshes construction asks for meanwhile are folded into that one read.
        self._held = db is not None
        self._waiting_first = db is not None
        self._loading = db is not None  # no page has arrived yet (the view shows "loading…")
        self._after_page: list[Callable[[], None]] = []
        if db is not None:
            QTimer.singleShot(0, self, self._start)

    # -- what a subclass provides (both may run on a worker thread: read, never mutate) ----
    def _first(self, limit: int) -> FirstPage[Row]:
        """The total and the first ``limit`` rows for the current query."""
        raise NotImplementedError

    def _fetch(self, offset: int) -> list[Row]:
        """The page of rows starting at ``offset``; [] when there are none (or no store)."""
        raise NotImplementedError

    def _apply_extra(self, extra: dict[str, Any]) -> None:
        """Keep what ``_first`` returned besides rows (on the GUI thread, inside the reset)."""

    def _fetched(self) -> int:
        """What pages have fetched so far (the offset of the next page): the rows, unless a
        subclass shows more rows than its pages count (the rules table's expanded groups)."""
        return len(self._rows)

    # -- shared behaviour ---------------------------------------------------------------
    def set_executor(self, db: DatabaseExecutor | None) -> None:
        """From now on pages are read off the GUI thread through ``db``."""
        self._db = db

    @property
    def total(self) -> int:
        return self._total

    @property
    def generation(self) -> int:
        """Bumped by every refresh: a read made under an older one is stale."""
        return self._generation

    @property
    def order_by(self) -> str:
        return self._order_by

    @property
    def descending(self) -> bool:
        return self._descending

    @property
    def loading(self) -> bool:
        """The first page has not arrived yet (built with an executor; nothing read so far)."""
        return self._loading

    @property
    def busy(self) -> bool:
        """A refresh or a page is on its way."""
        return self._pending_page or self._waiting_first

    def _reload(self) -> None:
        """End of a subclass's construction: read the first page now, on this thread, when
        there is no executor; with one, the first event-loop turn reads it (``_start``)."""
        if self._db is None:
            self._set_first(self._first(self._page))

    def _start(self) -> None:
        self._held = False
        self.refresh()

    def _set_first(self, first: FirstPage[Row]) -> None:
        self._total, self._rows = first.total, list(first.rows)
        self._apply_extra(first.extra)

    def refresh(self) -> None:
        self._generation += 1
        self._pending_page = False
        if self._held:  # still being built: the first turn reads, once, with what is set by then
            self._waiting_first = True
            return
        limit = max(self._page, self._fetched())
        if self._db is None:
            self._apply_first(self._generation, self._first(limit))
            return
        generation = self._generation
        self._waiting_first = True
        handle = self._db.query(lambda _services: self._first(limit),
                                lambda first: self._apply_first(generation, first),
                                name=f"{type(self).__name__} rows", key=f"first:{id(self)}")
        if handle is None:  # no store open
            self._apply_first(generation, FirstPage(0, []))

    def _apply_first(self, generation: int, first: FirstPage[Row]) -> None:
        if generation != self._generation:
            return
        self._waiting_first = self._loading = False
        self.beginResetModel()
        self._set_first(first)
        self.endResetModel()
        self.total_changed.emit(self._total)
        self.loaded.emit()

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008 - Qt signature
        return not parent.isValid() and not self._pending_page and self._fetched() < self._total

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if parent.isValid() or self._pending_page:
            return
        offset, generation = self._fetched(), self._generation
        self._read_page(lambda: self._fetch(offset), lambda rows: self._insert(generation, offset, rows))

    def _read_page(self, read: Callable[[], Page], deliver: Callable[[Page], None]) -> None:
        """``read`` off the GUI thread (at once without an executor), then ``deliver`` on it."""
        if self._db is None:
            deliver(read())
            return
        self._pending_page = True
        handle = self._db.query(lambda _services: read(), deliver, name=f"{type(self).__name__} page")
        if handle is None:
            self._pending_page = False

    def fetch_more_then(self, then: Callable[[], None]) -> bool:
        """Fetch the next page and call ``then`` once it is in; False when there is none."""
        if not self._pending_page and not self.canFetchMore():
            return False
        self._after_page.append(then)
        self.fetchMore()
        return True

    def _insert(self, generation: int, offset: int, rows: list[Row]) -> None:
        if not self._page_arrived(generation, offset):
            return
        if not rows:
            # The store shrank under us (another import): stop asking for more.
            self._total = self._fetched()
        else:
            self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(rows) - 1)
            self._rows.extend(rows)
            self.endInsertRows()
        self._page_done()

    def _page_arrived(self, generation: int, offset: int) -> bool:
        """A page is in: False (and nobody waits on it any more) when a refresh replaced the
        rows it continued."""
        self._pending_page = False
        if generation != self._generation or offset != self._fetched():
            self._after_page.clear()
            return False
        return True

    def _page_done(self) -> None:
        waiting, self._after_page = self._after_page, []
        for then in waiting:
            then()

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
