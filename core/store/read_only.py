"""Opening a store that cannot be written, for the commands that only read it.

A store on a read-only mount, or a read-only file, was refused even by ``store check`` and
``report``: opening a store brings its schema up to date, marks it and closes dead runs, all
writes. Commands that only read (``corpora``, ``report``, ``store check``, ...) fall back to
:func:`open_store_for_reading` when the normal open says the store is read-only: the file is
opened through a read-only URI (``mode=ro``, or ``immutable=1`` in a read-only folder, where
SQLite could not keep its ``-shm``), every transaction is a plain ``BEGIN`` and
``query_only`` is on, so a write is refused by SQLite and reported in one line
(``store_error_line``). A store whose schema is not the newest is refused: bringing it up to
date would be a write.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.pool import NullPool
from sqlmodel import create_engine

from core.store.engine import BUSY_TIMEOUT_MS, Store, _begin, _register_functions, open_store
from core.store.migrations import LEGACY_VERSION, StoreTooNewError
from core.store.postgres import StoreUrl
from core.store.schema import head_revision, script_directory, stored_revisions
from core.store.store_file import StoreReadOnlyError, inspect_store_file, read_only_uri

READ_ONLY_OPTION = {"workbench_read_only": True}  # engine._begin then issues a plain BEGIN


def open_for_command(location: Path | StoreUrl | str | None, reads_only: bool) -> Store:
    """``open_store``; for a command that only reads, a read-only store is opened for reading."""
    try:
        return open_store(location)
    except StoreReadOnlyError:
        if not reads_only or location is None or isinstance(location, StoreUrl) or "://" in str(location):
            raise
        return open_store_for_reading(Path(str(location)))


def open_store_for_reading(path: Path) -> Store:
    path = path.expanduser()
    _application_id, version = inspect_store_file(path, for_reading=True)
    uri = read_only_uri(path)
    connection = sqlite3.connect(uri, uri=True)
    try:
        revisions = stored_revisions(connection)
    finally:
        connection.close()
    _refuse_unless_current(path, version, revisions)

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)

    engine = create_engine("sqlite://", creator=connect, poolclass=NullPool)
    event.listen(engine, "connect", _configure_read_only)
    event.listen(engine, "begin", _begin)
    store = Store(path, engine.execution_options(**READ_ONLY_OPTION))
    store.read_only = True
    return store


def _refuse_unless_current(path: Path, version: int, revisions: set[str]) -> None:
    """Too new: refused as by ``schema.check_not_newer``; older: refused, its upgrade is a write."""
    known = {script.revision for script in script_directory().walk_revisions()}
    if version > LEGACY_VERSION and not revisions or revisions - known:
        found = ", ".join(sorted(revisions - known)) or f"version {version}"
        raise StoreTooNewError(f"{path} has schema {found}, newer than this Workbench (head {head_revision()}); "
                               "nothing was changed")
    if revisions != {head_revision()}:
        raise StoreReadOnlyError(
            f"{path} is read-only and its schema is older than this Workbench's; bringing it up to date is a "
            "write: open it once where it can be written")


def _configure_read_only(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA query_only = ON")
    cursor.close()
    _register_functions(dbapi_connection)
