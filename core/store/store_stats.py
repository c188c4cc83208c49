"""What a store holds on disk: rows and bytes per table, and what each replay run costs (``store stats``).

SQLite: bytes from the ``dbstat`` table (every page of each table and its indexes, so it reads
the whole file: seconds per GB), plus the free pages a delete left for reuse; the file size
includes those. PostgreSQL: ``pg_total_relation_size`` (table, indexes and TOAST), as the
server counts it. A run's size is its outcome blocks (exact) and its result rows (estimated),
the same figures ``store prune`` reports (``core.store.prune.run_costs``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import text
from sqlmodel import Session

from core.store.engine import Store
from core.store.prune import RunCost, run_costs


@dataclass(frozen=True)
class TableSize:
    table: str
    rows: int
    bytes: int  # with its indexes (and TOAST on PostgreSQL)


@dataclass(frozen=True)
class StoreStats:
    tables: tuple[TableSize, ...]  # largest first
    runs: tuple[RunCost, ...]  # oldest first
    total_bytes: int  # the file (with its WAL) or the database
    free_bytes: int  # SQLite: pages free for reuse (VACUUM returns them); PostgreSQL: 0 (the server's)


def store_stats(store: Store) -> StoreStats:
    with store.read_session() as session:
        postgres = session.get_bind().dialect.name == "postgresql"
        tables = _table_names(session, postgres)
        sizes = _pg_sizes(session, tables) if postgres else _sqlite_sizes(session)
        rows = {t: int(session.execute(text(f'SELECT count(*) FROM "{t}"')).scalar_one()) for t in tables}
        runs = tuple(run_costs(session))
        if postgres:
            total = int(session.execute(text("SELECT pg_database_size(current_database())")).scalar_one())
            free = 0
        else:
            page = int(session.execute(text("PRAGMA page_size")).scalar_one())
            free = page * int(session.execute(text("PRAGMA freelist_count")).scalar_one())
            total = _file_bytes(store)
    out = sorted((TableSize(t, rows[t], sizes.get(t, 0)) for t in tables), key=lambda s: (-s.bytes, s.table))
    return StoreStats(tuple(out), runs, total, free)


def _table_names(session: Session, postgres: bool) -> list[str]:
    sql = ("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename" if postgres else
           "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    return [str(r[0]) for r in session.execute(text(sql)).all()]


def _pg_sizes(session: Session, tables: list[str]) -> dict[str, int]:
    return {t: int(session.execute(text("SELECT pg_total_relation_size(CAST(:t AS regclass))"),
                                   {"t": f'public."{t}"'}).scalar_one()) for t in tables}


def _sqlite_sizes(session: Session) -> dict[str, int]:
    """Bytes per table, its indexes included (each index's pages counted to its table)."""
    owner = {str(name): str(table) for name, table in session.execute(
        text("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')")).all()}
    sizes: dict[str, int] = {}
    for name, size in session.execute(text("SELECT name, sum(pgsize) FROM dbstat GROUP BY name")).all():
        table = owner.get(str(name), str(name))
        sizes[table] = sizes.get(table, 0) + int(size or 0)
    return sizes


def _file_bytes(store: Store) -> int:
    path = Path(str(store.path))
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def per_run_bytes(stats: StoreStats) -> float:
    """The mean size of a complete run with results (0 when there is none)."""
    sized = [r.bytes for r in stats.runs if r.status == "complete" and r.results]
    return sum(sized) / len(sized) if sized else 0.0
