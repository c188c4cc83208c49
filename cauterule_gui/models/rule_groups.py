"""The rules table's groups of duplicate rules: which rows are groups and members, expanding
and collapsing a group, reading its members (through the executor), the rules a selection
stands for. A mixin of ``RuleTableModel`` (the rows and the paging live on the model).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QModelIndex

from core.store.result_repo import ResultRepository
from core.store.workspace_query import WorkspaceFilter, WorkspaceRule, WorkspaceScope

from cauterule_gui.models.rule_cells import COL_TRIGGER

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor

T = TypeVar("T")


class RuleGroups:
    """``_rows`` / ``_child`` are what the view shows (a member row is a child); ``_members`` the
    groups read since the last refresh; ``_expanded`` the open groups; ``_reading`` the groups
    being read, with the generation they were asked in."""

    _rows: list[WorkspaceRule]
    _child: list[bool]
    _members: dict[str, list[WorkspaceRule]]
    _expanded: set[str]
    _reading: dict[str, int]
    _repo: ResultRepository | None
    _db: DatabaseExecutor | None
    _generation: int
    _scope: WorkspaceScope
    _filter: WorkspaceFilter
    _reviewer: str | None
    _order_by: str
    _descending: bool
    members_loaded: Any  # the model's Signal
    dataChanged: Any
    index: Callable[..., QModelIndex]
    beginInsertRows: Callable[..., None]
    endInsertRows: Callable[[], None]
    beginRemoveRows: Callable[..., None]
    endRemoveRows: Callable[[], None]

    def is_group(self, row: int) -> bool:
        """A collapsed or expanded group row of two or more duplicates."""
        return 0 <= row < len(self._rows) and not self._child[row] and self._rows[row].group_size > 1

    def is_member(self, row: int) -> bool:
        return 0 <= row < len(self._child) and self._child[row]

    def is_expanded(self, row: int) -> bool:
        return self.is_group(row) and self._rows[row].group_key in self._expanded

    def rules_of_rows(self, rows: list[int]) -> list[WorkspaceRule]:
        """The rules a selection stands for: a collapsed group's row stands for every member
        (a decision on the group applies to each rule); each rule once, in row order. Call
        through ``with_members`` so the collapsed groups' members have been read."""
        found: dict[int, WorkspaceRule] = {}
        for row in sorted(rows):
            item = self.rule(row)
            if item is None:
                continue
            group = [item]
            if self.is_group(row) and not self.is_expanded(row):
                group = self._members.get(item.group_key or "") or [item]
            for member in group:
                found.setdefault(member.rule_id, member)
        return list(found.values())

    def with_members(self, rows_of: Callable[[], list[int]], then: Callable[[], object]) -> None:
        """Call ``then`` once every collapsed group among ``rows_of()`` has its members read
        (at once when they are; else after one read off the GUI thread). A refresh meanwhile
        asks again for the rows then shown."""
        keys = [self._rows[r].group_key or "" for r in rows_of()
                if self.is_group(r) and (self._rows[r].group_key or "") not in self._members]
        if not keys:
            then()
            return
        self._read_members(keys, lambda: self.with_members(rows_of, then))

    def row_of_rule(self, rule_id: int) -> int | None:
        """The rule's row; a member of a collapsed group whose members were read is shown (its
        group expands). ``locate`` reads the group of a rule not found here."""
        for row, item in enumerate(self._rows):
            if item.rule_id == rule_id:
                return row
        for row, item in enumerate(self._rows):
            members = self._members.get(item.group_key or "", []) if self.is_group(row) else []
            if any(m.rule_id == rule_id for m in members):
                self.expand(row)
                return next(r for r in range(row, len(self._rows)) if self._rows[r].rule_id == rule_id)
        return None

    def locate(self, rule_id: int, then: Callable[[], object]) -> bool:
        """Read the group the rule belongs to under this filter (one query, off the GUI thread),
        keep its members, then call ``then`` (``row_of_rule`` finds a member now). False, and
        ``then`` never called, when there is nothing to read from."""
        repo, generation = self._repo, self._generation
        if repo is None:
            return False
        scope, flt, reviewer, order_by, descending = (self._scope, self._filter, self._reviewer, self._order_by,
                                                      self._descending)

        def found(group: tuple[str, list[WorkspaceRule]] | None) -> None:
            if group is not None and generation == self._generation:
                self._members[group[0]] = group[1]
            then()

        self._read(lambda: repo.rule_group(scope, flt, rule_id, reviewer, order_by=order_by, descending=descending),
                   found, "rule's duplicate group")
        return True

    def take_members(self, generation: int, key: str, members: list[WorkspaceRule]) -> None:
        """Members read elsewhere (G reads the group) under this model's ``generation``."""
        if generation == self._generation and members:
            self._members[key] = list(members)

    def expand(self, row: int) -> bool:
        """Show the group's members under its row: now if they were read, else once read."""
        if not self.is_group(row) or self.is_expanded(row):
            return False
        key = self._rows[row].group_key or ""
        self._expanded.add(key)
        self.dataChanged.emit(self.index(row, COL_TRIGGER), self.index(row, COL_TRIGGER))
        if key in self._members:
            self._show_members(key)
        else:
            self._read_members([key], None)
        return True

    def _read_members(self, keys: list[str], then: Callable[[], object] | None) -> None:
        repo, generation = self._repo, self._generation
        if repo is None:
            return
        scope, flt, reviewer, order_by, descending = (self._scope, self._filter, self._reviewer, self._order_by,
                                                      self._descending)
        wanted = list(dict.fromkeys(keys))
        for key in wanted:
            self._reading[key] = generation

        def arrived(found: dict[str, list[WorkspaceRule]]) -> None:
            for key in wanted:
                if self._reading.get(key) == generation:
                    del self._reading[key]
            if generation == self._generation:
                for key in wanted:  # a group the filter emptied meanwhile: its row alone, not read again
                    self._members[key] = found.get(key, [])
                for key in wanted:
                    self._show_members(key)
                self.members_loaded.emit()
            else:  # a refresh came in between: read again what is still open and not read since
                again = [k for k in wanted if k in self._expanded and k not in self._members and k not in self._reading]
                if again:
                    self._read_members(again, None)
            if then is not None:
                then()

        self._read(lambda: repo.group_members(scope, flt, wanted, reviewer, order_by=order_by, descending=descending),
                   arrived, "rule group members")

    def _read(self, read: Callable[[], T], deliver: Callable[[T], None], name: str) -> None:
        """``read`` off the GUI thread through the executor (at once without one), then ``deliver``."""
        if self._db is None:
            deliver(read())
        else:
            self._db.query(lambda _services: read(), deliver, name=name)  # no store open: nothing arrives

    def _show_members(self, key: str) -> None:
        """Insert the members of an expanded group under its row (once; no-op while not read)."""
        row = next((r for r, item in enumerate(self._rows) if not self._child[r] and item.group_key == key), None)
        if row is None or key not in self._expanded or key not in self._members or self.is_member(row + 1):
            return
        children = [m for m in self._members[key] if m.rule_id != self._rows[row].rule_id]
        if children:
            self.beginInsertRows(QModelIndex(), row + 1, row + len(children))
            self._rows[row + 1:row + 1] = children
            self._child[row + 1:row + 1] = [True] * len(children)
            self.endInsertRows()

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

    def _prefix(self, row: int) -> str:
        if self.is_member(row):
            return "    ↳ "
        if self.is_group(row):
            return f"×{self._rows[row].group_size} " + ("▾ " if self.is_expanded(row) else "▸ ")
        return ""
