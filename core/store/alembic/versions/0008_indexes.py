"""Indexes for the tables at scale; PostgreSQL's trajectory indexes fit any text.

Revision ID: 0008_indexes
Revises: 0006_enforce

On PostgreSQL a b-tree entry may not exceed about 2.7 KB (a third of a page), so
``ix_trajectory_search`` (it holds ``task`` and ``expected_rule``) and
``ix_trajectory_expected_rule`` refused any trajectory whose task or expected rule is a long
free text: the import failed with "index row requires ... bytes". Both are SQLite-only now
(``TrajectoryRow``: ``Index(...).ddl_if(dialect="sqlite")``), where an index entry has no such
limit and the covering index is what keeps the trajectory table's text filter off the wide
records. PostgreSQL filters those rows from the table itself (its records are stored out of
line, so its rows are narrow).
"""

from __future__ import annotations

from alembic import op

revision = "0008_indexes"
down_revision = "0006_enforce"
branch_labels = None
depends_on = None

_POSTGRES_ONLY_DROPPED = (
    ("ix_trajectory_search", ["success", "corpus_id", "domain", "failure_class", "trajectory_id", "task",
                              "expected_rule"]),
    ("ix_trajectory_expected_rule", ["expected_rule", "id"]),
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name, _columns in _POSTGRES_ONLY_DROPPED:
            op.drop_index(name, table_name="trajectory")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name, columns in _POSTGRES_ONLY_DROPPED:
            op.create_index(name, "trajectory", columns)
