"""The store on a PostgreSQL server: URLs, the engine, its transactions, opening errors.

A store is named by a file path (SQLite, the default) or a ``postgresql://`` URL (psycopg 3),
e.g. ``postgresql://alice@/team?host=/run/postgresql`` (Unix socket) or
``postgresql://alice@db.example/team``. Passwords belong in ``~/.pgpass`` (or
``PGPASSWORD``); a URL's password is never shown or remembered (:class:`StoreUrl`).

Transactions, per kind of work (see docs/team.md):

* a **write** session (``Store.session()``) runs at READ COMMITTED and first takes the
  store's write lock (``pg_advisory_xact_lock``, released at commit or rollback), so writers
  run one at a time exactly as on SQLite (``BEGIN IMMEDIATE``): every read-then-write
  check a service makes inside its transaction (a rule's state before a decision, the next
  standing id, a judgement already given) holds until it commits. One lock, always taken
  first, cannot deadlock. Units of work are short (one decision, one imported file, one
  chunk of replay results), so waiting is brief.
* a **read** session (``Store.read_session()``) runs at REPEATABLE READ, READ ONLY: one
  snapshot for the whole unit of work (what a SQLite WAL reader sees), never waits for a writer.
* conflicts between reviewers across the time a person thinks (read, look, decide) are
  caught by row versions (``core.team.versions``), not by holding transactions open.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from sqlalchemy import event, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlmodel import create_engine

from core.store.run_owner import current_owner, owner_is_dead
from core.store.store_file import StoreOpenError
from core.timeutil import utc_now

SCHEMES = ("postgresql://", "postgres://", "postgresql+psycopg://")
# Arbitrary 64-bit key of the store-wide write lock ("CRWB" + "WRIT").
WRITE_LOCK_KEY = 0x4352574257524954 - (1 << 63)
_READ_ONLY = "workbench_read_only"


class StoreUrl(str):
    """A PostgreSQL store's URL, usable where a store path is (shown without its password).

    The window and the CLI treat a store's location like a path (``resolve``, ``expanduser``,
    ``exists``); a URL answers those as itself, so one location type serves both back ends.
    """

    connect_url: str  # the URL as given, password included: for connecting only, never shown

    def __new__(cls, value: str) -> StoreUrl:
        url = super().__new__(cls, _without_password(value.strip()))
        url.connect_url = getattr(value, "connect_url", value.strip())
        return url

    def resolve(self) -> StoreUrl:
        return self

    def expanduser(self) -> StoreUrl:
        return self

    def absolute(self) -> StoreUrl:
        return self

    def exists(self) -> bool:
        return True

    @property
    def name(self) -> str:
        return urlsplit(str(self)).path.lstrip("/") or "postgres"


def is_postgres_url(location: object) -> bool:
    return isinstance(location, str) and location.strip().lower().startswith(SCHEMES)


def _without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[-1]
    user = parts.username or ""
    return urlunsplit((parts.scheme, f"{user}@{host}" if user else host, parts.path, parts.query, parts.fragment))


def sqlalchemy_url(url: str) -> str:
    """The SQLAlchemy URL for ``url`` with the psycopg 3 driver."""
    scheme, _, rest = url.strip().partition("://")
    return f"postgresql+psycopg://{rest}" if scheme in ("postgresql", "postgres", "postgresql+psycopg") else url


def _configure_connection(dbapi_connection: Any, _record: Any) -> None:
    # The replay_run trigger records this process as a new run's owner (as on SQLite).
    owner = current_owner()
    with dbapi_connection.cursor() as cursor:
        cursor.execute("SELECT set_config('workbench.run_owner', %s, false), "
                       "set_config('application_name', 'cauterule-workbench', false)", (owner,))
    dbapi_connection.commit()


def _begin(connection: Connection) -> None:
    if connection.get_execution_options().get(_READ_ONLY, False):
        connection.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
    else:
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY})")


def create_postgres_engine(url: str) -> Engine:
    """An engine whose write transactions take the store's write lock first (see the module docstring)."""
    engine = create_engine(sqlalchemy_url(url), pool_pre_ping=True, pool_size=4, max_overflow=8)
    event.listen(engine, "connect", _configure_connection)
    event.listen(engine, "begin", _begin)
    return engine


def open_error(url: str, error: BaseException) -> StoreOpenError:
    """One line a user can act on, for a server that cannot be reached or refuses the login."""
    original = getattr(error, "orig", error)
    first = (str(original).strip().splitlines() or [type(original).__name__])[0]
    return StoreOpenError(f"{StoreUrl(url)} cannot be opened: {first}")


def driver_sql(connection: Connection, sql: str) -> str:
    """Driver-level SQL written with sqlite3's ``?`` placeholders, in the connection driver's style.

    The hot inserts run below SQLAlchemy (``exec_driver_sql`` executemany) for speed; psycopg
    takes ``%s`` where sqlite3 takes ``?``. Only for SQL without a literal ``%`` or ``?``.
    """
    return sql if connection.dialect.paramstyle == "qmark" else sql.replace("?", "%s")


def json_values_sql(session: Any, param: str, integer: bool = False) -> str:
    """A subquery of the values in the JSON array bound to ``:param`` (one parameter for many values).

    SQLite: ``json_each``; PostgreSQL: ``json_array_elements_text`` (cast to integer for ids).
    ``session`` is the Session or Connection the query runs on, or its dialect's name.
    """
    dialect = session if isinstance(session, str) else session.get_bind().dialect.name
    if dialect != "postgresql":
        return f"SELECT value FROM json_each(:{param})"
    value = "CAST(value AS INTEGER)" if integer else "value"
    return f"SELECT {value} FROM json_array_elements_text(CAST(:{param} AS JSON)) AS value"


def table_names(connection: Connection) -> set[str]:
    rows = connection.execute(text(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"))
    return {str(row[0]) for row in rows}


def close_dead_runs(connection: Connection) -> list[int]:
    """Mark ``running`` runs whose owner died (on this host) as ``failed``; return their ids."""
    rows = connection.execute(text(
        "SELECT r.id, o.owner FROM replay_run r JOIN replay_run_owner o ON o.run_id = r.id "
        "WHERE r.status = 'running'")).all()
    dead = [int(run_id) for run_id, owner in rows if owner_is_dead(str(owner))]
    for run_id in dead:
        connection.execute(text("UPDATE replay_run SET status = 'failed', finished_at = :at "
                                "WHERE id = :id AND status = 'running'"), {"at": utc_now(), "id": run_id})
    return dead


def server_login(url: str) -> str:
    """The login a URL names (the server's default, the OS user, when it names none)."""
    user = make_url(sqlalchemy_url(url)).username
    if user:
        return str(user)
    import getpass

    return getpass.getuser()


__all__ = [
    "StoreUrl", "close_dead_runs", "create_postgres_engine", "driver_sql",
    "is_postgres_url", "json_values_sql",
    "open_error", "server_login", "sqlalchemy_url", "table_names",
]
