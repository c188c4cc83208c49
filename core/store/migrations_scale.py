"""Schema step 8: indexes for a store at scale (10^5 trajectories, 10^3 rules per run).

Registered at the end of ``core.store.migrations.MIGRATIONS``. Indexes only, no data
change: each one serves a filter or a sort the window offers, or a per-run / per-result
lookup that would otherwise scan a table of 10^6+ rows.

* trajectories table: sort by success / failure class / expected rule / corpus / domain /
  trajectory id, with the id as the tiebreak every page query adds;
* rules table: results of one run (``run_id``) and the newest result per rule;
* evidence: one result's outcomes of a bucket in score order (the evidence table's order);
  it replaces step 2's ``ix_outcome_result`` (its prefix) so saving pays for one index;
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
        # Replaces ix_outcome_result(result_id, bucket): same prefix, plus the evidence order.
        # One index on the largest table: every extra one is paid on every saved outcome.
        "CREATE INDEX IF NOT EXISTS ix_outcome_result_bucket_score ON replay_outcome(result_id, bucket, score DESC)",
        "DROP INDEX IF EXISTS ix_outcome_result",
        "CREATE INDEX IF NOT EXISTS ix_run_status ON replay_run(status, id)",
        "CREATE INDEX IF NOT EXISTS ix_rule_version_rule ON rule_version(rule_id, version)",
        "CREATE INDEX IF NOT EXISTS ix_decision_rule_id ON decision(rule_id, id)",
        # "is this decision undone?" runs once per decision in the rules table's CTE.
        "CREATE INDEX IF NOT EXISTS ix_decision_undoes ON decision(undoes_id)",
        "CREATE INDEX IF NOT EXISTS ix_evidence_view_result ON evidence_view(result_id, reviewer)",
        "CREATE INDEX IF NOT EXISTS ix_waiver_result ON waiver(result_id, reviewer)",
    ),
)
