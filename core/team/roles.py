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

from core.team.prune_function import SIGNATURE as PRUNE_SIGNATURE
from core.team.prune_function import prune_function
from core.team.table_policy import LEAD_CHECK, POLICIES, policy_statements

REVIEWER, LEAD = "reviewer", "lead"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]{0,62}$")
# Tables only a lead writes, and the per-table owner column: both read from the one declaration
# (core.team.table_policy.POLICIES), kept here for the callers that ask.
LEAD_TABLES = tuple(t for t, p in POLICIES.items() if p.insert == "lead")
OWN_ROWS = {t: p.own for t, p in POLICIES.items() if p.own is not None}
# Functions a policy calls with the owner's rights: a fixed search_path with pg_temp last (a
# login's temporary table can never shadow a table), every table schema-qualified.
_SAFE_PATH = "SET search_path = pg_catalog, public, pg_temp"


class RoleError(RuntimeError):
    """A login or role cannot be created (one line saying why)."""


def _is_lead() -> str:
    return LEAD_CHECK


def _guard_functions() -> list[str]:
    """The SECURITY DEFINER checks the policies call, and the standing-rule guard trigger."""
    return [
        # Whether the current login has judged an item: read past the policies (SECURITY DEFINER),
        # since a policy on agreement_judgement cannot query agreement_judgement itself.
        f"""CREATE OR REPLACE FUNCTION public.workbench_has_judged(item integer) RETURNS boolean
           LANGUAGE sql STABLE SECURITY DEFINER {_SAFE_PATH} AS $$
           SELECT EXISTS (SELECT 1 FROM public.agreement_judgement
                          WHERE item_id = item AND reviewer = session_user) $$""",
        # Whether the current login may judge an item: its session is not assigned, or the item
        # is assigned to them (revision 0006_enforce); past the assignments' own policies.
        f"""CREATE OR REPLACE FUNCTION public.workbench_may_judge(item integer) RETURNS boolean
           LANGUAGE sql STABLE SECURITY DEFINER {_SAFE_PATH} AS $$
           SELECT coalesce((SELECT s.assigned_per_item IS NULL OR EXISTS (
               SELECT 1 FROM public.agreement_assignment a
               WHERE a.session_id = i.session_id AND a.ordinal = i.ordinal AND a.reviewer = session_user)
             FROM public.agreement_item i JOIN public.agreement_session s ON s.id = i.session_id
             WHERE i.id = item), false) $$""",
        # A standing rule (an active or superseded promotion) changes only through a lead; anyone's
        # write moves row_version by exactly one (no rewinding past a conflict check).
        f"""CREATE OR REPLACE FUNCTION public.workbench_guard_rule() RETURNS trigger
           LANGUAGE plpgsql {_SAFE_PATH} AS $$
           DECLARE unchanged public.rule := OLD;
           BEGIN
             unchanged.row_version := NEW.row_version;
             IF NEW.row_version IS DISTINCT FROM OLD.row_version AND NEW.row_version <> OLD.row_version + 1 THEN
               RAISE EXCEPTION USING MESSAGE = 'rule ' || OLD.id || ': row_version moves by one',
                 ERRCODE = 'insufficient_privilege';
             END IF;
             IF (NEW.*) IS DISTINCT FROM (unchanged.*) AND NOT {LEAD_CHECK}
                AND EXISTS (SELECT 1 FROM public.promotion p WHERE p.rule_id = OLD.id) THEN
               RAISE EXCEPTION USING MESSAGE = 'rule ' || OLD.id || ' is a standing rule: only a lead changes it',
                 ERRCODE = 'insufficient_privilege';
             END IF;
             RETURN NEW;
           END $$""",
        # A table's row count past the policies, so a copy or check under a login that sees only
        # part of a table can say so (core.team.visibility); counts only, of the store's tables only.
        f"""CREATE OR REPLACE FUNCTION public.workbench_row_count(name text) RETURNS bigint
           LANGUAGE plpgsql STABLE SECURITY DEFINER {_SAFE_PATH} AS $$
           DECLARE n bigint;
           BEGIN
             IF NOT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = 'public' AND tablename = name) THEN
               RAISE EXCEPTION USING MESSAGE = name || ' is not a store table', ERRCODE = 'undefined_table';
             END IF;
             EXECUTE 'SELECT count(*) FROM public.' || quote_ident(name) INTO n;
             RETURN n;
           END $$""",
        # Deleting old replay runs (``store prune``): a lead's, one bounded step per call.
        prune_function(),
        "DROP TRIGGER IF EXISTS rule_guard ON rule",
        "CREATE TRIGGER rule_guard BEFORE UPDATE ON rule FOR EACH ROW EXECUTE FUNCTION public.workbench_guard_rule()",
    ]


