"""The store: one SQLite file, one engine, short sessions.

Every connection gets WAL journaling, ``foreign_keys=ON`` and a busy timeout (a connect
listener, so no connection can miss them). Migrations run once when the store opens.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool
from sqlmodel import Session, create_engine

from core.store.migrations import LATEST_VERSION, StoreTooNewError, current_version, migrate

BUSY_TIMEOUT_MS = 5000
APP_NAME = "cauterule-workbench"


class StoreLockedError(RuntimeError):
    """Another process holds a write lock on the store for longer than the busy timeout."""


def default_store_path() -> Path:
    """The per-user default store, in the platform's user data directory."""
    return Path(platformdirs.user_data_dir(APP_NAME)) / "workbench.sqlite"


def _configure_connection(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    # Let SQLAlchemy own transactions explicitly (pysqlite's implicit BEGIN is disabled below).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.close()


def _begin(connection: Any) -> None:
    connection.exec_driver_sql("BEGIN")


class Store:
    """An open store. Thread-safe: each session takes its own connection."""

    def __init__(self, path: Path, engine: Engine) -> None:
        self.path = path
        self.engine = engine

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A short unit of work: commits on success, rolls back on error."""
        with Session(self.engine, expire_on_commit=False) as session:
            try:
                yield session
                session.commit()
            except Exception:
                session.rollback()
                raise

    def close(self) -> None:
        self.engine.dispose()


def check_store_version(path: Path) -> int:
    """Read the schema version without changing anything (0 for a new or empty file)."""
    if not path.exists():
        return 0
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return current_version(connection)
    finally:
        connection.close()


def open_store(path: Path | str | None = None) -> Store:
    """Open (creating if needed) the store at ``path`` and bring its schema up to date."""
    store_path = Path(path) if path is not None else default_store_path()
    store_path = store_path.expanduser()
    if check_store_version(store_path) > LATEST_VERSION:
        raise StoreTooNewError(
            f"{store_path} has schema version {check_store_version(store_path)}, newer than "
            f"this Workbench ({LATEST_VERSION}); nothing was changed"
        )
    store_path.parent.mkdir(parents=True, exist_ok=True)
    # NullPool: a connection per session, so no connection is shared across threads.
    engine = create_engine(f"sqlite:///{store_path}", poolclass=NullPool)
    event.listen(engine, "connect", _configure_connection)
    event.listen(engine, "begin", _begin)
    raw = sqlite3.connect(store_path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        raw.execute("PRAGMA journal_mode = WAL")
        raw.execute("PRAGMA foreign_keys = ON")
        try:
            migrate(raw)
        except sqlite3.OperationalError as error:
            if "locked" in str(error):
                raise StoreLockedError(f"{store_path} is locked by another process") from error
            raise
    finally:
        raw.close()
    return Store(store_path, engine)
