"""File ▸ Open Recent: the last stores opened, newest first, missing files pruned."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

KEY_RECENT = "stores/recent"
MAX_RECENT = 8


def recent_stores(settings: QSettings) -> list[Path]:
    value = settings.value(KEY_RECENT, [])
    items = [value] if isinstance(value, str) else list(value or [])
    paths = [Path(p) for p in items if isinstance(p, str) and p]
    return [p for p in paths if p.exists()]


def remember_store(settings: QSettings, path: Path) -> None:
    resolved = str(Path(path).expanduser().resolve())
    items = [str(p) for p in recent_stores(settings) if str(p) != resolved]
    settings.setValue(KEY_RECENT, [resolved, *items][:MAX_RECENT])
