"""The last cross-session measurement, kept in the store's settings table so ``report`` can
show it beside the run (the session files themselves stay outside the store)."""

from __future__ import annotations

import json
from typing import Any

from core.store.engine import Store
from core.store.tables import SettingRow

CROSS_SESSION_KEY = "loop.cross_session"


def save_cross_session(store: Store, result: dict[str, Any]) -> None:
    with store.session() as session:
        row = session.get(SettingRow, CROSS_SESSION_KEY)
        text = json.dumps(result, ensure_ascii=False)
        if row is None:
            session.add(SettingRow(key=CROSS_SESSION_KEY, value_json=text))
        else:
            row.value_json = text


def load_cross_session(store: Store) -> dict[str, Any] | None:
    with store.read_session() as session:
        row = session.get(SettingRow, CROSS_SESSION_KEY)
        return None if row is None else dict(json.loads(row.value_json))
