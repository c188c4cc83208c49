"""The store: one SQLite file, one engine, short sessions.

Every connection gets WAL journaling, ``foreign_keys=ON`` and a busy timeout (a connect
listener, so no connection can miss them). The schema is brought to the newest Alembic
revision once when the store opens (``core.store.schema``), in one write transaction.

Why sessions begin with ``BEGIN IMMEDIATE``: a deferred transaction that reads and then
writes cannot wait for another writer (SQLite answers ``SQLITE_BUSY`` at once, the busy
timeout never applies, because waiting could deadlock), so two processes writing at the
same time failed ~40 % of their actions. Taking the write lock up front makes a second
writer wait its turn instead. Pure reads use :meth:`Store.read_session`, which stays
deferred so it never waits for a writer (WAL readers see the last commit).

Before anything is written, the file is checked read-only (``core.store.store_file``):
only an empty file or a Workbench store (its ``application_id``) is opened.
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import platformdirs
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool
from sqlmodel import Session, create_engine

from core.store.migrations import StoreTooNewError, current_version
from core.store.postgres import StoreUrl, _without_password, is_postgres_url
from core.store.run_owner import close_dead_runs, current_owner
from core.store.schema import check_not_newer, upgrade
from core.store.store_file import (
    APPLICATION_ID,
    StoreCorruptError,
    StoreOpenError,
    StoreReadOnlyError,
    inspect_store_file,
)

__all__ = [
    "BUSY_TIMEOUT_MS", "Store", "StoreCorruptError", "StoreLockedError", "StoreOpenError", "StoreReadOnlyError",
    "StoreTooNewError", "StoreUrl", "check_store_version", "default_store_path", "is_disk_full", "open_store",
    "store_error_line", "store_location",
]

# Long enough for another process's longest unit of work (one imported file, one chunk of
# replay results) to finish; short enough that a stuck peer is reported, not waited on forever.
BUSY_TIMEOUT_MS = 30_000
APP_NAME = "cauterule-workbench"
_READ_ONLY = "workbench_read_only"


class StoreLockedError(StoreOpenError):
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
    _register_functions(dbapi_connection)


def _register_functions(connection: sqlite3.Connection) -> None:
    # Called by the replay_run trigger (schema step 6) to record which process owns a run.
    connection.create_function("workbench_run_owner", 0, current_owner)


def _begin(connection: Any) -> None:
    read_only = connection.get_execution_options().get(_READ_ONLY, False)
    connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


@contextmanager
def _unit_of_work(engine: Engine) -> Iterator[Session]:
    """A session that commits on success and rolls back on any error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except Exception:
            session.rollback()
            raise


class NestedWriteSessionError(RuntimeError):
    """A programming error: a write session inside another on the same thread (a self-deadlock)."""


