"""The legacy schema steps, frozen: how stores were built before Alembic, keyed by ``user_version``.

Stores are now built and upgraded by Alembic (``core.store.schema``). These eight steps
stay, unchanged, as the only way into the Alembic baseline: the baseline revision
(``alembic/versions/0001_baseline.py``) runs the steps after a store's ``user_version``
(all of them for a new store), so a store from the 0.1 release (user_version 5) or from
before Alembic (6-8) upgrades in place and keeps every row. Never edit or add a step:
schema changes are new Alembic revisions. ``migrate`` (one transaction per step, on a raw
connection) remains for tests that make stores the way older code did.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from core.store.migration_base import Migration


class StoreTooNewError(RuntimeError):
    """The store was written by a newer Workbench; opening it could damage it."""


_FOUNDATION = Migration(
    1,
    "corpora, files, trajectories, rules and versions, import reports, audit log, settings",
    (
        """CREATE TABLE corpus (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL,
            role_source TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE source_file (
            id INTEGER PRIMARY KEY,
            corpus_id INTEGER NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            kind TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            size INTEGER NOT NULL,
            imported_at TEXT NOT NULL,
            UNIQUE (corpus_id, path)
        )""",
        """CREATE TABLE trajectory (
            id INTEGER PRIMARY KEY,
            corpus_id INTEGER NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
            file_id INTEGER NOT NULL REFERENCES source_file(id) ON DELETE CASCADE,
            line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            trajectory_id TEXT NOT NULL,
            success INTEGER NOT NULL,
            domain TEXT,
            failure_class TEXT,
            failure_point TEXT,
            task TEXT NOT NULL,
            expected_outcome TEXT,
            expected_rule TEXT,
            role TEXT,
            raw_text TEXT NOT NULL,
            record_json TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            UNIQUE (file_id, line)
        )""",
        "CREATE INDEX ix_trajectory_corpus ON trajectory(corpus_id)",
        "CREATE INDEX ix_trajectory_tid ON trajectory(trajectory_id)",
        "CREATE INDEX ix_trajectory_domain ON trajectory(domain)",
        """CREATE TABLE rule (
            id INTEGER PRIMARY KEY,
            corpus_id INTEGER REFERENCES corpus(id) ON DELETE CASCADE,
            file_id INTEGER REFERENCES source_file(id) ON DELETE CASCADE,
            origin TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            rule_ref TEXT,
            status TEXT,
            source_trajectory TEXT,
            source_trajectory_pk INTEGER REFERENCES trajectory(id) ON DELETE SET NULL,
            domain TEXT,
            raw_text TEXT,
            data_json TEXT,
            content_hash TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE rule_version (
            id INTEGER PRIMARY KEY,
            rule_id INTEGER NOT NULL REFERENCES rule(id) ON DELETE CASCADE,
            version INTEGER NOT NULL,
            trigger TEXT NOT NULL,
            context_json TEXT NOT NULL,
            signature TEXT,
            directive TEXT NOT NULL,
            because TEXT,
            confidence REAL,
            author TEXT NOT NULL,
            note TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (rule_id, version)
        )""",
        """CREATE TABLE import_report (
            id INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            roots_json TEXT NOT NULL,
            summary_json TEXT
        )""",
        """CREATE TABLE import_issue (
            id INTEGER PRIMARY KEY,
            report_id INTEGER NOT NULL REFERENCES import_report(id) ON DELETE CASCADE,
            corpus TEXT,
            file TEXT NOT NULL,
            line INTEGER,
            field TEXT,
            reason TEXT NOT NULL
        )""",
        """CREATE TABLE audit_event (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            target_kind TEXT NOT NULL,
            target_id TEXT NOT NULL,
            reason TEXT,
            before_json TEXT,
            after_json TEXT,
            run_id INTEGER
        )""",
        "CREATE INDEX ix_audit_target ON audit_event(target_kind, target_id)",
        # Append-only by construction: the database itself refuses edits and deletes.
        """CREATE TRIGGER audit_event_no_update BEFORE UPDATE ON audit_event
           BEGIN SELECT RAISE(ABORT, 'audit_event is append-only'); END""",
        """CREATE TRIGGER audit_event_no_delete BEFORE DELETE ON audit_event
           BEGIN SELECT RAISE(ABORT, 'audit_event is append-only'); END""",
        """CREATE TABLE setting (
            key TEXT PRIMARY KEY,
            value_json TEXT NOT NULL
        )""",
    ),
)

_REPLAY = Migration(
    2,
    "replay runs, per-rule results, per-pair outcomes, embedding cache",
    (
        """CREATE TABLE replay_run (
            id INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            status TEXT NOT NULL,
            profile TEXT NOT NULL,
            config_json TEXT NOT NULL,
            config_hash TEXT NOT NULL,
            corpus_hash TEXT NOT NULL,
            model_id TEXT,
            semantic_state TEXT NOT NULL,
            pairs INTEGER NOT NULL DEFAULT 0,
            seconds REAL,
            scope TEXT
        )""",
        """CREATE TABLE replay_result (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES replay_run(id) ON DELETE CASCADE,
            rule_version_id INTEGER NOT NULL REFERENCES rule_version(id) ON DELETE CASCADE,
            verdict TEXT NOT NULL,
            reason TEXT NOT NULL,
            threshold REAL NOT NULL,
            prevented_n INTEGER NOT NULL,
            broken_n INTEGER NOT NULL,
            near_miss_n INTEGER NOT NULL,
            missed_n INTEGER NOT NULL,
            precision REAL,
            precision_lo REAL,
            precision_hi REAL,
            recall REAL,
            recall_lo REAL,
            recall_hi REAL,
            recall_pool_json TEXT NOT NULL,
            precision_pool_json TEXT NOT NULL,
            attribution TEXT,
            UNIQUE (run_id, rule_version_id)
        )""",
        "CREATE INDEX ix_result_version ON replay_result(rule_version_id)",
        """CREATE TABLE replay_outcome (
            id INTEGER PRIMARY KEY,
            result_id INTEGER NOT NULL REFERENCES replay_result(id) ON DELETE CASCADE,
            trajectory_pk INTEGER NOT NULL REFERENCES trajectory(id) ON DELETE CASCADE,
            bucket TEXT NOT NULL,
            score REAL NOT NULL,
            token_f1 REAL,
            bigram REAL,
            cosine REAL,
            view TEXT,
            floor TEXT,
            threshold REAL NOT NULL,
            margin REAL NOT NULL,
            spans_json TEXT
        )""",
        "CREATE INDEX ix_outcome_result ON replay_outcome(result_id, bucket)",
        """CREATE TABLE embedding (
            model_id TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (model_id, text_hash)
        )""",
    ),
)

_REVIEW = Migration(
    3,
    "review decisions, evidence views and waivers, agreement marks",
    (
        # One row per human decision; an undo is a new row pointing at what it undoes.
        """CREATE TABLE decision (
            id INTEGER PRIMARY KEY,
            rule_id INTEGER NOT NULL REFERENCES rule(id) ON DELETE CASCADE,
            rule_version_id INTEGER NOT NULL REFERENCES rule_version(id) ON DELETE CASCADE,
            run_id INTEGER REFERENCES replay_run(id) ON DELETE SET NULL,
            reviewer TEXT NOT NULL,
            action TEXT NOT NULL,
            reason TEXT,
            evidence_json TEXT,
            undoes_id INTEGER REFERENCES decision(id),
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX ix_decision_rule ON decision(rule_id)",
        """CREATE TABLE evidence_view (
            id INTEGER PRIMARY KEY,
            reviewer TEXT NOT NULL,
            result_id INTEGER NOT NULL REFERENCES replay_result(id) ON DELETE CASCADE,
            trajectory_pk INTEGER NOT NULL REFERENCES trajectory(id) ON DELETE CASCADE,
            viewed_at TEXT NOT NULL,
            UNIQUE (reviewer, result_id, trajectory_pk)
        )""",
        """CREATE TABLE waiver (
            id INTEGER PRIMARY KEY,
            reviewer TEXT NOT NULL,
            result_id INTEGER NOT NULL REFERENCES replay_result(id) ON DELETE CASCADE,
            trajectory_pk INTEGER NOT NULL REFERENCES trajectory(id) ON DELETE CASCADE,
            reason TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        # Human-vs-replay marks. trajectory_pk NULL marks the rule's verdict itself.
        """CREATE TABLE agreement_mark (
            id INTEGER PRIMARY KEY,
            reviewer TEXT NOT NULL,
            result_id INTEGER NOT NULL REFERENCES replay_result(id) ON DELETE CASCADE,
            trajectory_pk INTEGER REFERENCES trajectory(id) ON DELETE CASCADE,
            replay_answer TEXT NOT NULL,
            mark TEXT NOT NULL,
            blinded INTEGER NOT NULL,
            session_id INTEGER,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX ix_mark_result ON agreement_mark(result_id, reviewer)",
    ),
)

# Steps owned by other modules; imported here so the order lives in one place.
from core.store.migrations_labels import LABELS  # noqa: E402
from core.store.migrations_agreement import AGREEMENT_QUESTIONS  # noqa: E402
from core.store.migrations_promotion import PROMOTION  # noqa: E402
from core.store.migrations_reliability import RELIABILITY  # noqa: E402
from core.store.migrations_scale import SCALE_INDEXES  # noqa: E402

MIGRATIONS: tuple[Migration, ...] = (
    _FOUNDATION, _REPLAY, _REVIEW, LABELS, PROMOTION, RELIABILITY, AGREEMENT_QUESTIONS, SCALE_INDEXES,
)
LEGACY_VERSION = MIGRATIONS[-1].version  # the last legacy step; the baseline revision's user_version


def legacy_statements(after: int) -> list[str]:
    """The DDL of every legacy step newer than ``after``, in order (the baseline revision runs them)."""
    return [statement for m in MIGRATIONS if m.version > after for statement in m.statements]


def current_version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA user_version").fetchone()[0])


def migrate(connection: sqlite3.Connection, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Bring the store up to the newest known version; return the version reached."""
    known = migrations[-1].version if migrations else 0
    version = current_version(connection)
    if version > known:
        raise StoreTooNewError(
            f"this store has schema version {version}, but this Workbench knows only up to "
            f"{known}; open it with a newer Workbench (nothing was changed)"
        )
    for migration in migrations:
        if migration.version <= version:
            continue
        # One transaction per step: a failed step leaves the store at the previous version.
        connection.execute("BEGIN IMMEDIATE")
        try:
            for statement in migration.statements:
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {int(migration.version)}")
            connection.execute("COMMIT")
        except Exception:
            connection.execute("ROLLBACK")
            raise
        version = migration.version
    return version
