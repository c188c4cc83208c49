"""Checking a file before the Workbench treats it as its store, without changing a byte.

A store is one SQLite file carrying the Workbench's ``application_id``. Anything else is
refused with one line saying what it is: a folder, a file that is not SQLite (random bytes,
text), a truncated or corrupted database, another application's database, a read-only
location. All checks read only (``mode=ro``), so a refused file keeps its sha256.

How damage is found without making a big store slow to open: SQLite's ``quick_check`` reads
every page (about 6 s for a 760 MB store on the reference machine), so it runs on open only
for files up to ``EAGER_CHECK_BYTES``. A bigger file gets the checks that cost no more than a
few pages: its size against the page count its header records (truncation), and the first
row of every table and index (a damaged root or first leaf page); the window then runs the
full check in the background (:func:`integrity_problem`, ``cauterule_gui/store_integrity.py``)
and shows a banner if it finds damage, and ``store check`` runs SQLite's full integrity check.

Stores made before the mark existed (``application_id`` 0, ``user_version`` 1..5, the
Workbench's own tables) are recognised by their schema and get the mark when they open.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

# "CRWB": CauterRule Workbench, in SQLite's application_id header field (offset 68).
APPLICATION_ID = 0x43525742
SQLITE_MAGIC = b"SQLite format 3\x00"
# Tables every Workbench store has had since schema step 1.
WORKBENCH_TABLES = frozenset({"corpus", "source_file", "trajectory", "rule", "rule_version", "import_report"})
# Files up to this size get the full quick_check on open (~0.25 s); bigger ones in the background.
EAGER_CHECK_BYTES = 32 * 1024 * 1024


class StoreOpenError(RuntimeError):
    """A store file cannot be opened; the message is one line a user can act on."""


class NotAStoreError(StoreOpenError):
    """The file is not a Workbench store (not SQLite, or another application's database)."""


class StoreCorruptError(StoreOpenError):
    """The file is a SQLite database that is truncated or damaged."""


class StoreReadOnlyError(StoreOpenError):
    """The store (or its folder) cannot be written: a read-only file, folder or mount."""


def read_only_uri(path: Path) -> str:
    """A SQLite URI that reads ``path`` without writing anything: ``mode=ro`` where SQLite can
    keep its ``-shm`` beside the file, ``immutable=1`` where it cannot (a read-only folder or
    mount, which nobody can change while it is read-only either)."""
    base = path.absolute().as_uri()
    return f"{base}?mode=ro" if os.access(path.parent, os.W_OK | os.X_OK) else f"{base}?immutable=1"


def inspect_store_file(path: Path, for_reading: bool = False) -> tuple[int, int]:
    """Check ``path`` read-only; return (application_id, user_version), (0, 0) if new or empty.

    Raises a :class:`StoreOpenError` subclass saying what is wrong, before anything is written.
    ``for_reading``: the store will only be read (``core.store.read_only``), so a read-only
    file, folder or mount is fine; a missing or empty file is not (there is nothing to read).
    """
    if for_reading:
        return _inspect_for_reading(path)
    if not os.path.lexists(path):
        _check_writable_folder(path.parent if path.parent.exists() else _existing_ancestor(path))
        return 0, 0
    try:
        info = path.stat()
    except OSError as error:
        raise StoreOpenError(f"{path} cannot be read: {error.strerror or error}") from error
    if stat.S_ISDIR(info.st_mode):
        raise NotAStoreError(f"{path} is a folder, not a store file")
    if not stat.S_ISREG(info.st_mode):
        raise NotAStoreError(f"{path} is not a regular file (a device, pipe or socket), not a store")
    if info.st_size == 0:
        _check_writable(path)
        return 0, 0
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
    except OSError as error:
        raise StoreOpenError(f"{path} cannot be read: {error.strerror or error}") from error
    if not header.startswith(SQLITE_MAGIC):
        raise NotAStoreError(f"{path} is not a Workbench store (not a SQLite database); nothing was changed")
    if len(header) < 100:
        raise StoreCorruptError(f"{path} is a truncated SQLite database; nothing was changed")
    # Before SQLite reads it: a WAL database on a read-only mount cannot even be read
    # without its -shm file, and "unable to open" must not be mistaken for damage.
    _check_writable(path)
    _check_length(path, header, info.st_size)
    application_id, user_version, tables = _read_schema(path, full_check=info.st_size <= EAGER_CHECK_BYTES)
    if application_id != APPLICATION_ID and not _is_unmarked_store(application_id, user_version, tables):
        what = "an empty SQLite database with settings" if not tables else "another application's SQLite database"
        raise NotAStoreError(
            f"{path} is {what}, not a Workbench store; it was not opened and nothing was changed"
        )
    return application_id, user_version


def _inspect_for_reading(path: Path) -> tuple[int, int]:
    if not path.is_file() or path.stat().st_size == 0:
        raise StoreOpenError(f"{path} is not a store file with anything to read")
    with open(path, "rb") as handle:
        header = handle.read(100)
    if not header.startswith(SQLITE_MAGIC) or len(header) < 100:
        raise NotAStoreError(f"{path} is not a Workbench store (not a SQLite database); nothing was changed")
    if _has_wal(path) and not os.access(path.parent, os.W_OK | os.X_OK):
        raise StoreReadOnlyError(
            f"{path} has changes in its -wal file that cannot be read in a read-only folder; copy the store "
            "with its -wal and -shm files to a writable folder")
    _check_length(path, header, path.stat().st_size)
    application_id, user_version, tables = _read_schema(path, full_check=path.stat().st_size <= EAGER_CHECK_BYTES,
                                                        uri=read_only_uri(path))
    if application_id != APPLICATION_ID and not _is_unmarked_store(application_id, user_version, tables):
        raise NotAStoreError(f"{path} is not a Workbench store; it was not opened and nothing was changed")
    return application_id, user_version


def _is_unmarked_store(application_id: int, user_version: int, tables: set[str]) -> bool:
    if application_id != 0:
        return False
    if not tables and user_version == 0:
        return True  # a blank database: nothing to lose, becomes a store
    return user_version >= 1 and WORKBENCH_TABLES <= tables


def _has_wal(path: Path) -> bool:
    wal = Path(f"{path}-wal")
    return wal.exists() and wal.stat().st_size > 0


def _check_length(path: Path, header: bytes, size: int) -> None:
    """A file shorter than its header says (or not whole pages) was truncated.

    Only without a non-empty ``-wal`` file: until a checkpoint, pages (and the header's
    page count) may live in the WAL, and the database file may lag behind them.
    """
    if _has_wal(path):
        return
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        raise StoreCorruptError(f"{path} is a damaged SQLite database (page size {page_size}); nothing was changed")
    pages = int.from_bytes(header[28:32], "big")
    # The header's page count is valid only when its "version valid for" matches the change counter.
    counted = pages if pages and header[24:28] == header[92:96] else 0
    if size % page_size or size < counted * page_size:
        raise StoreCorruptError(
            f"{path} is a damaged SQLite database (truncated: {size:,} bytes, its header says "
            f"{counted * page_size:,} in pages of {page_size:,}); nothing was changed")


def _first_rows(connection: sqlite3.Connection) -> list[str]:
    """Read the first row of every table and index: their root and leftmost pages.

    A damaged page on that path raises ``sqlite3.DatabaseError`` (caught by the caller). A
    partial index cannot be scanned alone ("no query solution") and is skipped.
    """
    objects = connection.execute(
        "SELECT type, name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index') AND rootpage > 0 "
        "AND name NOT LIKE 'sqlite_%'").fetchall()
    for kind, name, table in objects:
        quoted_table = '"' + str(table).replace('"', '""') + '"'
        if kind == "table":
            connection.execute(f"SELECT * FROM {quoted_table} LIMIT 1").fetchall()
            continue
        quoted = '"' + str(name).replace('"', '""') + '"'
        try:
            connection.execute(f"SELECT 1 FROM {quoted_table} INDEXED BY {quoted} LIMIT 1").fetchall()
        except sqlite3.OperationalError as error:
            if "no query solution" not in str(error):
                raise
    return ["ok"]


class CheckCancelled(Exception):
    """The background integrity check was stopped (the window switched stores or closed)."""


def integrity_problem(path: Path, cancelled: Callable[[], bool] | None = None) -> str | None:
    """The full ``quick_check`` of a store file (reads every page, read-only): the first problem
    it reports, or None when the file is sound. ``cancelled`` is polled while it runs; when it
    answers True the check stops and :class:`CheckCancelled` is raised."""
    if cancelled is not None and cancelled():
        raise CheckCancelled(str(path))
    connection = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=5)
    stop = [False]
    if cancelled is not None:
        def poll() -> int:
            stop[0] = cancelled()
            return 1 if stop[0] else 0

        # Every 50,000 virtual machine steps (~50 polls for a 140 MB file): each poll takes the GIL
        # from the GUI thread, so more often would slow the window; a cancel still lands in ms.
        connection.set_progress_handler(poll, 50_000)
    try:
        problems = [str(r[0]) for r in connection.execute("PRAGMA quick_check(3)")]
    except sqlite3.OperationalError as error:
        if stop[0]:
            raise CheckCancelled(str(path)) from error
        return str(error)
    except sqlite3.DatabaseError as error:
        return str(error)
    finally:
        connection.close()
    return None if problems == ["ok"] else problems[0]


