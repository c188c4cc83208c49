"""Team stores: the server enforces blind-item assignments.

Revision ID: 0006_enforce
Revises: 0004_assignments

Once a lead has assigned a blind session (``agreement_session.assigned_per_item`` set), a
login may insert a judgement of one of its items only if that item is assigned to them
(``agreement_assignment``): ``workbench_may_judge(item)`` (SECURITY DEFINER, so it reads the
assignments past their row-level security) joins the insert policy of
``agreement_judgement``. A session nobody assigned stays open to every reviewer. Checked by the
server on every INSERT, whatever program sends it; the service (``AgreementRepository.commit``,
``NotAssigned``) says the same in words first. On SQLite (one user) only the service checks:
nothing to do there.

The policy exists only once the team roles are set up (``core.team.roles``), which installs
the same clause itself; this revision adds it to stores whose roles already exist.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_enforce"
down_revision = "0004_assignments"
branch_labels = None
depends_on = None

# Frozen copies of what core.team.roles installs (a revision never imports code that changes).
_FUNCTION = """CREATE OR REPLACE FUNCTION workbench_may_judge(item integer) RETURNS boolean
   LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
   SELECT coalesce((SELECT s.assigned_per_item IS NULL OR EXISTS (
       SELECT 1 FROM agreement_assignment a
       WHERE a.session_id = i.session_id AND a.ordinal = i.ordinal AND a.reviewer = session_user)
     FROM agreement_item i JOIN agreement_session s ON s.id = i.session_id WHERE i.id = item), false) $$"""
_MINE = "(reviewer = session_user OR pg_has_role(session_user, 'lead', 'MEMBER'))"


def _roles_exist() -> bool:
    count = op.get_bind().execute(
        sa.text("SELECT count(*) FROM pg_roles WHERE rolname IN ('reviewer', 'lead')")).scalar_one()
    return bool(count == 2)


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_FUNCTION)
    op.execute("REVOKE ALL ON FUNCTION workbench_may_judge(integer) FROM PUBLIC")
    if not _roles_exist():
        return
    op.execute("GRANT EXECUTE ON FUNCTION workbench_may_judge(integer) TO reviewer")
    op.execute("DROP POLICY IF EXISTS team_insert ON agreement_judgement")
    op.execute(f"CREATE POLICY team_insert ON agreement_judgement FOR INSERT "
               f"WITH CHECK ({_MINE} AND workbench_may_judge(item_id))")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    if _roles_exist():
        op.execute("DROP POLICY IF EXISTS team_insert ON agreement_judgement")
        op.execute(f"CREATE POLICY team_insert ON agreement_judgement FOR INSERT WITH CHECK ({_MINE})")
    op.execute("DROP FUNCTION IF EXISTS workbench_may_judge(integer)")
