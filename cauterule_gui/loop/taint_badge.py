"""A taint badge in any rule table without touching its model: a delegate on one column that
prefixes "⚠ tainted · " for rules whose source trajectory is tainted (ids from a job)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem, QTableView, QWidget

BADGE = "⚠ tainted · "


class TaintBadgeDelegate(QStyledItemDelegate):
    def __init__(self, rule_id_role: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._role = rule_id_role
        self.tainted: dict[int, str] = {}  # rule id -> why

    def set_tainted(self, tainted: dict[int, str]) -> None:
        self.tainted = dict(tainted)

    def badge_for(self, index: QModelIndex | QPersistentModelIndex) -> str | None:
        rule_id = index.data(self._role)
        return self.tainted.get(int(rule_id)) if rule_id is not None else None

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        if self.badge_for(index) is not None:
            option.text = BADGE + option.text


def install_badge(view: QTableView, column: int, rule_id_role: int) -> TaintBadgeDelegate:
    delegate = TaintBadgeDelegate(rule_id_role, view)
    view.setItemDelegateForColumn(column, delegate)
    return delegate
