"""Schema step 8: indexes for a store at scale (10^5 trajectories, 10^3 rules per run).

Registered at the end of ``core.store.migrations.MIGRATIONS``. No data changes. Indexes:
each one serves a filter or a sort the window offers, or a per-run / per-result lookup
that would otherwise scan a table of 10^6+ rows.

Derived ``missed`` rows. Most stored outcomes were ``missed``: every failure of a rule's
recall pool that the rule does not match, 10^7+ rows at 10^5 trajectories x 10^3 rules,
nearly all with score 0. Now a run stores, per result, its recall pool once
(``replay_pool``: domain slice or all, the excluded source by key and/or id, the largest
trajectory key of the run) and the values every score-0 missed pair has (view, cosine,
margin). Only outcomes that differ from those values are stored
(``replay_outcome_stored``); the view ``replay_outcome`` = stored rows + (pool failures
with no stored row, with those values), so every reader (evidence board, review,
promotion, agreement sampling, bucket moves) gets the same rows as before without a
change. The derived rows follow the trajectory table as it is now, like the stored rows'
joins do (a re-imported corpus makes the run stale through its corpus hash anyway).

* trajectories table: sort by success / failure class / expected rule / corpus / domain /
  trajectory id, with the id as the tiebreak every page query adds;
* rules table: results of one run (``run_id``) and the newest result per rule;
* evidence: one index on the stored outcomes, (result, trajectory);
* runs by status (latest complete run), rule versions by rule (latest version).
"""

from __future__ import annotations

from core.store.migration_base import Migration

SCALE_INDEXES = Migration(
    8,
    "indexes for every table filter and sort at 10^5 trajectories",
    (
        "CREATE INDEX IF NOT EXISTS ix_trajectory_success ON trajectory(success, id)",
        "CREATE INDEX IF NOT EXISTS ix_trajectory_failure_class ON trajectory(failure_class, id)",
        "CREATE INDEX IF NOT EXISTS ix_trajectory_expected_rule ON trajectory(expected_rule, id)",
        "CREATE INDEX IF NOT EXISTS ix_trajectory_corpus_id ON trajectory(corpus_id, id)",
        "CREATE INDEX IF NOT EXISTS ix_trajectory_domain_id ON trajectory(domain, id)",
        "CREATE INDEX IF NOT EXISTS ix_trajectory_tid_id ON trajectory(trajectory_id, id)",
        "CREATE INDEX IF NOT EXISTS ix_trajectory_file_line ON trajectory(file_id, line)",
        "CREATE INDEX IF NOT EXISTS ix_result_run ON replay_result(run_id, rule_version_id)",
        # Outcomes: the stored rows move to replay_outcome_stored; replay_outcome becomes a
        # view that adds the derived "missed" rows (see the module docstring). One index
        # on the largest table, (result, trajectory): every reader asks for one result,
        # and the derivation asks "is this pair stored?".
        "ALTER TABLE replay_outcome RENAME TO replay_outcome_stored",
        "DROP INDEX IF EXISTS ix_outcome_result",
        "CREATE INDEX ix_outcome_stored_pair ON replay_outcome_stored(result_id, trajectory_pk)",
        """CREATE TABLE replay_pool (
            result_id INTEGER PRIMARY KEY REFERENCES replay_result(id) ON DELETE CASCADE,
            domain TEXT,
            exclude_pk INTEGER,
            exclude_tid TEXT,
            max_pk INTEGER NOT NULL,
            zero_view TEXT,
            zero_cosine REAL,
            zero_margin REAL NOT NULL
        )""",
        """CREATE VIEW replay_outcome AS
            SELECT id, result_id, trajectory_pk, bucket, score, token_f1, bigram, cosine, view, floor,
                   threshold, margin, spans_json
            FROM replay_outcome_stored
            UNION ALL
            SELECT NULL, p.result_id, t.id, 'missed', 0.0, 0.0, 0.0, p.zero_cosine, p.zero_view, NULL,
                   rr.threshold, p.zero_margin, NULL
            FROM replay_pool p
            JOIN replay_result rr ON rr.id = p.result_id
            JOIN trajectory t ON t.success = 0 AND t.id <= p.max_pk
                 AND (p.domain IS NULL OR t.domain = p.domain)
                 AND (p.exclude_pk IS NULL OR t.id <> p.exclude_pk)
                 AND (p.exclude_tid IS NULL OR t.trajectory_id <> p.exclude_tid)
            WHERE NOT EXISTS (SELECT 1 FROM replay_outcome_stored s
                              WHERE s.result_id = p.result_id AND s.trajectory_pk = t.id)""",
        "CREATE INDEX IF NOT EXISTS ix_run_status ON replay_run(status, id)",
        "CREATE INDEX IF NOT EXISTS ix_rule_version_rule ON rule_version(rule_id, version)",
        "CREATE INDEX IF NOT EXISTS ix_decision_rule_id ON decision(rule_id, id)",
        # "is this decision undone?" runs once per decision in the rules table's CTE.
        "CREATE INDEX IF NOT EXISTS ix_decision_undoes ON decision(undoes_id)",
        "CREATE INDEX IF NOT EXISTS ix_evidence_view_result ON evidence_view(result_id, reviewer)",
        "CREATE INDEX IF NOT EXISTS ix_waiver_result ON waiver(result_id, reviewer)",
    ),
)
