"""File ▸ Open team store…: ask for a ``postgresql://`` URL and open it in the window."""

from __future__ import annotations

import argparse
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox

from core.store.engine import StoreUrl, store_location
from core.store.postgres import is_postgres_url

PROMPT = ("PostgreSQL URL of the team store, e.g.\npostgresql://ana@db.example/team\n"
          "(passwords belong in ~/.pgpass, not here)")


def team_store_url(text: str) -> StoreUrl:
    """The typed text as a team store's URL; ValueError (one line, never the password) otherwise.

    The same rules as ``--store`` (``core.store.engine.store_location``): another database's URL,
    a malformed URL or a file path typed here is refused, not ignored.
    """
    try:
        location = store_location(text.strip())
    except argparse.ArgumentTypeError as error:
        raise ValueError(str(error)) from None
    if not isinstance(location, StoreUrl) or not is_postgres_url(location):
        raise ValueError("not a postgresql:// URL; a store file is opened with File ▸ Open store…")
    return location


def ask_team_store_url(parent: Any, initial: str = "postgresql://") -> StoreUrl | None:
    """The URL the reviewer typed, or None (cancelled, or refused with a message saying why)."""
    text, ok = QInputDialog.getText(parent, "Open team store", PROMPT, QLineEdit.EchoMode.Normal, initial)
    if not ok or not text.strip():
        return None
    try:
        return team_store_url(text)
    except ValueError as error:
        box = QMessageBox(QMessageBox.Icon.Warning, "Not a team store", str(error), QMessageBox.StandardButton.Close,
                          parent)
        box.setTextFormat(Qt.TextFormat.PlainText)  # typed text is shown as text, never as markup
        box.open()
        return None


def open_team_store(window: Any) -> bool:
    """Ask for a URL and switch the window to that store (False when cancelled or refused)."""
    url = ask_team_store_url(window)
    return False if url is None else bool(window.switch_store(url))
