"""A rule's audit log: who did what, when, why, against which run (append-only)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from core.store.review_repo import AuditEvent

from cauterule_gui.models.rows_table_model import RowsTableModel


class AuditTableModel(RowsTableModel[AuditEvent]):
    COLUMNS = (("When", ""), ("Who", ""), ("What", ""), ("Why", ""), ("Run", "the replay run it rested on"),
               ("Details", ""))

    def __init__(self, events: Sequence[AuditEvent] = (), parent: Any = None) -> None:
        super().__init__(parent)
        self.set_rows(events)

    def cell(self, item: AuditEvent, column: int) -> str:
        return _display(item, column)


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
