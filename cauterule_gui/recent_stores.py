"""File ▸ Open Recent: the last stores opened, newest first, missing files pruned.

A store is a file (kept as its resolved path, pruned when the file is gone) or a team store's
``postgresql://`` URL (kept as given, without any password; a server cannot be checked
without connecting, so it is never pruned).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PySide6.QtCore import QSettings

from core.store.engine import StoreUrl, store_location

KEY_RECENT = "stores/recent"
MAX_RECENT = 8


def recent_stores(settings: QSettings) -> list[Path | StoreUrl]:
    value = settings.value(KEY_RECENT, [])
    items = [value] if isinstance(value, str) else list(value or [])
    stores = [store for store in map(_location, items) if store is not None]
    return [p for p in stores if isinstance(p, StoreUrl) or p.is_file()]


def _location(item: object) -> Path | StoreUrl | None:
    """A remembered store, or None for an entry the store rules refuse (an edited settings file:
    another database's URL, a folder): skipped, never offered, never a crash of the File menu."""
    if not isinstance(item, str) or not item:
        return None
    try:
        return store_location(item)
    except argparse.ArgumentTypeError:
        return None


def remember_store(settings: QSettings, path: Path | StoreUrl) -> None:
    resolved = str(StoreUrl(str(path)) if isinstance(path, StoreUrl) else Path(path).expanduser().resolve())
    items = [str(p) for p in recent_stores(settings) if str(p) != resolved]
    settings.setValue(KEY_RECENT, [resolved, *items][:MAX_RECENT])
