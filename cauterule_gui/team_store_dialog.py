"""File ▸ Open team store…: ask for a ``postgresql://`` URL and open it in the window."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QInputDialog, QLineEdit

from core.store.engine import StoreUrl
from core.store.postgres import is_postgres_url

PROMPT = ("PostgreSQL URL of the team store, e.g.\npostgresql://ana@db.example/team\n"
          "(passwords belong in ~/.pgpass, not here)")


def ask_team_store_url(parent: Any, initial: str = "postgresql://") -> StoreUrl | None:
    """The URL the reviewer typed, or None (cancelled, or not a postgresql:// URL)."""
    text, ok = QInputDialog.getText(parent, "Open team store", PROMPT, QLineEdit.EchoMode.Normal, initial)
    text = text.strip()
    if not ok or not is_postgres_url(text):
        return None
    return StoreUrl(text)


def open_team_store(window: Any) -> bool:
    """Ask for a URL and switch the window to that store (False when cancelled or refused)."""
    url = ask_team_store_url(window)
    return False if url is None else bool(window.switch_store(url))
