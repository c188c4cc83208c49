"""The rules table: one row per rule (or per group of duplicate rules) with its replay result
and review status.

Lazy and SQL-backed like the trajectory table: the model keeps only the rows fetched so far
(pages of ``PAGE_SIZE`` group rows; a group's members are read when it expands, through the
executor like the pages); filtering, sorting and the choice of run happen in
``ResultRepository`` (SQL), off the GUI thread once the model has its executor. A refresh
keeps the current rule selected by id, so results arriving during a replay do not throw the
reviewer off their place: it reads the members of the groups that are expanded again.

Groups of duplicate rules (expand, collapse, read their members) are ``rule_groups.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal

from core.store.result_repo import ResultRepository
from core.store.workspace_query import BLIND_SORT_KEYS, RulePage, WorkspaceFilter, WorkspaceRule, WorkspaceScope

from cauterule_gui import theme
from cauterule_gui.models import rule_cells as cells
from cauterule_gui.models.paged_table_model import FirstPage, PagedTableModel

# Every column constant is importable from here too (callers did before the cells moved out).
from cauterule_gui.models.rule_cells import *  # noqa: F403
from cauterule_gui.models.rule_cells import COL_BROKEN, COL_STATUS, COL_TRIGGER, COL_VERDICT, COLUMNS
from cauterule_gui.models.rule_groups import RuleGroups
from cauterule_gui.plain_text import plain_tooltip

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor

PAGE_SIZE = 200
Index = QModelIndex | QPersistentModelIndex

RULE_ID_ROLE = Qt.ItemDataRole.UserRole + 1
ROW_ROLE = Qt.ItemDataRole.UserRole + 2


class RuleTableModel(RuleGroups, PagedTableModel[WorkspaceRule]):
    """Rows are duplicate groups (``ResultRepository.page_groups``): a rule with no
    duplicate is a group of one; a group of n shows "×n ▸" and its first member's figures,
    and expands (``expand`` / ``collapse``) into its other members, indented below it, once
    they are read (``members_loaded``). ``_heads`` are the group rows fetched so far (what
    pages count); ``_rows`` is what the view shows, heads with the members of expanded
    groups; ``_members`` the groups read since the last refresh (a refresh forgets them:
    decisions may have changed them)."""

    COLUMNS = COLUMNS
    members_loaded = Signal()  # members of one or more groups were read (and shown if expanded)

    def __init__(self, repository: ResultRepository | None = None, parent: Any = None,
                 page_size: int = PAGE_SIZE, db: DatabaseExecutor | None = None) -> None:
        super().__init__(parent, page_size, order_by="rule", db=db)
        self._repo = repository
        self._filter = WorkspaceFilter()
        self._scope = WorkspaceScope()
        self._reviewer: str | None = None
        self.unreviewed = self.rule_total = 0
        self._heads: list[WorkspaceRule] = []
        self._members: dict[str, list[WorkspaceRule]] = {}
        self._expanded: set[str] = set()
        # Groups whose members are being read, with the generation the read was asked in: a
        # refresh's first page arriving before them must not collapse those groups.
        self._reading: dict[str, int] = {}
        self._want: frozenset[str] = frozenset()  # expanded groups when a refresh was asked (read with it)
        self._child: list[bool] = []
        self.blind: frozenset[str] = frozenset()  # origins whose replay answers are hidden (set_blind)
        self._blind_tip: Callable[[str], str] = str
        self._reload()

    def set_duplicates(self, groups: Mapping[int, tuple[int, ...]]) -> None:
        """Kept for callers: the groups now come from the table's own SQL (``page_groups``),
        which groups within the current filter and run; nothing to redraw."""

    # -- public API --------------------------------------------------------------------
    def set_repository(self, repository: ResultRepository | None) -> None:
        self._repo = repository
        self._scope = WorkspaceScope()
        self.refresh()

    @property
    def filter(self) -> WorkspaceFilter:
        return self._filter

    def set_filter(self, flt: WorkspaceFilter) -> None:
        flt = replace(flt, hidden=self.blind)  # the hidden rules are the guard's, not the filter bar's
        if flt != self._filter:
            self._filter = flt
            self.refresh()

    @property
    def scope(self) -> WorkspaceScope:
        return self._scope

    def set_scope(self, scope: WorkspaceScope) -> None:
        if scope != self._scope:
            self._scope = scope
            self.refresh()

    def set_reviewer(self, reviewer: str | None) -> None:
        if reviewer != self._reviewer:
            self._reviewer = reviewer
            self.refresh()

    def refresh(self) -> None:
        # Members read before may be stale (a decision, a new run): forget them, and read the
        # expanded groups' members again with the first page (same job, off the GUI thread).
        self._want = frozenset(self._expanded)
        self._members = {}
        super().refresh()

    def rule(self, row: int) -> WorkspaceRule | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def fetch_all(self) -> None:
        """Every row, now, on this thread (screenshots only: they need the whole table at once)."""
        while len(self._heads) < self._total:
            offset = len(self._heads)
            self._insert_page(self._generation, offset, self._page_at(offset))

    def colours_changed(self) -> None:
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, len(COLUMNS) - 1))

    # -- loading -----------------------------------------------------------------------
    def _first(self, limit: int) -> FirstPage[WorkspaceRule]:
        """The first ``limit`` group rows, and the members of those of them that were expanded
        when the refresh was asked; may run on the database thread, so it reads and never
        touches the rows shown."""
        if self._repo is None:
            return FirstPage(0, [], {"unreviewed": 0, "rule_total": 0, "members": {}})
        page = self._repo.page_groups(self._scope, self._filter, self._reviewer, order_by=self._order_by,
                                      descending=self._descending, offset=0, limit=limit)
        keys = [r.group_key for r in page.rows if r.group_size > 1 and r.group_key in self._want]
        members = self._repo.group_members(self._scope, self._filter, [k for k in keys if k], self._reviewer,
                                           order_by=self._order_by, descending=self._descending) if keys else {}
        rule_total = page.rules if page.rules >= 0 else page.total
        return FirstPage(page.total, list(page.rows),
                         {"unreviewed": page.unreviewed, "rule_total": rule_total, "members": members})

    def _apply_extra(self, extra: dict[str, Any]) -> None:
        # Inside the reset, on the GUI thread: ``_rows`` holds the heads; lay out the expanded groups.
        self.unreviewed = int(extra.get("unreviewed", 0))
        self.rule_total = int(extra.get("rule_total", 0))
        self._heads = list(self._rows)
        self._members.update(extra.get("members", {}))
        # A group expanded whose members did not come (not on the first pages any more) shows collapsed.
        self._expanded &= set(self._members) | set(self._reading)
        laid = self._lay_out(self._heads)
        self._rows = [r for r, _c in laid]
        self._child = [c for _r, c in laid]

    def _fetched(self) -> int:
        return len(self._heads)  # pages count group rows, not the members shown under them

    def _page_at(self, offset: int) -> RulePage | None:
        if self._repo is None:
            return None
        return self._repo.page_groups(self._scope, self._filter, self._reviewer, order_by=self._order_by,
                                      descending=self._descending, offset=offset, limit=self._page)

    def _fetch(self, offset: int) -> list[WorkspaceRule]:
        page = self._page_at(offset)
        return [] if page is None else page.rows

    def _lay_out(self, heads: list[WorkspaceRule]) -> list[tuple[WorkspaceRule, bool]]:
        """The rows to show for these group rows, (rule, is a member): the expanded groups'
        members (read already) under their row."""
        laid: list[tuple[WorkspaceRule, bool]] = []
        for head in heads:
            laid.append((head, False))
            if head.group_size > 1 and head.group_key in self._expanded:
                laid += [(m, True) for m in self._members.get(head.group_key, []) if m.rule_id != head.rule_id]
        return laid

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if parent.isValid() or self._pending_page:
            return
        offset, generation = len(self._heads), self._generation
        self._read_page(lambda: self._page_at(offset), lambda page: self._insert_page(generation, offset, page))

    def _insert_page(self, generation: int, offset: int, page: RulePage | None) -> None:
        if not self._page_arrived(generation, offset):
            return
        if page is None or not page.rows:
            self._total = len(self._heads)  # the store shrank under us: stop asking for more
        else:
            self._heads.extend(page.rows)
            laid = self._lay_out(list(page.rows))
            self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(laid) - 1)
            self._rows.extend(r for r, _c in laid)
            self._child.extend(c for _r, c in laid)
            self.endInsertRows()
        self._page_done()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        item = self._rows[index.row()]
        column = index.column()
        if column in cells.BLIND_COLUMNS and item.origin in self.blind and role in cells.BLIND_ROLES:
            return cells.blind_data(column, role, self._blind_tip(item.origin))
        if role == Qt.ItemDataRole.DisplayRole:
            shown = cells.display(item, column)
            return self._prefix(index.row()) + shown if column == COL_TRIGGER else shown
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == COL_TRIGGER and self.is_group(index.row()):
                return plain_tooltip(
                    f"{item.trigger}\n\n× {item.group_size} rules say this (same trigger and directive), "
                    f"{item.group_unreviewed} unreviewed. The row shows the first of them. → / ← expand and "
                    "collapse; with the group collapsed, A / R / D decide on each of its rules "
                    "(one decision and audit event per rule)")
            return cells.tooltip(item, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in cells.NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role in (Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole):
            key = item.verdict if column == COL_VERDICT else item.status if column == COL_STATUS else None
            if column == COL_BROKEN and item.broken_n:
                key = "broken"
            found = theme.swatch(key) if key else None
            if found is None:
                return None
            return found.background if role == Qt.ItemDataRole.BackgroundRole else found.foreground
        if role == Qt.ItemDataRole.AccessibleTextRole:
            text = cells.display(item, column)
            if column == COL_TRIGGER and self.is_group(index.row()):
                text = f"group of {item.group_size} duplicate rules, " + \
                    ("expanded" if self.is_expanded(index.row()) else "collapsed") + f": {text}"
            return f"{COLUMNS[column][0]}: {text}"
        if role == RULE_ID_ROLE:
            return item.rule_id
        if role == ROW_ROLE:
            return item
        return None

    def set_blind(self, origins: frozenset[str], tooltip: Callable[[str], str]) -> None:
        """Rules (by origin) whose replay answers are hidden (the reviewer's unfinished blind session).

        They go into the filter too (``WorkspaceFilter.hidden``): the SQL must not sort or filter
        them by the values they hide. The rows are read again only when the order or the filter
        depends on those values; otherwise the cells are redrawn."""
        if origins != self.blind:
            self.blind, self._blind_tip = origins, tooltip
            self._filter = replace(self._filter, hidden=origins)
            if self._order_by in BLIND_SORT_KEYS or self._filter.verdict or self._filter.reason:
                self.refresh()
            elif self._rows:
                self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, len(COLUMNS) - 1))
