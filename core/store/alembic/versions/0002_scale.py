"""Duplicate rules grouped in SQL (``rule_version.dup_key``); the trajectory table's search index.

Revision ID: 0002_scale
Revises: 0001_baseline

The rules table shows rules with the same trigger and directive as one row that expands
(issue 12). The grouping happens inside the table's SQL paging, so each version stores its
duplicate key (``core.store.duplicate_key``: case-folded, whitespace-collapsed, hashed);
SQL's ``lower`` cannot case-fold Unicode the way Python does. Existing versions are filled
in here.

``ix_trajectory_search`` covers the columns the trajectory table's text filter tests (and
its corpus / outcome / domain filters), so at 10^5 trajectories the filter scans a narrow
index instead of every record (issue 13).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.store.duplicate_key import duplicate_key_hash

revision = "0002_scale"
down_revision = "0001_baseline"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rule_version") as batch:
        batch.add_column(sa.Column("dup_key", sa.String(), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, trigger, directive FROM rule_version")).all()
    if rows:
        bind.execute(
            sa.text("UPDATE rule_version SET dup_key = :k WHERE id = :i"),
            [{"k": duplicate_key_hash(str(r[1]), str(r[2])), "i": int(r[0])} for r in rows],
        )
    op.create_index("ix_trajectory_search", "trajectory",
                    ["success", "corpus_id", "domain", "failure_class", "trajectory_id", "task", "expected_rule"])


def downgrade() -> None:
    op.drop_index("ix_trajectory_search", table_name="trajectory")
    with op.batch_alter_table("rule_version") as batch:
        batch.drop_column("dup_key")
