"""Copying a whole store between back ends (SQLite <-> PostgreSQL), verified by content hashes.

Every table of the schema (the SQLModel classes; views are derived, not copied) is read in
primary-key order through the table classes' column types, so a SQLite 0/1 flag becomes a
PostgreSQL boolean and back, and written to the destination in one write transaction. The
destination must be an empty store (new file, empty database): nothing is merged. Then each
table's row count and content hash (SHA-256 over its rows in key order, values in a
canonical JSON form) is computed on both sides; any difference fails the copy.

Two details keep the copy exact: the ``replay_run`` trigger records the *copying* process as
the owner of a copied ``running`` run, so the copied owner rows replace those; and on
PostgreSQL each ``SERIAL`` sequence is moved past the largest copied id, so the next row
gets a new id.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Table, delete, func, insert, select, text
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import core.store.tables  # noqa: F401  (registers every table class)
from core.store.engine import Store, open_store
from core.store.schema import VIEWS

BATCH = 2000


class StoreCopyError(RuntimeError):
    """The copy cannot start (destination not empty) or did not verify (one line each)."""


@dataclass(frozen=True)
class TableDigest:
    table: str
    rows: int
    sha256: str


def store_tables() -> list[Table]:
    """Every stored table in foreign-key order (parents first); views left out."""
    return [t for t in SQLModel.metadata.sorted_tables if t.name not in VIEWS]


def _order(table: Table) -> list[Any]:
    return list(table.primary_key.columns) or list(table.columns)


def _canonical(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"b64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, float):
        return {"f": value.hex()}  # exact, and 1.0 never equals True or 1
    return value


def _rows(connection: Connection, table: Table) -> Iterator[dict[str, Any]]:
    last: tuple[Any, ...] | None = None
    keys = _order(table)
    while True:
        query = select(table).order_by(*keys).limit(BATCH)
        if last is not None:
            from sqlalchemy import tuple_

            query = query.where(tuple_(*keys) > tuple_(*last))
        batch = [dict(row._mapping) for row in connection.execute(query)]
        if not batch:
            return
        yield from batch
        last = tuple(batch[-1][c.name] for c in keys)


def table_digest(connection: Connection, table: Table) -> TableDigest:
    digest = hashlib.sha256()
    count = 0
    names = [c.name for c in table.columns]
    for row in _rows(connection, table):
        digest.update(json.dumps([_canonical(row[n]) for n in names], ensure_ascii=False).encode("utf-8"))
        digest.update(b"\n")
        count += 1
    return TableDigest(table.name, count, digest.hexdigest())


def store_digests(store: Store) -> list[TableDigest]:
    """Row count and content hash of every table of ``store``."""
    with store.read_session() as session:
        connection = session.connection()
        return [table_digest(connection, table) for table in store_tables()]


def _row_total(connection: Connection) -> int:
    return sum(int(connection.execute(select(func.count()).select_from(t)).scalar_one()) for t in store_tables())


def _reset_sequences(connection: Connection) -> None:
    for table in store_tables():
        keys = list(table.primary_key.columns)
        if len(keys) == 1 and keys[0].name == "id" and keys[0].autoincrement in (True, "auto"):
            connection.execute(text(
                f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                f"coalesce((SELECT max(id) FROM {table.name}), 0) + 1, false)"))


def _refuse_a_partial_source(connection: Connection) -> None:
    """A login that reads only part of a table (row-level security) would copy a part and call it whole."""
    from core.team.visibility import partial_tables  # visibility reads this module's table list

    partial = partial_tables(connection)
    if partial:
        raise StoreCopyError(f"this login cannot read every row of the source, so nothing was copied: "
                             f"{'; '.join(partial)}; copy with the store owner's login or a lead's")


@dataclass(frozen=True)
class CopyReport:
    source: str
    destination: str
    tables: list[TableDigest]
    destination_tables: list[TableDigest]

    @property
    def verified(self) -> bool:
        return self.tables == self.destination_tables


def copy_store(source: Path | str, destination: Path | str,
               progress: Callable[[str, int], None] | None = None) -> CopyReport:
    """Copy every row of ``source`` into the empty store ``destination``; verify; return the digests."""
    src = open_store(source)
    try:
        dst = open_store(destination)
    except BaseException:
        src.close()
        raise
    try:
        with dst.read_session() as session:
            existing = _row_total(session.connection())
        if existing:
            raise StoreCopyError(f"{dst.path} is not empty ({existing} rows); copy into a new store")
        with src.read_session() as reading, dst.session() as writing:
            source_connection, target = reading.connection(), writing.connection()
            _refuse_a_partial_source(source_connection)
            for table in store_tables():
                if table.name == "replay_run_owner":
                    target.execute(delete(table))  # the trigger's rows for the copied runs
                copied = 0
                batch: list[dict[str, Any]] = []
                for row in _rows(source_connection, table):
                    batch.append(row)
                    if len(batch) >= BATCH:
                        target.execute(insert(table), batch)
                        copied += len(batch)
                        batch = []
                if batch:
                    target.execute(insert(table), batch)
                    copied += len(batch)
                if progress is not None:
                    progress(table.name, copied)
            if target.dialect.name == "postgresql":
                _reset_sequences(target)
        report = CopyReport(str(src.path), str(dst.path), store_digests(src), store_digests(dst))
    finally:
        src.close()
        dst.close()
    if not report.verified:
        differing = [a.table for a, b in zip(report.tables, report.destination_tables, strict=True) if a != b]
        raise StoreCopyError(f"the copy does not match the source in: {', '.join(differing)}")
    return report
