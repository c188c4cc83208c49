"""Who may write what in a team store: PostgreSQL roles, grants and row-level security.

No home-made auth: a reviewer is a PostgreSQL login, a member of the group role ``reviewer``
or ``lead`` (``lead`` includes ``reviewer``). The server decides, on every statement:

* everyone on the team reads the store (except, below, other reviewers' blind judgements);
* a reviewer writes only rows in their own name (``session_user``): labels and their history,
  blind judgements, agreement marks, evidence views, waivers, decisions to reject or defer;
  imports and replay runs are open to every reviewer;
* only a lead assigns blind items to reviewers (a reviewer reads only their own assignments),
  adjudicates labels, approves (``decision.action = 'approve'``), writes
  promotions and standing ids, and exports (``may_export``, asked before writing a rule store);
* once a lead assigned a blind session, a login inserts judgements only of the items assigned
  to them (``workbench_may_judge``, revision ``0006_enforce``);
* a blind judgement is visible to its reviewer and to leads; another reviewer sees it only
  after committing their own judgement of the same item (the blind protocol's rule, enforced
  by the server, not by the window).

``install_team_roles`` is idempotent and runs with a login that owns the tables (the one
that created the store) and may create roles; ``add_reviewer`` creates a login and puts it
in its group. The table owner itself is not subject to the policies (PostgreSQL's rule), so
set the store up with an administrative login and give people their own.
"""

from __future__ import annotations

import re

from sqlalchemy import text
from sqlalchemy.engine import Connection

REVIEWER, LEAD = "reviewer", "lead"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]{0,62}$")
# Tables only a lead writes; everything else a reviewer may write (subject to the policies).
LEAD_TABLES = ("adjudication", "promotion", "id_counter", "agreement_assignment")
# Tables with a reviewer column a reviewer may only write in their own name.
OWN_ROWS = {"label": "reviewer", "label_history": "actor", "agreement_judgement": "reviewer",
            "agreement_mark": "reviewer", "evidence_view": "reviewer", "waiver": "reviewer", "decision": "reviewer"}


class RoleError(RuntimeError):
    """A login or role cannot be created (one line saying why)."""


def _is_lead() -> str:
    return f"pg_has_role(session_user, '{LEAD}', 'MEMBER')"