def _statements(database: str) -> list[str]:
    lead = _is_lead()
    out = [
        f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{REVIEWER}') THEN "
        f"CREATE ROLE {REVIEWER} NOLOGIN; END IF; "
        f"IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{LEAD}') THEN "
        f"CREATE ROLE {LEAD} NOLOGIN; END IF; END $$",
        f"GRANT {REVIEWER} TO {LEAD}",
        # No temporary objects (a temporary table shadows a table of the same name for the login's
        # unqualified statements and for functions without a fixed search_path), nothing new in
        # the schema or the database. Logins get TEMP through PUBLIC, so PUBLIC loses it here.
        f'REVOKE TEMPORARY, CREATE ON DATABASE "{database}" FROM PUBLIC, {REVIEWER}, {LEAD}',
        f"REVOKE CREATE ON SCHEMA public FROM PUBLIC, {REVIEWER}, {LEAD}",
        f"GRANT USAGE ON SCHEMA public TO {REVIEWER}",
        # Reads for the team; writes only as declared below (deny by default, new tables included).
        f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {REVIEWER}, {LEAD}",
        f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {REVIEWER}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE INSERT, UPDATE, DELETE ON TABLES FROM {REVIEWER}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {REVIEWER}",
        # nextval for inserts; never setval (UPDATE), which would rewind ids into collisions.
        f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {REVIEWER}, {LEAD}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {REVIEWER}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE UPDATE ON SEQUENCES FROM {REVIEWER}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {REVIEWER}",
        # Large objects live outside the store's tables; where the installer may (a superuser),
        # nobody else creates them.
        "DO $$ BEGIN IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN "
        "REVOKE EXECUTE ON FUNCTION lo_create(oid), lo_creat(integer), lo_from_bytea(oid, bytea) FROM PUBLIC; "
        "END IF; END $$",
        # Every policy is rebuilt from the declaration: drop whatever a previous version installed.
        "DO $$ DECLARE p record; BEGIN FOR p IN SELECT policyname, tablename FROM pg_policies "
        "WHERE schemaname = 'public' LOOP "
        "EXECUTE 'DROP POLICY ' || quote_ident(p.policyname) || ' ON public.' || quote_ident(p.tablename); "
        "END LOOP; END $$",
        *_guard_functions(),
    ]
    for function in ("workbench_has_judged(integer)", "workbench_may_judge(integer)", "workbench_row_count(text)"):
        out += [f"REVOKE ALL ON FUNCTION public.{function} FROM PUBLIC",
                f"GRANT EXECUTE ON FUNCTION public.{function} TO {REVIEWER}"]
    # The function checks the login itself too (a superuser may also prune).
    out += [f"REVOKE ALL ON FUNCTION public.{PRUNE_SIGNATURE} FROM PUBLIC",
            f"GRANT EXECUTE ON FUNCTION public.{PRUNE_SIGNATURE} TO {LEAD}"]
    for table, policy in POLICIES.items():
        read = "true"
        if table == "agreement_judgement":  # blind: another's only after committing your own
            read = f"(reviewer = session_user OR {lead} OR public.workbench_has_judged(item_id))"
        elif table == "agreement_assignment":
            read = f"(reviewer = session_user OR {lead})"
        out += policy_statements(table, policy)
        out.append(f"CREATE POLICY team_read ON {table} FOR SELECT USING ({read})")
    return out


def install_team_roles(connection: Connection) -> None:
    """Create the roles (if missing), grants and policies in the store's database. Idempotent."""
    if connection.dialect.name != "postgresql":
        raise RoleError("roles need a PostgreSQL store; a SQLite store has one user")
    database = str(connection.execute(text("SELECT current_database()")).scalar_one())
    for statement in _statements(database):
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
