"""A run that a decision, an agreement session or an agreement item names can no longer be deleted.

Revision ID: 0015_store_prune
Revises: 0012_lab_profiles

``store prune`` (``core.store.prune``) deletes old replay runs. Three keys to a run still let
a delete through and quietly forgot what a reviewer's work rested on (``ON DELETE SET NULL``):
``decision.run_id``, ``agreement_session.run_id`` and ``agreement_item.result_id``. They now
refuse the delete like the keys of ``0011_team_guard`` (PostgreSQL: ``ON DELETE RESTRICT``;
SQLite: ``BEFORE DELETE`` triggers, as SQLite cannot alter a key in place), so a prune can only
ever remove what nothing points at, whatever the client does. Nothing else changes; no data
moves. Downgrade restores ``SET NULL``.
"""

from __future__ import annotations

import importlib

from alembic import op

revision = "0015_store_prune"
down_revision = "0012_lab_profiles"
branch_labels = None
depends_on = None

# The same helpers as 0011 (a revision's module name starts with a digit: imported by name).
_guard = importlib.import_module("core.store.alembic.versions.0011_team_guard")

_KEPT = (
    ("decision", "run_id", "replay_run"),
    ("agreement_session", "run_id", "replay_run"),
    ("agreement_item", "result_id", "replay_result"),
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for child, column, parent in _KEPT:
            op.execute(_guard._sqlite_trigger(child, column, parent))
        return
    for child, column, _parent in _KEPT:
        _guard._set_delete_action(child, column, "RESTRICT")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for child, column, _parent in _KEPT:
            op.execute(f"DROP TRIGGER IF EXISTS keep_{child}_{column}")
        return
    for child, column, _parent in _KEPT:
        _guard._set_delete_action(child, column, "SET NULL")