def _read_schema(path: Path, full_check: bool = True, uri: str | None = None) -> tuple[int, int, set[str]]:
    # Read-only URI: opening cannot create, convert or journal anything.
    uri = uri or f"{path.absolute().as_uri()}?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=5)
    except sqlite3.Error as error:
        raise StoreCorruptError(f"{path} cannot be opened as a SQLite database ({error}); nothing was changed") from error
    try:
        application_id = int(connection.execute("PRAGMA application_id").fetchone()[0])
        user_version = int(connection.execute("PRAGMA user_version").fetchone()[0])
        tables = {str(r[0]) for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        # quick_check reads every page: truncation and damaged pages are found now, before
        # any write could make them worse, not halfway through an import. A big file gets
        # the first rows of each table and index now and the full check in the background.
        problems = ([str(r[0]) for r in connection.execute("PRAGMA quick_check(3)")] if full_check
                    else _first_rows(connection))
    except sqlite3.OperationalError as error:
        if "locked" in str(error) or "busy" in str(error):
            from core.store.engine import StoreLockedError

            raise StoreLockedError(f"{path} is locked by another process") from error
        raise StoreCorruptError(f"{path} cannot be read as a SQLite database ({error}); nothing was changed") from error
    except sqlite3.DatabaseError as error:
        raise StoreCorruptError(f"{path} is a damaged SQLite database ({error}); nothing was changed") from error
    finally:
        connection.close()
    if problems != ["ok"]:
        raise StoreCorruptError(
            f"{path} is a damaged SQLite database (integrity check: {problems[0]}); nothing was changed"
        )
    return application_id, user_version, tables


def _existing_ancestor(path: Path) -> Path:
    for parent in path.absolute().parents:
        if parent.exists():
            return parent
    return Path("/")


def _check_writable_folder(folder: Path) -> None:
    if folder.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise StoreReadOnlyError(f"{folder} is read-only: a store cannot be created there")


def _check_writable(path: Path) -> None:
    # WAL needs the -wal and -shm files next to the store, so the folder must be writable too.
    if not os.access(path, os.R_OK | os.W_OK):
        raise StoreReadOnlyError(f"{path} is read-only (file permissions or a read-only mount)")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise StoreReadOnlyError(f"{path.parent} is read-only, so the store {path.name} cannot be written")
