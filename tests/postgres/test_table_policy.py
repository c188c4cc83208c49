"""Deny by default: every table of the schema declares who may write it, and the server follows."""

from __future__ import annotations

import psycopg
from red_team import TeamStore, team_store  # noqa: F401  (fixture)
from sqlmodel import SQLModel

from core.team.table_policy import NOBODY, POLICIES


def test_every_table_in_the_schema_has_a_declared_policy() -> None:
    """A table added later without a line in core.team.table_policy.POLICIES fails here."""
    import core.store.schema  # noqa: F401  (every table class registered)

    assert set(SQLModel.metadata.tables) | {"alembic_version"} == set(POLICIES)


def test_every_table_on_the_server_has_row_level_security_and_no_undeclared_write(team_store: TeamStore) -> None:
    with psycopg.connect(team_store.url) as owner:
        tables = {r[0]: r[1] for r in owner.execute(
            "SELECT c.relname, c.relrowsecurity FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind = 'r'")}
        granted = {(r[0], r[1]) for r in owner.execute(
            "SELECT table_name, privilege_type FROM information_schema.role_table_grants "
            "WHERE grantee IN ('reviewer', 'lead') AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE')")}
    assert set(tables) == set(POLICIES)
    assert all(tables.values()), [t for t, on in tables.items() if not on]
    declared = {(t, command) for t, p in POLICIES.items() for command, who in p.writers().items() if who != NOBODY}
    assert granted <= declared
