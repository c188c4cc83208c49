"""A rule's audit log: who did what, when, why, against which run (append-only)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from core.store.review_repo import AuditEvent

from cauterule_gui.plain_text import plain_tooltip

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("When", "Who", "What", "Why", "Run", "Details")


class AuditTableModel(QAbstractTableModel):
    def __init__(self, events: Sequence[AuditEvent] = (), parent: Any = None) -> None:
        super().__init__(parent)
        self._events = list(events)

    def set_events(self, events: Sequence[AuditEvent]) -> None:
        self.beginResetModel()
        self._events = list(events)
        self.endResetModel()

    def audit_event(self, row: int) -> AuditEvent | None:
        return self._events[row] if 0 <= row < len(self._events) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._events)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._events):
            return None
        event = self._events[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(event, index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(_display(event, index.column()))
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


def _details(event: AuditEvent) -> str:
    after = event.after
    if isinstance(after, dict):
        shown = {k: v for k, v in after.items() if k not in ("evidence",)}
        return json.dumps(shown, ensure_ascii=False, sort_keys=True)
    return "" if after is None else json.dumps(after, ensure_ascii=False)


def _display(event: AuditEvent, column: int) -> str:
    values = (
        event.at.replace("T", " ")[:19], event.actor, f"{event.action} ({event.target_kind} {event.target_id})",
        event.reason or "—", "—" if event.run_id is None else f"#{event.run_id}", _details(event),
    )
    return values[column] if 0 <= column < len(values) else ""
