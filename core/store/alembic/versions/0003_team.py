"""Team stores: a row version on each rule (optimistic concurrency between reviewers).

Revision ID: 0003_team
Revises: 0002_scale

``rule.row_version`` counts the changes to a rule's state: each decision on it (approve,
reject, defer, undo) and each new version of its text. A screen remembers the version it
showed; a write that names it succeeds only if nobody changed the rule since
(``core.store.row_versions``), otherwise the second writer is told who did what. Existing
rules start at 0. The same DDL on SQLite and PostgreSQL.

On PostgreSQL, committed changes are also announced: a statement trigger on each table a
window shows sends ``NOTIFY workbench_changes, '<table>'`` (delivered at commit, once per
table per transaction), which ``core.team.live.ChangeFeed`` turns into change callbacks. A
SQLite store has one user and needs none.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_team"
down_revision = "0002_scale"
branch_labels = None
depends_on = None


# The tables whose changes another reviewer's window shows (see core.team.live.KINDS).
NOTIFIED = (
    "decision", "promotion", "label", "adjudication", "agreement_session", "agreement_judgement", "agreement_mark",
    "replay_run", "rule", "rule_version", "corpus", "trajectory", "waiver", "evidence_view",
)


def upgrade() -> None:
    with op.batch_alter_table("rule") as batch:
        batch.add_column(sa.Column("row_version", sa.Integer(), nullable=False, server_default="0"))
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("""CREATE FUNCTION workbench_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('workbench_changes', TG_TABLE_NAME);
            RETURN NULL;
        END $$""")
    for table in NOTIFIED:
        op.execute(f"CREATE TRIGGER {table}_notify AFTER INSERT OR UPDATE OR DELETE ON {table} "
                   "FOR EACH STATEMENT EXECUTE FUNCTION workbench_notify_change()")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in NOTIFIED:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_notify ON {table}")
        op.execute("DROP FUNCTION IF EXISTS workbench_notify_change()")
    with op.batch_alter_table("rule") as batch:
        batch.drop_column("row_version")
