"""Files that are not usable stores, for the store-open drills (defects 7 and 8).

Each maker writes one variant at ``path`` and returns the phrase its refusal must contain.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from core.store.engine import open_store


def _random_bytes(path: Path) -> str:
    path.write_bytes(os.urandom(8192))
    return "not a SQLite database"


def _text(path: Path) -> str:
    path.write_text("corpus,role\nfailures,extraction\n" * 50, encoding="utf-8")
    return "not a SQLite database"


def _folder(path: Path) -> str:
    path.mkdir()
    (path / "keep.txt").write_text("x")
    return "is a folder"


def _good_store(path: Path) -> None:
    from sqlalchemy import text

    store = open_store(path)
    with store.session() as session:
        for i in range(400):  # enough pages that a truncation or a damaged page is inside data
            session.execute(
                text("INSERT INTO setting (key, value_json) VALUES (:k, :v)"), {"k": f"k{i}", "v": "x" * 500}
            )
    store.close()
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()


def _truncated(path: Path) -> str:
    _good_store(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2 + 100])
    return "damaged"


def _corrupted_pages(path: Path) -> str:
    _good_store(path)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    # Scribble over the middle of every page after the schema page (their b-tree headers).
    for start in range(page * 2, len(data), page):
        data[start:start + 64] = os.urandom(64)
    path.write_bytes(bytes(data))
    return "damaged"


def damage_last_page(path: Path) -> None:
    """Scribble over the file's last page: a rightmost leaf, off the path to any table's first
    row, so only a check that reads every page finds it (the background check of a big store)."""
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    start = len(data) - page
    data[start:start + 64] = os.urandom(64)
    data[start] = 0x55  # never a valid b-tree page type
    path.write_bytes(bytes(data))


def _foreign(path: Path) -> str:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    connection.execute("INSERT INTO photos (name) VALUES ('holiday.jpg')")
    connection.commit()
    connection.close()
    return "another application's SQLite database"


def _foreign_with_version(path: Path) -> str:
    # user_version 3 and an application id of its own: still not ours.
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE corpus (id INTEGER PRIMARY KEY)")
    connection.execute("PRAGMA user_version = 3")
    connection.execute("PRAGMA application_id = 1234")
    connection.commit()
    connection.close()
    return "another application's SQLite database"


VARIANTS: dict[str, Callable[[Path], str]] = {
    "random bytes": _random_bytes,
    "text file": _text,
    "folder": _folder,
    "truncated": _truncated,
    "corrupted pages": _corrupted_pages,
    "foreign database": _foreign,
    "foreign database with a version": _foreign_with_version,
}


def fingerprint(path: Path) -> str:
    """sha256 of a file, or of a folder's listing and contents."""
    import hashlib

    digest = hashlib.sha256()
    if path.is_dir():
        for child in sorted(path.rglob("*")):
            digest.update(child.name.encode())
            if child.is_file():
                digest.update(child.read_bytes())
    else:
        digest.update(path.read_bytes())
    return digest.hexdigest()