def _statements() -> list[str]:
    lead = _is_lead()
    out = [
        f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{REVIEWER}') THEN "
        f"CREATE ROLE {REVIEWER} NOLOGIN; END IF; "
        f"IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{LEAD}') THEN "
        f"CREATE ROLE {LEAD} NOLOGIN; END IF; END $$",
        f"GRANT {REVIEWER} TO {LEAD}",
        f"GRANT USAGE ON SCHEMA public TO {REVIEWER}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {REVIEWER}",
        f"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {REVIEWER}",
        # Tables and sequences later revisions create get the same grants (policies: re-run this).
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {REVIEWER}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO {REVIEWER}",
        f"REVOKE INSERT, UPDATE, DELETE ON {', '.join(LEAD_TABLES)}, alembic_version FROM {REVIEWER}",
        f"GRANT INSERT, UPDATE ON {', '.join(LEAD_TABLES)} TO {LEAD}",
        # Whether the current login has judged an item: read past the policies (SECURITY DEFINER),
        # since a policy on agreement_judgement cannot query agreement_judgement itself.
        """CREATE OR REPLACE FUNCTION workbench_has_judged(item integer) RETURNS boolean
           LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
           SELECT EXISTS (SELECT 1 FROM agreement_judgement WHERE item_id = item AND reviewer = session_user) $$""",
        "REVOKE ALL ON FUNCTION workbench_has_judged(integer) FROM PUBLIC",
        f"GRANT EXECUTE ON FUNCTION workbench_has_judged(integer) TO {REVIEWER}",
        # Whether the current login may judge an item: its session is not assigned, or the item
        # is assigned to them (revision 0006_enforce); past the assignments' own policies.
        """CREATE OR REPLACE FUNCTION workbench_may_judge(item integer) RETURNS boolean
           LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
           SELECT coalesce((SELECT s.assigned_per_item IS NULL OR EXISTS (
               SELECT 1 FROM agreement_assignment a
               WHERE a.session_id = i.session_id AND a.ordinal = i.ordinal AND a.reviewer = session_user)
             FROM agreement_item i JOIN agreement_session s ON s.id = i.session_id WHERE i.id = item), false) $$""",
        "REVOKE ALL ON FUNCTION workbench_may_judge(integer) FROM PUBLIC",
        f"GRANT EXECUTE ON FUNCTION workbench_may_judge(integer) TO {REVIEWER}",
    ]
    for table, column in OWN_ROWS.items():
        mine = f"({column} = session_user OR {lead})"
        read = "true"
        if table == "agreement_judgement":
            read = f"(reviewer = session_user OR {lead} OR workbench_has_judged(item_id))"
        write = f"{mine} AND (action <> 'approve' OR {lead})" if table == "decision" else mine
        if table == "agreement_judgement":  # an assigned session: only the items assigned to this login
            write = f"{mine} AND workbench_may_judge(item_id)"
        out += [
            f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
            f"DROP POLICY IF EXISTS team_read ON {table}",
            f"DROP POLICY IF EXISTS team_insert ON {table}",
            f"DROP POLICY IF EXISTS team_update ON {table}",
            f"DROP POLICY IF EXISTS team_delete ON {table}",
            f"CREATE POLICY team_read ON {table} FOR SELECT USING ({read})",
            f"CREATE POLICY team_insert ON {table} FOR INSERT WITH CHECK ({write})",
            f"CREATE POLICY team_update ON {table} FOR UPDATE USING ({mine}) WITH CHECK ({write})",
            f"CREATE POLICY team_delete ON {table} FOR DELETE USING ({mine})",
        ]
    out += [
        "ALTER TABLE adjudication ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS team_read ON adjudication",
        "DROP POLICY IF EXISTS team_write ON adjudication",
        "CREATE POLICY team_read ON adjudication FOR SELECT USING (true)",
        f"CREATE POLICY team_write ON adjudication FOR INSERT WITH CHECK (lead = session_user AND {lead})",
        "DROP POLICY IF EXISTS team_keep ON adjudication",
        f"CREATE POLICY team_keep ON adjudication FOR UPDATE USING ({lead})",  # trajectory_pk set NULL on delete
        # Assignments (revision 0004_assignments): a lead assigns (and re-assigns: DELETE too);
        # a reviewer reads only their own.
        "GRANT DELETE ON agreement_assignment TO lead",
        "ALTER TABLE agreement_assignment ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS team_read ON agreement_assignment",
        "DROP POLICY IF EXISTS team_write ON agreement_assignment",
        f"CREATE POLICY team_read ON agreement_assignment FOR SELECT USING (reviewer = session_user OR {lead})",
        f"CREATE POLICY team_write ON agreement_assignment FOR ALL USING ({lead}) WITH CHECK ({lead})",
    ]
    return out


def install_team_roles(connection: Connection) -> None:
    """Create the roles (if missing), grants and policies in the store's database. Idempotent."""
    if connection.dialect.name != "postgresql":
        raise RoleError("roles need a PostgreSQL store; a SQLite store has one user")
    for statement in _statements():
        connection.exec_driver_sql(statement)


def add_reviewer(url: str, name: str, lead: bool = False, password: str | None = None) -> bool:
    """Create login ``name`` (or update it) in group ``reviewer`` or ``lead``; True if it is new."""
    from psycopg import sql

    from core.store.engine import open_store

    if not _NAME.match(name):
        raise RoleError(f"{name!r} is not a usable login name (letters, digits, _ . -; at most 63)")
    store = open_store(url)  # also brings the schema to head
    try:
        with store.engine.begin() as connection:
            install_team_roles(connection)
            raw = connection.connection.driver_connection
            assert raw is not None
            exists = connection.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :n"), {"n": name}).first()
            login = sql.Identifier(name)
            with raw.cursor() as cursor:
                if exists is None:
                    cursor.execute(sql.SQL("CREATE ROLE {} LOGIN").format(login))
                if password is not None:
                    cursor.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(login, sql.Literal(password)))
                cursor.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(LEAD if lead else REVIEWER), login))
                if not lead:
                    cursor.execute(sql.SQL("REVOKE {} FROM {}").format(sql.Identifier(LEAD), login))
                database = connection.execute(text("SELECT current_database()")).scalar_one()
                cursor.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), login))
    finally:
        store.close()
    return exists is None


def may_export(connection: Connection) -> bool:
    """Whether the current login may export rule stores: leads on a team store; anyone on SQLite
    or on a server store whose team roles were never set up (one user, like a SQLite file)."""
    if connection.dialect.name != "postgresql":
        return True
    return bool(connection.execute(text(
        f"SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{LEAD}') THEN true "
        f"ELSE {_is_lead()} END OR (SELECT rolsuper FROM pg_roles WHERE rolname = session_user)")).scalar_one())
