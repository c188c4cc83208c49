"""The rules table: one row per rule with its replay result and review status.

Lazy and SQL-backed like the trajectory table: the model keeps only the rows fetched so far
(pages of ``PAGE_SIZE``); filtering, sorting and the choice of run happen in
``WorkspaceRepository`` (SQL). A refresh keeps the current rule selected by id, so results
arriving during a replay do not throw the reviewer off their place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from core.store.workspace_query import WorkspaceFilter, WorkspaceRule, WorkspaceScope
from core.store.workspace_repo import WorkspaceRepository

from cauterule_gui import theme
from cauterule_gui.models.formatting import MARK_TEXT, STATUS_TEXT, VERDICT_TEXT, rate
from cauterule_gui.models.paged_table_model import FirstPage, PagedTableModel
from cauterule_gui.plain_text import plain_tooltip

PAGE_SIZE = 200
Index = QModelIndex | QPersistentModelIndex

# (header, repository sort key, header tooltip)
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("Trigger", "trigger", "when … (the rule's trigger)"),
    ("Directive", "directive", "do … (the rule's directive)"),
    ("Domain", "domain", "source domain of the rule"),
    ("Verdict", "verdict", "replay verdict"),
    ("Reason", "reason", "why replay gave that verdict"),
    ("Prev.", "prevented", "failures the rule would have prevented"),
    ("Broken", "broken", "successes the rule would have interfered with"),
    ("Near", "near_miss", "near misses (matched, below the bar)"),
    ("Missed", "missed", "failures in the pool the rule did not match"),
    ("Precision", "precision", "precision with its Wilson 95 % interval; — when unmeasured"),
    ("Recall", "recall", "recall with its Wilson 95 % interval; — when unmeasured"),
    ("Status", "status", "your team's current decision on the rule"),
    ("Reviewer", "reviewer", "who made the current decision"),
    ("Mark", "mark", "your agreement mark on the verdict (unblinded)"),
    ("Rule", "origin", "where the rule came from (file or file:line)"),
    ("Run", "run", "replay run the result comes from"),
)
(COL_TRIGGER, COL_DIRECTIVE, COL_DOMAIN, COL_VERDICT, COL_REASON, COL_PREVENTED, COL_BROKEN, COL_NEAR,
 COL_MISSED, COL_PRECISION, COL_RECALL, COL_STATUS, COL_REVIEWER, COL_MARK, COL_ORIGIN, COL_RUN) = range(len(COLUMNS))
NUMERIC = (COL_PREVENTED, COL_BROKEN, COL_NEAR, COL_MISSED)

RULE_ID_ROLE = Qt.ItemDataRole.UserRole + 1
ROW_ROLE = Qt.ItemDataRole.UserRole + 2


def _one_line(text: str) -> str:
    return " ".join(text.split())


class RuleTableModel(PagedTableModel[WorkspaceRule]):
    COLUMNS = COLUMNS

    def __init__(self, repository: WorkspaceRepository | None = None, parent: Any = None,
                 page_size: int = PAGE_SIZE) -> None:
        super().__init__(parent, page_size, order_by="rule")
        self._repo = repository
        self._filter = WorkspaceFilter()
        self._scope = WorkspaceScope()
        self._reviewer: str | None = None
        self.unreviewed = 0
        self._duplicates: Mapping[int, tuple[int, ...]] = {}
        self._reload()

    def set_duplicates(self, groups: Mapping[int, tuple[int, ...]]) -> None:
        """Rules with the same trigger and directive: marked "× n" in the Trigger column."""
        self._duplicates = groups
        if self._rows:
            self.dataChanged.emit(self.index(0, COL_TRIGGER), self.index(len(self._rows) - 1, COL_TRIGGER))

    # -- public API --------------------------------------------------------------------
    def set_repository(self, repository: WorkspaceRepository | None) -> None:
        self._repo = repository
        self._scope = WorkspaceScope()
        self.refresh()

    @property
    def filter(self) -> WorkspaceFilter:
        return self._filter

    def set_filter(self, flt: WorkspaceFilter) -> None:
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

    def rule(self, row: int) -> WorkspaceRule | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of_rule(self, rule_id: int) -> int | None:
        for row, item in enumerate(self._rows):
            if item.rule_id == rule_id:
                return row
        return None

    def fetch_all(self) -> None:
        """Every row, now, on this thread (screenshots only: they need the whole table at once)."""
        while len(self._rows) < self._total:
            self._insert(self._generation, len(self._rows), self._fetch(len(self._rows)))

    def colours_changed(self) -> None:
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, len(COLUMNS) - 1))

    # -- loading -----------------------------------------------------------------------
    def _first(self, limit: int) -> FirstPage[WorkspaceRule]:
        if self._repo is None:
            return FirstPage(0, [], {"unreviewed": 0})
        page = self._repo.page(self._scope, self._filter, self._reviewer, order_by=self._order_by,
                               descending=self._descending, offset=0, limit=limit)
        return FirstPage(page.total, list(page.rows), {"unreviewed": page.unreviewed})

    def _apply_extra(self, extra: dict[str, Any]) -> None:
        self.unreviewed = int(extra.get("unreviewed", 0))

    def _fetch(self, offset: int) -> list[WorkspaceRule]:
        if self._repo is None:
            return []
        return self._repo.list_rules(self._scope, self._filter, self._reviewer, order_by=self._order_by,
                                     descending=self._descending, offset=offset, limit=self._page)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        item = self._rows[index.row()]
        column = index.column()
        group = self._duplicates.get(item.rule_id, ()) if column == COL_TRIGGER else ()
        if role == Qt.ItemDataRole.DisplayRole:
            return f"×{len(group)} " + display(item, column) if group else display(item, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            if group:
                return plain_tooltip(f"{item.trigger}\n\n× {len(group)} rules say this (same trigger and "
                                     "directive): press G to select them all, then A / R / D decide on each")
            return _tooltip(item, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in NUMERIC:
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
            return f"{COLUMNS[column][0]}: {display(item, column)}"
        if role == RULE_ID_ROLE:
            return item.rule_id
        if role == ROW_ROLE:
            return item
        return None


def display(item: WorkspaceRule, column: int) -> str:
    if column == COL_TRIGGER:
        return _one_line(item.trigger)
    if column == COL_DIRECTIVE:
        # expected_rule candidates repeat their sentence as the directive: say so instead.
        return "= trigger" if item.directive.strip() == item.trigger.strip() else _one_line(item.directive)
    if column == COL_DOMAIN:
        return item.domain or "—"
    if column == COL_VERDICT:
        return VERDICT_TEXT.get(item.verdict, item.verdict)
    if column == COL_REASON:
        return item.reason
    if column == COL_PREVENTED:
        return str(item.prevented_n)
    if column == COL_BROKEN:
        return f"⚠ {item.broken_n}" if item.broken_n else "0"
    if column == COL_NEAR:
        return str(item.near_miss_n)
    if column == COL_MISSED:
        return str(item.missed_n)
    if column == COL_PRECISION:
        return rate(item.precision, item.precision_ci)
    if column == COL_RECALL:
        return rate(item.recall, item.recall_ci)
    if column == COL_STATUS:
        text = STATUS_TEXT.get(item.status, item.status)
        if item.decided_version_id is not None and item.decided_version_id != item.rule_version_id:
            text += " (other version)"
        return text
    if column == COL_REVIEWER:
        return item.reviewer or "—"
    if column == COL_MARK:
        return MARK_TEXT.get(item.verdict_mark or "", "—")
    if column == COL_ORIGIN:
        suffix = f" · v{item.version}" if item.latest_version > 1 or item.version > 1 else ""
        if item.version < item.latest_version:
            suffix += f" (v{item.latest_version} not replayed)"
        # The file's name (what tells rules apart); the folders are in the tooltip.
        return item.origin.rsplit("/", 1)[-1] + suffix
    if column == COL_RUN:
        # Short, so every column fits at 1280 px; the profile is in the tooltip and the title.
        live = "" if item.run_status == "complete" else f" ({item.run_status})"
        return f"#{item.run_id}{live}"
    return ""


def _tooltip(item: WorkspaceRule, column: int) -> str | None:
    if column in (COL_TRIGGER, COL_DIRECTIVE, COL_ORIGIN, COL_DOMAIN, COL_REVIEWER):
        return plain_tooltip(display(item, column) if column not in (COL_TRIGGER, COL_DIRECTIVE)
                             else (item.trigger if column == COL_TRIGGER else item.directive))
    if column == COL_STATUS and item.decision_reason:
        return plain_tooltip(f"{display(item, column)} by {item.reviewer}: {item.decision_reason}")
    if column == COL_RUN:
        return plain_tooltip(f"run #{item.run_id}, profile {item.profile}, {item.run_status}")
    if column in (COL_PRECISION, COL_RECALL):
        return "Wilson 95 % interval in brackets; — means unmeasured (no denominator), not zero"
    return None
