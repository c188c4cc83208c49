"""Schema step 6: who owns a running replay run, so a run whose process died can be closed.

Registered in ``core.store.migrations.MIGRATIONS``. The owner is written by a trigger that
calls ``workbench_run_owner()``, a SQL function every Workbench connection registers
(``core.store.engine``): so every path that starts a run records its owner without the
replay code having to know. Only Workbench connections insert runs (an older Workbench
refuses a version-6 store as too new), so every run row gets an owner.
"""

from __future__ import annotations

from core.store.migration_base import Migration

RELIABILITY = Migration(
    6,
    "replay run owners (host, pid, process start) so runs left 'running' by a dead process are closed",
    (
        """CREATE TABLE replay_run_owner (
            run_id INTEGER PRIMARY KEY REFERENCES replay_run(id) ON DELETE CASCADE,
            owner TEXT NOT NULL
        )""",
        """CREATE TRIGGER replay_run_owner_insert AFTER INSERT ON replay_run
           WHEN NEW.status = 'running'
           BEGIN
               INSERT INTO replay_run_owner (run_id, owner) VALUES (NEW.id, workbench_run_owner());
           END""",
    ),
)
