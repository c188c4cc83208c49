"""A replay run names the login that started it, and only that login writes into it.

Revision ID: 0016_run_login
Revises: 0015_store_prune

``replay_run.started_by``: on PostgreSQL the server sets it to ``session_user`` when a team login
inserts a run and keeps it on update (a trigger: a client cannot write another name, not even the
lead's; the product names the login itself, so the owner's runs carry it too), so
evidence on a team store is attributable; the team policies (``core.team.table_policy``) then
let a login write results, outcome blocks, pools and owners only into a running run it started.
On a SQLite file (one person's store) it stays NULL. Runs from before this revision keep NULL:
who started them was not recorded.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_run_login"
down_revision = "0015_store_prune"
branch_labels = None
depends_on = None

_SAFE_PATH = "pg_catalog, public, pg_temp"


def upgrade() -> None:
    with op.batch_alter_table("replay_run") as batch:
        batch.add_column(sa.Column("started_by", sa.String(), nullable=True))
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(f"""CREATE FUNCTION public.workbench_run_login() RETURNS trigger LANGUAGE plpgsql
        SET search_path = {_SAFE_PATH} AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            -- A team login's run is always in its own name. The database owner (setup, store
            -- copy, upgrades; not a team login) writes the value given: a copied run keeps its
            -- starter, NULL included.
            -- Direct membership: pg_has_role is true for every superuser, the owner included.
            IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members m
                       JOIN pg_catalog.pg_roles team ON team.oid = m.roleid
                       JOIN pg_catalog.pg_roles login ON login.oid = m.member
                       WHERE team.rolname IN ('reviewer', 'lead') AND login.rolname = session_user) THEN
                NEW.started_by := session_user;
            END IF;
        ELSE
            NEW.started_by := OLD.started_by;
        END IF;
        RETURN NEW;
    END $$""")
    op.execute("CREATE TRIGGER replay_run_login BEFORE INSERT OR UPDATE ON public.replay_run "
               "FOR EACH ROW EXECUTE FUNCTION public.workbench_run_login()")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS replay_run_login ON public.replay_run")
        op.execute("DROP FUNCTION IF EXISTS public.workbench_run_login()")
    with op.batch_alter_table("replay_run") as batch:
        batch.drop_column("started_by")
