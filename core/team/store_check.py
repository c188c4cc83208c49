"""``store check``: integrity checks on a store, SQLite or PostgreSQL.

Each check says what it looked at and what it found:

* ``engine``: SQLite's ``PRAGMA integrity_check``; on PostgreSQL, that the server answers and
  every table can be read end to end (a damaged page fails the read);
* ``schema``: the store's revision is the code's head and Alembic finds no difference
  between the store and the table classes;
* ``foreign keys``: no row points at a missing parent (SQLite enforces keys only on
  connections that ask; this looks at the rows themselves, on both back ends);
* ``runs``: no run is left ``running`` by a process that no longer exists;
* ``sequences`` (PostgreSQL): every id sequence is past the largest id, so no insert collides;
* ``visibility`` (PostgreSQL): the login reads every row of every table; under a login that
  row-level security shows only part of a table, each such table is named with the rows seen
  and the rows there are (``core.team.visibility``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.engine import Connection

from core.store.engine import Store
from core.store.run_owner import owner_is_dead
from core.store.schema import head_revision, schema_differences
from core.team.store_copy import store_digests, store_tables
from core.team.visibility import partial_tables


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str


def _engine_check(connection: Connection) -> CheckResult:
    if connection.dialect.name == "sqlite":
        rows = [str(r[0]) for r in connection.exec_driver_sql("PRAGMA integrity_check").all()]
        return CheckResult("engine", rows == ["ok"], "integrity_check: " + "; ".join(rows[:5]))
    version = connection.execute(text("SHOW server_version")).scalar_one()
    return CheckResult("engine", True, f"PostgreSQL {version} answers")


def _schema_check(connection: Connection) -> CheckResult:
    revisions = {str(r[0]) for r in connection.execute(text("SELECT version_num FROM alembic_version"))}
    differences = schema_differences(connection)
    ok = revisions == {head_revision()} and not differences
    detail = f"revision {', '.join(sorted(revisions)) or 'none'} (head {head_revision()}); " + (
        f"{len(differences)} differences from the table classes, first: {differences[0]}" if differences
        else "no difference from the table classes")
    return CheckResult("schema", ok, detail)


def _foreign_key_check(connection: Connection) -> CheckResult:
    broken: list[str] = []
    for table in store_tables():
        for fk in table.foreign_keys:
            column, target = fk.parent.name, fk.column
            count = int(connection.execute(text(
                f"SELECT count(*) FROM {table.name} c WHERE c.{column} IS NOT NULL AND NOT EXISTS "
                f"(SELECT 1 FROM {target.table.name} p WHERE p.{target.name} = c.{column})")).scalar_one())
            if count:
                broken.append(f"{table.name}.{column} -> {target.table.name}: {count} rows")
    return CheckResult("foreign keys", not broken, "; ".join(broken) or "every reference has its row")


def _run_check(connection: Connection) -> CheckResult:
    rows = connection.execute(text(
        "SELECT r.id, o.owner FROM replay_run r JOIN replay_run_owner o ON o.run_id = r.id "
        "WHERE r.status = 'running'")).all()
    dead = [int(run_id) for run_id, owner in rows if owner_is_dead(str(owner))]
    return CheckResult("runs", not dead, f"runs left running by a dead process: {dead}" if dead
                       else f"{len(rows)} running, none orphaned")


def _sequence_check(connection: Connection) -> CheckResult:
    behind: list[str] = []
    for table in store_tables():
        keys = list(table.primary_key.columns)
        if len(keys) != 1 or keys[0].name != "id":
            continue
        row = connection.execute(text(
            f"SELECT (SELECT max(id) FROM {table.name}), "
            f"(SELECT last_value FROM {table.name}_id_seq), (SELECT is_called FROM {table.name}_id_seq)")).one()
        largest, last, called = row
        next_value = (last + 1) if called else last
        if largest is not None and next_value <= largest:
            behind.append(f"{table.name} (next id {next_value}, largest {largest})")
    return CheckResult("sequences", not behind, "; ".join(behind) or "every id sequence is past its largest id")


def _visibility_check(connection: Connection) -> CheckResult:
    partial = partial_tables(connection)
    return CheckResult("visibility", not partial, "this login reads only part of: " + "; ".join(partial)
                       if partial else "this login reads every row of every table")


def check_store(store: Store) -> list[CheckResult]:
    """Run every check; reads only."""
    with store.read_session() as session:
        connection = session.connection()
        results = [_engine_check(connection), _schema_check(connection), _foreign_key_check(connection),
                   _run_check(connection)]
        if connection.dialect.name == "postgresql":
            results.append(_sequence_check(connection))
            results.append(_visibility_check(connection))
    try:
        digests = store_digests(store)
        results.append(CheckResult("rows", True, f"{sum(d.rows for d in digests)} rows in {len(digests)} tables read"))
    except Exception as error:  # a damaged page or a broken row shows up here
        results.append(CheckResult("rows", False, f"reading every row failed: {str(error).splitlines()[0]}"))
    return results
