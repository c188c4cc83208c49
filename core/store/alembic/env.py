"""Alembic environment for the store, configured in code (``core.store.schema``), no alembic.ini.

At run time the Workbench passes its own open connection (``config.attributes["connection"]``)
already inside one ``BEGIN IMMEDIATE`` transaction, so a whole upgrade is one transaction:
a failed revision leaves the store as it was. A developer making a new revision runs
``python -m core.store.schema revision -m "..." --autogenerate --store PATH`` instead,
which passes the same kind of connection.
"""

from __future__ import annotations

from alembic import context

from core.store.schema import configure_context


def _run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("core/store/alembic runs only through core.store.schema (it passes the connection)")
    configure_context(context, connection)
    with context.begin_transaction():
        context.run_migrations()


# Alembic installs ``context.config`` only while it runs this file; a plain import (a check
# that every core module imports) has nothing to run.
if hasattr(context, "config"):
    _run()
