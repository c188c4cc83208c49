"""Which tables a login sees only part of (row-level security), for ``store copy`` and ``store check``.

A copy or a check made under a reviewer's login would otherwise look complete while it holds
only the rows that login may read (another reviewer's blind judgements, others' assignments).
The server counts each table's rows past the policies (``workbench_row_count``, SECURITY
DEFINER, installed with the team roles by ``core.team.roles``; it gives counts, never rows) and
this compares them with what the login reads in the same snapshot.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Connection

from core.team.store_copy import store_tables


def partial_tables(connection: Connection) -> list[str]:
    """``table (seen N of M rows)`` for every table the current login cannot read in full; [] on SQLite."""
    if connection.dialect.name != "postgresql":
        return []
    counted = connection.execute(text(
        "SELECT has_function_privilege(p.oid, 'EXECUTE') FROM pg_proc p JOIN pg_namespace n "
        "ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.proname = 'workbench_row_count'")).scalar()
    if counted is None:  # no team roles: no policies, every login reads every row
        return []
    out: list[str] = []
    for table in store_tables():
        readable = bool(connection.execute(text("SELECT has_table_privilege(:t, 'SELECT')"), {"t": table.name}).scalar())
        if not readable or not counted:
            out.append(f"{table.name} (not readable by this login)")
            continue
        seen = int(connection.execute(text(f"SELECT count(*) FROM {table.name}")).scalar_one())
        total = int(connection.execute(text("SELECT public.workbench_row_count(:t)"), {"t": table.name}).scalar_one())
        if seen != total:
            out.append(f"{table.name} (seen {seen} of {total} rows)")
    return out
