"""Opening a store on a PostgreSQL server: connect, refuse what is not ours, upgrade, close dead runs."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from core.store.engine import Store
from core.store.migrations import StoreTooNewError
from core.store.postgres import StoreUrl, close_dead_runs, create_postgres_engine, open_error, table_names
from core.store.schema import head_revision, script_directory, upgrade
from core.store.store_file import WORKBENCH_TABLES, NotAStoreError


def check_postgres_database(url: str, tables: set[str], revisions: set[str]) -> None:
    """Refuse, before any write, another application's database or one from a newer Workbench."""
    if tables and "alembic_version" not in tables:
        ours = WORKBENCH_TABLES <= tables
        raise NotAStoreError(f"{StoreUrl(url)} holds {'a damaged' if ours else 'another application’s'} "
                             f"database ({len(tables)} tables, no alembic_version); nothing was changed")
    known = {script.revision for script in script_directory().walk_revisions()}
    unknown = sorted(revisions - known)
    if unknown:
        raise StoreTooNewError(f"{StoreUrl(url)} has schema revision {', '.join(unknown)}, newer than this "
                               f"Workbench (head {head_revision()}); nothing was changed")


def open_postgres_store(url: str) -> Store:
    """Open the store in the database ``url`` names, creating its schema in an empty database."""
    engine = create_postgres_engine(url)
    try:
        with engine.connect() as connection:
            tables = table_names(connection)
            revisions = ({str(row[0]) for row in connection.execute(text("SELECT version_num FROM alembic_version"))}
                         if "alembic_version" in tables else set())
            connection.rollback()
        check_postgres_database(url, tables, revisions)
        upgrade(engine)
        with engine.begin() as connection:
            close_dead_runs(connection)
    except DBAPIError as error:
        engine.dispose()
        raise open_error(url, error) from error
    except BaseException:
        engine.dispose()
        raise
    return Store(StoreUrl(url), engine)  # shown without a password; connect_url keeps it
