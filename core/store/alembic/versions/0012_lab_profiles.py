"""Named, versioned replay profiles and the store's adopted one (issue 26, docs/lab.md "Adoption").

Revision ID: 0012_lab_profiles
Revises: 0011_team_guard

``replay_profile``: one row per version of a named profile (every ``ReplayProfile`` field as
JSON, the lab report and split it came from, whether it was tuned on all data, who made it
and when), unique by (name, version). ``profile_adoption``: append-only; its newest row names
the adopted profile. No row: ``workbench``, so a store behaves as before until a team adopts.
The same steps on SQLite and PostgreSQL; the team's grants and policies are
``core.team.table_policy`` (a lead's writes).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_lab_profiles"
down_revision = "0011_team_guard"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # SQLite keeps a bool as INTEGER 0/1 like the store's other flags (core.store.schema._compare_type).
    flag = sa.Integer() if op.get_bind().dialect.name == "sqlite" else sa.Boolean()
    op.create_table(
        "replay_profile",
        sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("profile_json", sa.String(), nullable=False),
        sa.Column("lab_report_json", sa.String(), nullable=True),
        sa.Column("lab_setting", sa.String(), nullable=True),
        sa.Column("split_json", sa.String(), nullable=True),
        sa.Column("tuned_on_all_data", flag, nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("note", sa.String(), nullable=True),
    )
    op.create_index("ix_replay_profile_name_version", "replay_profile", ["name", "version"], unique=True)
    op.create_table(
        "profile_adoption",
        sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
        sa.Column("profile", sa.String(), nullable=False),
        sa.Column("adopted_by", sa.String(), nullable=False),
        sa.Column("adopted_at", sa.String(), nullable=False),
        sa.Column("reason", sa.String(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("profile_adoption")
    op.drop_index("ix_replay_profile_name_version", table_name="replay_profile")
    op.drop_table("replay_profile")
