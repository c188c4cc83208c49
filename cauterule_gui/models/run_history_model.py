"""Replay run history: every run in the store, newest first (a short list)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt

from core.store.replay_repo import RunInfo

from cauterule_gui.models.rows_table_model import RowsTableModel
from cauterule_gui.plain_text import plain_tooltip

RUN_ID_ROLE = Qt.ItemDataRole.UserRole + 2  # the run id (UserRole + 1 is the row object)


class RunHistoryModel(RowsTableModel[RunInfo]):
    COLUMNS = tuple((name, "") for name in
                    ("Run", "Started", "By", "Status", "Profile", "Semantic", "Rules", "Pairs", "Seconds", "Scope"))

    def set_runs(self, runs: Sequence[RunInfo]) -> None:
        self.set_rows(runs)

    def run(self, row: int) -> RunInfo | None:
        return self.row_at(row)

    def cell(self, item: RunInfo, column: int) -> str:
        return _display(item, column)

    def tooltip(self, item: RunInfo, column: int) -> str | None:
        note = item.config.get("semantic_note")
        return plain_tooltip(f"run #{item.id} · model {item.model_id or '—'}" + (f"\nsemantic: {note}" if note else ""))

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == RUN_ID_ROLE:
            item = self.row_at(index.row()) if index.isValid() else None
            return None if item is None else item.id
        return super().data(index, role)


def _display(run: RunInfo, column: int) -> str:
    values = (
        # "By": the login that ran it on a team store (set by the server); a file's runs are its owner's.
        f"#{run.id}", run.started_at.replace("T", " ")[:19], run.started_by or "—", run.status, run.profile, run.semantic_state,
        str(run.results), f"{run.pairs:,}", "—" if run.seconds is None else f"{run.seconds:.1f}", run.scope or "—",
    )
    return values[column] if 0 <= column < len(values) else ""
