"""No deletion cascades into people's work; functions with a fixed search_path.

Revision ID: 0011_team_guard
Revises: 0010_replay_side_cache

Deleting a corpus, file, rule, version, run, result or session used to take decisions,
promotions, waivers, marks, evidence views and agreement items with it (``ON DELETE CASCADE``).
Now such a delete is refused while anything of that kind points at the row (PostgreSQL: the
keys become ``ON DELETE RESTRICT``; SQLite: ``BEFORE DELETE`` triggers with the same effect, as
SQLite cannot alter a key in place). Retiring is the way to end a rule. Derived rows (a run's
outcome blocks, pools and owner, an import report's issues) still go with their parent, and
labels and rulings keep their trajectory key when a trajectory goes (``SET NULL``, unchanged).

PostgreSQL: the functions triggers and policies call get ``search_path = pg_catalog, public,
pg_temp`` (pg_temp last: a login's temporary table can never stand in for a store table).
The team roles' grants and policies themselves are installed by ``core.team.roles``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_team_guard"
down_revision = "0010_replay_side_cache"
branch_labels = None
depends_on = None

# (child table, column, parent table): keys whose deletion cascade removed people's work.
_KEPT = (
    ("source_file", "corpus_id", "corpus"), ("trajectory", "corpus_id", "corpus"),
    ("trajectory", "file_id", "source_file"), ("rule", "corpus_id", "corpus"), ("rule", "file_id", "source_file"),
    ("rule_version", "rule_id", "rule"), ("replay_result", "run_id", "replay_run"),
    ("replay_result", "rule_version_id", "rule_version"), ("decision", "rule_id", "rule"),
    ("decision", "rule_version_id", "rule_version"), ("evidence_view", "result_id", "replay_result"),
    ("evidence_view", "trajectory_pk", "trajectory"), ("waiver", "result_id", "replay_result"),
    ("waiver", "trajectory_pk", "trajectory"), ("agreement_mark", "result_id", "replay_result"),
    ("agreement_mark", "trajectory_pk", "trajectory"), ("agreement_item", "session_id", "agreement_session"),
    ("promotion", "rule_id", "rule"), ("promotion", "rule_version_id", "rule_version"),
    ("promotion", "decision_id", "decision"),
)
_SAFE_PATH = "pg_catalog, public, pg_temp"
_FUNCTIONS = ("workbench_append_only()", "workbench_run_owner()", "workbench_record_run_owner()",
              "workbench_notify_change()", "workbench_may_judge(integer)", "workbench_has_judged(integer)")


def _set_delete_action(child: str, column: str, action: str) -> None:
    """Re-create the key ``child.column`` with ``ON DELETE action`` (its name and target kept)."""
    op.execute(f"""DO $$ DECLARE c record; BEGIN
        FOR c IN SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
                 WHERE contype = 'f' AND conrelid = 'public.{child}'::regclass
                   AND conkey = ARRAY[(SELECT attnum FROM pg_attribute
                                       WHERE attrelid = 'public.{child}'::regclass AND attname = '{column}')]
        LOOP
            EXECUTE 'ALTER TABLE public.{child} DROP CONSTRAINT ' || quote_ident(c.conname);
            EXECUTE 'ALTER TABLE public.{child} ADD CONSTRAINT ' || quote_ident(c.conname) || ' '
                    || regexp_replace(c.def, ' ON DELETE (CASCADE|SET NULL|RESTRICT|NO ACTION)', '')
                    || ' ON DELETE {action}';
        END LOOP; END $$""")


def _sqlite_trigger(child: str, column: str, parent: str) -> str:
    return (f"CREATE TRIGGER IF NOT EXISTS keep_{child}_{column} BEFORE DELETE ON {parent} "
            f"WHEN EXISTS (SELECT 1 FROM {child} WHERE {column} = OLD.id) BEGIN "
            f"SELECT RAISE(ABORT, '{parent} row is referenced by {child}.{column}: nothing was deleted'); END")


def _functions_exist() -> list[str]:
    names = op.get_bind().execute(sa.text(
        "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
        "WHERE n.nspname = 'public'")).scalars().all()
    return [f for f in _FUNCTIONS if f in names]


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for child, column, parent in _KEPT:
            op.execute(_sqlite_trigger(child, column, parent))
        return
    for child, column, _parent in _KEPT:
        _set_delete_action(child, column, "RESTRICT")
    for function in _functions_exist():
        op.execute(f"ALTER FUNCTION public.{function} SET search_path = {_SAFE_PATH}")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for child, column, _parent in _KEPT:
            op.execute(f"DROP TRIGGER IF EXISTS keep_{child}_{column}")
        return
    set_null = {("promotion", "decision_id")}
    for child, column, _parent in _KEPT:
        _set_delete_action(child, column, "SET NULL" if (child, column) in set_null else "CASCADE")
    for function in _functions_exist():
        op.execute(f"ALTER FUNCTION public.{function} RESET search_path")
