"""Replay run history: every run in the store, newest first (a short list)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from core.store.replay_repo import RunInfo

from cauterule_gui.plain_text import plain_tooltip

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("Run", "Started", "Status", "Profile", "Semantic", "Rules", "Pairs", "Seconds", "Scope")
RUN_ID_ROLE = Qt.ItemDataRole.UserRole + 1


class RunHistoryModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._runs: list[RunInfo] = []

    def set_runs(self, runs: Sequence[RunInfo]) -> None:
        self.beginResetModel()
        self._runs = list(runs)
        self.endResetModel()

    def run(self, row: int) -> RunInfo | None:
        return self._runs[row] if 0 <= row < len(self._runs) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._runs)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._runs):
            return None
        run = self._runs[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(run, index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            note = run.config.get("semantic_note")
            tip = f"run #{run.id} · model {run.model_id or '—'}" + (f"\nsemantic: {note}" if note else "")
            return plain_tooltip(tip)
        if role == RUN_ID_ROLE:
            return run.id
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


def _display(run: RunInfo, column: int) -> str:
    values = (
        f"#{run.id}", run.started_at.replace("T", " ")[:19], run.status, run.profile, run.semantic_state,
        str(run.results), f"{run.pairs:,}", "—" if run.seconds is None else f"{run.seconds:.1f}", run.scope or "—",
    )
    return values[column] if 0 <= column < len(values) else ""
