"""Team stores: a row version on each rule (optimistic concurrency between reviewers).

Revision ID: 0003_team
Revises: 0001_baseline

``rule.row_version`` counts the changes to a rule's state: each decision on it (approve,
reject, defer, undo) and each new version of its text. A screen remembers the version it
showed; a write that names it succeeds only if nobody changed the rule since
(``core.store.row_versions``), otherwise the second writer is told who did what. Existing
rules start at 0. The same DDL on SQLite and PostgreSQL.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_team"
down_revision = "0001_baseline"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rule") as batch:
        batch.add_column(sa.Column("row_version", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("rule") as batch:
        batch.drop_column("row_version")
