"""The rules table: one row per rule (or per group of duplicate rules) with its replay result
and review status.

Lazy and SQL-backed like the trajectory table: the model keeps only the rows fetched so far
(pages of ``PAGE_SIZE`` group rows, each page with all its groups' members, so expanding a
group reads nothing); filtering, sorting and the choice of run happen in
``ResultRepository`` (SQL), off the GUI thread once the model has its executor. A refresh
keeps the current rule selected by id, so results arriving during a replay do not throw the
reviewer off their place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from core.store.result_repo import ResultRepository
from core.store.workspace_query import RulePage, WorkspaceFilter, WorkspaceRule, WorkspaceScope

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
    """Rows are duplicate groups (``ResultRepository.page_groups``): a rule with no
    duplicate is a group of one; a group of n shows "×n ▸" and its first member's figures,
    and expands (``expand`` / ``collapse``) into its other members, indented below it.
    ``_heads`` are the group rows fetched so far (what pages count); ``_rows`` is what the
    view shows, heads with the members of expanded groups."""

    COLUMNS = COLUMNS

    def __init__(self, repository: ResultRepository | None = None, parent: Any = None,
                 page_size: int = PAGE_SIZE) -> None:
        super().__init__(parent, page_size, order_by="rule")
        self._repo = repository
        self._filter = WorkspaceFilter()
        self._scope = WorkspaceScope()
        self._reviewer: str | None = None
        self.unreviewed = 0
        self.rule_total = 0
        self._heads: list[WorkspaceRule] = []
        self._members: dict[str, list[WorkspaceRule]] = {}
        self._expanded: set[str] = set()
        self._child: list[bool] = []
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

    def is_group(self, row: int) -> bool:
        """A collapsed or expanded group row of two or more duplicates."""
        return 0 <= row < len(self._rows) and not self._child[row] and self._rows[row].group_size > 1

    def is_member(self, row: int) -> bool:
        return 0 <= row < len(self._child) and self._child[row]

    def is_expanded(self, row: int) -> bool:
        return self.is_group(row) and self._rows[row].group_key in self._expanded

    def rules_of_rows(self, rows: list[int]) -> list[WorkspaceRule]:
        """The rules a selection stands for: a collapsed group's row stands for every member
        (a decision on the group applies to each rule); each rule once, in row order."""
        found: dict[int, WorkspaceRule] = {}
        for row in sorted(rows):
            item = self.rule(row)
            if item is None:
                continue
            group = [item]
            if self.is_group(row) and not self.is_expanded(row):
                group = self._members.get(item.group_key or "", [item])
            for member in group:
                found.setdefault(member.rule_id, member)
        return list(found.values())

    def row_of_rule(self, rule_id: int) -> int | None:
        """The rule's row; a member of a collapsed group is shown (its group expands)."""
        for row, item in enumerate(self._rows):
            if item.rule_id == rule_id:
                return row
        for row, item in enumerate(self._rows):
            members = self._members.get(item.group_key or "", []) if self.is_group(row) else []
            if any(m.rule_id == rule_id for m in members):
                self.expand(row)
                return next(r for r in range(row, len(self._rows)) if self._rows[r].rule_id == rule_id)
        return None

    def expand(self, row: int) -> bool:
        if not self.is_group(row) or self.is_expanded(row):
            return False
        key = self._rows[row].group_key or ""
        children = [m for m in self._members.get(key, []) if m.rule_id != self._rows[row].rule_id]
        self._expanded.add(key)
        self.dataChanged.emit(self.index(row, COL_TRIGGER), self.index(row, COL_TRIGGER))
        if children:
            self.beginInsertRows(QModelIndex(), row + 1, row + len(children))
            self._rows[row + 1:row + 1] = children
            self._child[row + 1:row + 1] = [True] * len(children)
            self.endInsertRows()
        return True

    def collapse(self, row: int) -> bool:
        """Collapse the group of this row (a group row or one of its members); True if it was open."""
        while self.is_member(row):
            row -= 1
        if not self.is_expanded(row):
            return False
        end = row + 1
        while end < len(self._rows) and self._child[end]:
            end += 1
        self._expanded.discard(self._rows[row].group_key or "")
        if end > row + 1:
            self.beginRemoveRows(QModelIndex(), row + 1, end - 1)
            del self._rows[row + 1:end]
            del self._child[row + 1:end]
            self.endRemoveRows()
        self.dataChanged.emit(self.index(row, COL_TRIGGER), self.index(row, COL_TRIGGER))
        return True

    def group_row(self, row: int) -> int:
        """The group row a member row belongs to (itself for a group row)."""
        while self.is_member(row):
            row -= 1
        return row

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
        """The first ``limit`` group rows with every member of those groups (one query); may run
        on the database thread, so it reads and never touches the rows shown."""
        if self._repo is None:
            return FirstPage(0, [], {"unreviewed": 0, "rule_total": 0, "members": {}})
        page = self._repo.page_groups(self._scope, self._filter, self._reviewer, order_by=self._order_by,
                                      descending=self._descending, offset=0, limit=limit)
        rule_total = page.rules if page.rules >= 0 else page.total
        return FirstPage(page.total, list(page.rows),
                         {"unreviewed": page.unreviewed, "rule_total": rule_total, "members": page.members})

    def _apply_extra(self, extra: dict[str, Any]) -> None:
        # Inside the reset, on the GUI thread: ``_rows`` holds the heads; lay out the expanded groups.
        self.unreviewed = int(extra.get("unreviewed", 0))
        self.rule_total = int(extra.get("rule_total", 0))
        self._heads, self._members = list(self._rows), {}
        laid = self._lay_out(self._heads, extra.get("members", {}))
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

    def _lay_out(self, heads: list[WorkspaceRule],
                 members: Mapping[str, list[WorkspaceRule]]) -> list[tuple[WorkspaceRule, bool]]:
        """Take in group rows with their members (read with them, so expanding a group needs no
        SQL); the rows to show, (rule, is a member), with the expanded groups laid out."""
        self._members.update(members)
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
            laid = self._lay_out(list(page.rows), page.members)
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
        if role == Qt.ItemDataRole.DisplayRole:
            return self._prefix(index.row()) + display(item, column) if column == COL_TRIGGER else display(item, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == COL_TRIGGER and self.is_group(index.row()):
                return plain_tooltip(
                    f"{item.trigger}\n\n× {item.group_size} rules say this (same trigger and directive), "
                    f"{item.group_unreviewed} unreviewed. The row shows the first of them. → / ← expand and "
                    "collapse; with the group collapsed, A / R / D decide on each of its rules "
                    "(one decision and audit event per rule)")
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
            text = display(item, column)
            if column == COL_TRIGGER and self.is_group(index.row()):
                text = f"group of {item.group_size} duplicate rules, " + \
                    ("expanded" if self.is_expanded(index.row()) else "collapsed") + f": {text}"
            return f"{COLUMNS[column][0]}: {text}"
        if role == RULE_ID_ROLE:
            return item.rule_id
        if role == ROW_ROLE:
            return item
        return None

    def _prefix(self, row: int) -> str:
        if self.is_member(row):
            return "    ↳ "
        if self.is_group(row):
            return f"×{self._rows[row].group_size} " + ("▾ " if self.is_expanded(row) else "▸ ")
        return ""


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
