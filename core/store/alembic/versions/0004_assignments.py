"""Team agreement online: a blind session's items assigned to reviewers.

Revision ID: 0004_assignments
Revises: 0003_team

``agreement_assignment`` says which reviewer judges which item of a session (by ordinal), who
assigned it and when (``core.agreement.assignments``). ``agreement_session.assigned_per_item``
records k, the reviewers per item, when a lead assigned the session: such a session offers a
reviewer only their own items, and a reviewer who was given none is offered nothing. The same
DDL on SQLite and PostgreSQL.

On PostgreSQL the new table is announced like the others (``workbench_changes``, kind
"agreement"), and if the team roles are already set up (``core.team.roles``) it gets their
rules at once: only a lead writes assignments, a reviewer reads only their own.
``install_team_roles`` applies the same rules, so a store whose roles come later gets them too.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_assignments"
down_revision = "0003_team"
branch_labels = None
depends_on = None

# Frozen copy of what core.team.roles installs for this table (a revision never imports code that changes).
_LEAD = "pg_has_role(session_user, 'lead', 'MEMBER')"
_ROLE_STATEMENTS = (
    "GRANT SELECT ON agreement_assignment TO reviewer",
    "REVOKE INSERT, UPDATE, DELETE ON agreement_assignment FROM reviewer",
    "GRANT INSERT, UPDATE, DELETE ON agreement_assignment TO lead",
    "GRANT USAGE, SELECT ON SEQUENCE agreement_assignment_id_seq TO lead",
    "ALTER TABLE agreement_assignment ENABLE ROW LEVEL SECURITY",
    f"CREATE POLICY team_read ON agreement_assignment FOR SELECT USING (reviewer = session_user OR {_LEAD})",
    f"CREATE POLICY team_write ON agreement_assignment FOR ALL USING ({_LEAD}) WITH CHECK ({_LEAD})",
)


def upgrade() -> None:
    op.create_table(
        "agreement_assignment",
        sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
        sa.Column("session_id", sa.Integer(), sa.ForeignKey("agreement_session.id"), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("reviewer", sa.String(), nullable=False),
        sa.Column("assigned_by", sa.String(), nullable=False),
        sa.Column("assigned_at", sa.String(), nullable=False),
    )
    op.create_index("ix_assignment_unique", "agreement_assignment", ["session_id", "ordinal", "reviewer"], unique=True)
    op.create_index("ix_assignment_reviewer", "agreement_assignment", ["session_id", "reviewer"])
    with op.batch_alter_table("agreement_session") as batch:
        batch.add_column(sa.Column("assigned_per_item", sa.Integer(), nullable=True))
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    op.execute("CREATE TRIGGER agreement_assignment_notify AFTER INSERT OR UPDATE OR DELETE ON agreement_assignment "
               "FOR EACH STATEMENT EXECUTE FUNCTION workbench_notify_change()")
    roles = bind.execute(sa.text("SELECT count(*) FROM pg_roles WHERE rolname IN ('reviewer', 'lead')")).scalar_one()
    if roles == 2:
        for statement in _ROLE_STATEMENTS:
            op.execute(statement)


def downgrade() -> None:
    with op.batch_alter_table("agreement_session") as batch:
        batch.drop_column("assigned_per_item")
    op.drop_index("ix_assignment_reviewer", "agreement_assignment")
    op.drop_index("ix_assignment_unique", "agreement_assignment")
    op.drop_table("agreement_assignment")  # its trigger and policies go with it
