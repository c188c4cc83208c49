"""Migration 4: ground-truth labels and the blind agreement protocol.

Registered in ``core.store.migrations.MIGRATIONS`` as version 4. Design notes:

* A label belongs to one reviewer and one trajectory. Besides the trajectory id (which is
  local to this store and is set to NULL if the record disappears on re-import) it keeps the
  record's stable key (corpus, file, line, trajectory_id, record content hash), so labels
  survive re-imports and can be merged across stores.
* ``label_history`` and ``agreement_judgement`` are append-only, enforced by triggers like
  ``audit_event``: a label edit appends a history row, and a committed judgement is final
  (the replay answer is revealed only after the commit, so letting it change would let the
  reveal leak into the measurement).
* ``adjudication`` rows are append-only too (the latest one is in force); the only column
  that may change is ``trajectory_pk``, which a deleted trajectory sets to NULL.
* A session item snapshots the rule text and the replay answer it was sampled with, so a
  session stays readable (and importable into another store) after its run is gone.
"""

from __future__ import annotations

from core.store.migration_base import Migration


def _append_only(table: str, mutable: tuple[str, ...] = (), columns: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Triggers refusing UPDATE (of every column not in ``mutable``) and DELETE on ``table``."""
    if mutable:
        guarded = ", ".join(c for c in columns if c not in mutable)
        update = (
            f"CREATE TRIGGER {table}_no_update BEFORE UPDATE OF {guarded} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
        )
    else:
        update = (
            f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
        )
    delete = (
        f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
    )
    return update, delete


_ADJUDICATION_COLUMNS = (
    "id", "trajectory_pk", "corpus", "file", "line", "trajectory_id", "record_hash", "lead",
    "chosen_reviewer", "trigger", "directive", "variants_json", "note", "reason", "content_hash",
    "origin", "created_at",
)

LABELS = Migration(
    4,
    "ground-truth labels with history, agreement sessions, items, blind judgements, adjudications",
    (
        """CREATE TABLE label (
            id INTEGER PRIMARY KEY,
            trajectory_pk INTEGER REFERENCES trajectory(id) ON DELETE SET NULL,
            corpus TEXT NOT NULL,
            file TEXT NOT NULL,
            line INTEGER NOT NULL,
            trajectory_id TEXT NOT NULL,
            record_hash TEXT NOT NULL,
            reviewer TEXT NOT NULL,
            trigger TEXT NOT NULL,
            directive TEXT NOT NULL,
            variants_json TEXT NOT NULL DEFAULT '[]',
            note TEXT,
            content_hash TEXT NOT NULL,
            origin TEXT NOT NULL DEFAULT 'local',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (trajectory_pk, reviewer)
        )""",
        "CREATE INDEX ix_label_reviewer ON label(reviewer)",
        "CREATE INDEX ix_label_key ON label(corpus, file, trajectory_id)",
        # Labels are never deleted by the application, so history can point at them.
        """CREATE TABLE label_history (
            id INTEGER PRIMARY KEY,
            label_id INTEGER NOT NULL REFERENCES label(id),
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            at TEXT NOT NULL,
            before_json TEXT,
            after_json TEXT NOT NULL,
            reason TEXT
        )""",
        "CREATE INDEX ix_label_history_label ON label_history(label_id)",
        *_append_only("label_history"),
        """CREATE TABLE adjudication (
            id INTEGER PRIMARY KEY,
            trajectory_pk INTEGER REFERENCES trajectory(id) ON DELETE SET NULL,
            corpus TEXT NOT NULL,
            file TEXT NOT NULL,
            line INTEGER NOT NULL,
            trajectory_id TEXT NOT NULL,
            record_hash TEXT NOT NULL,
            lead TEXT NOT NULL,
            chosen_reviewer TEXT,
            trigger TEXT NOT NULL,
            directive TEXT NOT NULL,
            variants_json TEXT NOT NULL DEFAULT '[]',
            note TEXT,
            reason TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            origin TEXT NOT NULL DEFAULT 'local',
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX ix_adjudication_trajectory ON adjudication(trajectory_pk)",
        *_append_only("adjudication", mutable=("trajectory_pk",), columns=_ADJUDICATION_COLUMNS),
        """CREATE TABLE agreement_session (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            name TEXT,
            run_id INTEGER REFERENCES replay_run(id) ON DELETE SET NULL,
            run_profile TEXT,
            run_config_hash TEXT,
            run_corpus_hash TEXT,
            seed INTEGER NOT NULL,
            target_half_width REAL,
            assumed_p REAL NOT NULL,
            size INTEGER NOT NULL,
            blind INTEGER NOT NULL DEFAULT 1,
            allocation TEXT NOT NULL,
            min_per_stratum INTEGER NOT NULL,
            gate REAL NOT NULL DEFAULT 0.8,
            strata_json TEXT NOT NULL,
            created_by TEXT NOT NULL,
            origin TEXT NOT NULL DEFAULT 'local',
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX ix_session_run ON agreement_session(run_id)",
        # trajectory_pk NULL: the item is the rule's verdict, not one piece of evidence.
        """CREATE TABLE agreement_item (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES agreement_session(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            kind TEXT NOT NULL,
            result_id INTEGER REFERENCES replay_result(id) ON DELETE SET NULL,
            rule_origin TEXT NOT NULL,
            rule_version INTEGER,
            trigger TEXT NOT NULL,
            directive TEXT NOT NULL,
            trajectory_pk INTEGER REFERENCES trajectory(id) ON DELETE SET NULL,
            trajectory_key_json TEXT,
            stratum TEXT NOT NULL,
            replay_answer TEXT NOT NULL,
            UNIQUE (session_id, ordinal)
        )""",
        """CREATE TABLE agreement_judgement (
            id INTEGER PRIMARY KEY,
            item_id INTEGER NOT NULL REFERENCES agreement_item(id),
            reviewer TEXT NOT NULL,
            answer TEXT NOT NULL,
            rubric_json TEXT,
            note TEXT,
            origin TEXT NOT NULL DEFAULT 'local',
            committed_at TEXT NOT NULL,
            UNIQUE (item_id, reviewer)
        )""",
        "CREATE INDEX ix_judgement_reviewer ON agreement_judgement(reviewer)",
        *_append_only("agreement_judgement"),
    ),
)
