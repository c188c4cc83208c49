"""Baseline: the schema of legacy step 8 (tables, indexes, triggers, the replay_outcome view).

Revision ID: 0001_baseline
Revises: (none)

One revision serves every store older than Alembic. It runs the frozen legacy steps
(``core.store.migrations``) after the store's ``PRAGMA user_version``: all eight for a
new store, the missing ones for a store from the 0.1 release (user_version 5) or from
before Alembic (6-7), none for user_version 8; then records user_version 8. So a new
store and an upgraded one get the very same DDL, and nothing about old stores has to be
rewritten. Never edit this file or the legacy steps: later schema changes are new revisions.
"""

from __future__ import annotations

from alembic import op

from core.store.migrations import LEGACY_VERSION, legacy_statements

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    version = int(bind.exec_driver_sql("PRAGMA user_version").scalar_one())
    for statement in legacy_statements(after=version):
        bind.exec_driver_sql(statement)
    bind.exec_driver_sql(f"PRAGMA user_version = {LEGACY_VERSION}")


def downgrade() -> None:
    raise NotImplementedError("the baseline cannot be undone: there is no schema before it")
