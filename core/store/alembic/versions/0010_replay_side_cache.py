"""The trajectory side of a run kept in the store.

Revision ID: 0010_replay_side_cache
Revises: 0009_outcome_blocks

``replay_side_cache`` holds a few encoded trajectory sides (``core.replay.side_codec``: views,
their index, recovered runs, domain-gate codes), keyed by a sha256 over the run's corpus hash,
view options, per-trajectory fields, format and engine version, so a new process's first
replay on the same trajectories reads the side instead of building it. A cache only: dropping
the table loses nothing. The same steps on SQLite and PostgreSQL.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_replay_side_cache"
down_revision = "0009_outcome_blocks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "replay_side_cache",
        sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
        sa.Column("cache_key", sa.String(length=64), nullable=False),
        sa.Column("format", sa.Integer(), nullable=False),
        sa.Column("engine_version", sa.String(), nullable=False),
        sa.Column("trajectories", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_index("ix_replay_side_cache_key", "replay_side_cache", ["cache_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_replay_side_cache_key", table_name="replay_side_cache")
    op.drop_table("replay_side_cache")