class Store:
    """An open store. Thread-safe: each session takes its own connection."""

    def __init__(self, path: Path | StoreUrl, engine: Engine, keeper: sqlite3.Connection | None = None) -> None:
        # A file path (SQLite) or a StoreUrl (PostgreSQL): both answer str(), resolve(), name.
        self.path = path
        self.engine = engine
        self._keeper = keeper  # see _wal_keeper
        self._read_engine = engine.execution_options(**{_READ_ONLY: True})
        self._writing = threading.local()
        # Opened for reading only (core.store.read_only): a write is refused by SQLite.
        self.read_only = False

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A short unit of work that may write: commits on success, rolls back on error.

        It holds the write lock from its first statement (``BEGIN IMMEDIATE``), so keep it short.
        A write session opened while this thread already holds one would wait for itself (a
        second connection cannot take the lock its own thread holds) and fail after the busy
        timeout; it is refused at once instead, naming the mistake. Reads inside a write use
        :meth:`read_session` or the outer session.
        """
        if getattr(self._writing, "active", False):
            raise NestedWriteSessionError(
                "a write session was opened inside another on the same thread; it would wait for its own lock")
        self._writing.active = True
        try:
            with _unit_of_work(self.engine) as session:
                yield session
        finally:
            self._writing.active = False

    write_session = session

    @property
    def keeps_wal_open(self) -> bool:
        """True when an idle connection keeps the WAL open (see ``_wal_keeper``), so a unit
        of work closing its connection never checkpoints."""
        return self._keeper is not None

    @contextmanager
    def read_session(self) -> Iterator[Session]:
        """A unit of work that only reads: never waits for writers, sees the last commit."""
        with _unit_of_work(self._read_engine) as session:
            yield session

    @property
    def is_postgres(self) -> bool:
        return self.engine.dialect.name == "postgresql"

    def login(self) -> str | None:
        """On a team store, the server login (the reviewer's name there: roles and row-level
        security compare rows with it); None for a SQLite file, whose reviewer names are free."""
        if not self.is_postgres:
            return None
        from sqlalchemy import text

        with self.read_session() as session:
            return str(session.execute(text("SELECT session_user")).scalar_one())

    def close(self) -> None:
        self.engine.dispose()
        if self._keeper is not None:
            self._keeper.close()  # the last connection: SQLite checkpoints the WAL now
            self._keeper = None


_URL_SCHEME = re.compile(r"^\s*[A-Za-z][A-Za-z0-9+.\-]*://")


def _shown(value: str) -> str:
    """The location as it may be shown: never its password (or, unparsable, only its scheme)."""
    try:
        return _without_password(value.strip())
    except ValueError:
        return value.strip().split("://", 1)[0] + "://…"


def store_location(value: str) -> Path | StoreUrl:
    """A store named on a command line or in settings: a ``postgresql://`` URL or a file path.

    Any other URL (``mysql://user:pw@/x`` used to become a folder of that name) and a malformed
    PostgreSQL URL are refused in one line that never holds the password (argparse prints the
    message of an ``ArgumentTypeError`` as is, and nothing is created).
    """
    if is_postgres_url(value):
        try:
            parts = urlsplit(value.strip())
            _ = parts.port  # a port that is not a number raises here
        except ValueError as error:
            raise argparse.ArgumentTypeError(f"{_shown(value)}: not a valid postgresql:// URL ({error})") from None
        return StoreUrl(value)
    if _URL_SCHEME.match(value):
        raise argparse.ArgumentTypeError(
            f"{_shown(value)}: not a store; give a store file or a postgresql://user@host/database URL")
    if not value.strip():
        raise argparse.ArgumentTypeError("the store is empty; give a store file or a postgresql:// URL")
    if value.endswith(("/", os.sep)):
        # Path() drops the separator, so "team/" would become a store *file* named "team":
        # the user named a folder, and a folder is not a store.
        raise argparse.ArgumentTypeError(
            f"{value}: names a folder, not a store file; give a file such as {value}workbench.sqlite")
    return Path(value)


def check_store_version(path: Path) -> int:
    """Read the schema version without changing anything (0 for a new or empty file)."""
    if not path.exists() or path.is_dir() or path.stat().st_size == 0:
        return 0
    connection = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return current_version(connection)
    finally:
        connection.close()


def open_store(path: Path | str | None = None) -> Store:
    """Open (creating if needed) the store at ``path`` and bring its schema up to date.

    ``path`` is a file (SQLite) or a ``postgresql://`` URL (a database on a server, see
    ``core.store.postgres``). Raises :class:`StoreOpenError` (one-line message; the file is
    left unchanged) or :class:`StoreTooNewError`.
    """
    if is_postgres_url(path):
        from core.store.postgres_open import open_postgres_store

        return open_postgres_store(getattr(path, "connect_url", str(path)))
    store_path = Path(path) if path is not None else default_store_path()
    store_path = store_path.expanduser()
    with _no_scratch_left_on_refusal(store_path):
        application_id, version = inspect_store_file(store_path)
        check_not_newer(store_path, version)
    try:
        store_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreReadOnlyError(f"{store_path.parent} cannot be created: {error.strerror or error}") from error
    # NullPool: a connection per session, so no connection is shared across threads.
    engine = create_engine(f"sqlite:///{store_path}", poolclass=NullPool)
    event.listen(engine, "connect", _configure_connection)
    event.listen(engine, "begin", _begin)
    try:
        upgrade(engine)
        raw = sqlite3.connect(store_path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            _register_functions(raw)
            if application_id != APPLICATION_ID:
                # A new file, or a store from before the mark: mark it as ours.
                raw.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            close_dead_runs(raw)
        finally:
            raw.close()
    except DBAPIError as error:
        engine.dispose()
        if isinstance(error.orig, sqlite3.Error):
            raise _open_error(store_path, error.orig) from error
        raise
    except sqlite3.Error as error:
        engine.dispose()
        raise _open_error(store_path, error) from error
    return Store(store_path, engine, _wal_keeper(store_path))


@contextmanager
def _no_scratch_left_on_refusal(store_path: Path) -> Iterator[None]:
    """A refused store keeps its folder as it was: no ``-wal``/``-shm`` left beside it.

    Reading a WAL database, even read-only (``mode=ro``), makes SQLite create its ``-shm``
    and ``-wal`` files when they are missing; a store refused as too new, foreign or damaged
    was left with both. Only files this probe created are removed, and the ``-wal`` only when
    empty (it then holds nothing; a non-empty one is someone's data and stays)."""
    scratch = [Path(f"{store_path}-wal"), Path(f"{store_path}-shm")]
    existed = [os.path.lexists(file) for file in scratch]
    try:
        yield
    except (StoreOpenError, StoreTooNewError):
        wal, shm = scratch
        try:
            if not existed[0] and wal.exists() and wal.stat().st_size == 0:
                wal.unlink()
            if not existed[1] and shm.exists() and not wal.exists():
                shm.unlink()
        except OSError:
            pass  # a read-only folder: nothing could have been created there either
        raise


def _wal_keeper(store_path: Path) -> sqlite3.Connection | None:
    """An idle connection held while the store is open.

    Sessions take a connection each (NullPool) and the last connection to close a WAL
    database checkpoints it (copies the WAL into the file and syncs both): without this one,
    every unit of work that found no other connection open paid that sync, which was a third
    of a small replay's wall time. With it the WAL is checkpointed by SQLite's automatic
    checkpoint (every 1,000 pages) and when the store closes. It reads once, so it is
    attached to the WAL, and never holds a transaction, so it blocks no checkpoint.
    """
    try:
        keeper = sqlite3.connect(store_path, isolation_level=None, check_same_thread=False,
                                 timeout=BUSY_TIMEOUT_MS / 1000)
        keeper.execute("SELECT count(*) FROM sqlite_master").fetchall()
    except sqlite3.Error:
        return None  # only a speed-up: the store works without it
    return keeper


DISK_FULL = "the disk is full"


def is_disk_full(error: BaseException) -> bool:
    """SQLite's SQLITE_FULL, PostgreSQL's disk_full (53100) or ENOSPC, wrapped or not."""
    inner = getattr(error, "orig", None) or error
    if isinstance(inner, sqlite3.Error) and getattr(inner, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
        return True
    if getattr(inner, "sqlstate", None) == "53100" or getattr(inner, "pgcode", None) == "53100":
        return True
    return isinstance(inner, OSError) and inner.errno == errno.ENOSPC or "database or disk is full" in str(inner)


def store_error_line(store: Path | StoreUrl, error: BaseException) -> str:
    """One line for a database error met while a command used the store (no traceback)."""
    if is_disk_full(error):
        return (f"{DISK_FULL} (writing to the store {store}): the step that failed was rolled back and "
                "everything committed before it is kept; free some space and run the command again")
    inner = getattr(error, "orig", None) or error
    if isinstance(inner, sqlite3.Error) and (getattr(inner, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_READONLY:
        return (f"the store {store} is read-only (a read-only file, folder or mount) and was opened for reading: "
                "this command writes to it, so it was refused; nothing was changed")
    return f"the store {store} could not be used: {str(error).splitlines()[0] if str(error) else type(error).__name__}"


def _open_error(store_path: Path, error: sqlite3.Error) -> StoreOpenError:
    """One line a user can act on, for a SQLite error met while opening or upgrading."""
    message = str(error)
    if is_disk_full(error):
        return StoreOpenError(f"{store_path} cannot be opened: {DISK_FULL} (its schema could not be brought "
                              "up to date); nothing was changed — free some space and try again")
    if isinstance(error, sqlite3.OperationalError):
        if "locked" in message or "busy" in message:
            return StoreLockedError(f"{store_path} is locked by another process")
        if "readonly" in message or "read-only" in message:
            return StoreReadOnlyError(f"{store_path} is read-only ({message})")
        return StoreOpenError(f"{store_path} cannot be opened: {message}")
    if isinstance(error, sqlite3.DatabaseError):
        return StoreCorruptError(f"{store_path} is a damaged SQLite database ({error})")
    return StoreOpenError(f"{store_path} cannot be opened: {message}")
