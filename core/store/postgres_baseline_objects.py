"""The PostgreSQL baseline's indexes, view, functions and triggers (see ``postgres_baseline``). Frozen."""

from __future__ import annotations

INDEXES: tuple[str, ...] = (
    "CREATE INDEX ix_trajectory_corpus ON trajectory(corpus_id)",
    "CREATE INDEX ix_trajectory_tid ON trajectory(trajectory_id)",
    "CREATE INDEX ix_trajectory_domain ON trajectory(domain)",
    "CREATE INDEX ix_audit_target ON audit_event(target_kind, target_id)",
    "CREATE INDEX ix_result_version ON replay_result(rule_version_id)",
    "CREATE INDEX ix_decision_rule ON decision(rule_id)",
    "CREATE INDEX ix_mark_result ON agreement_mark(result_id, reviewer)",
    "CREATE INDEX ix_label_reviewer ON label(reviewer)",
    "CREATE INDEX ix_label_key ON label(corpus, file, trajectory_id)",
    "CREATE INDEX ix_label_history_label ON label_history(label_id)",
    "CREATE INDEX ix_adjudication_trajectory ON adjudication(trajectory_pk)",
    "CREATE INDEX ix_session_run ON agreement_session(run_id)",
    "CREATE INDEX ix_judgement_reviewer ON agreement_judgement(reviewer)",
    "CREATE INDEX ix_promotion_rule ON promotion(rule_id)",
    "CREATE INDEX ix_promotion_status ON promotion(status)",
    "CREATE INDEX ix_trajectory_success ON trajectory(success, id)",
    "CREATE INDEX ix_trajectory_failure_class ON trajectory(failure_class, id)",
    "CREATE INDEX ix_trajectory_expected_rule ON trajectory(expected_rule, id)",
    "CREATE INDEX ix_trajectory_corpus_id ON trajectory(corpus_id, id)",
    "CREATE INDEX ix_trajectory_domain_id ON trajectory(domain, id)",
    "CREATE INDEX ix_trajectory_tid_id ON trajectory(trajectory_id, id)",
    "CREATE INDEX ix_trajectory_file_line ON trajectory(file_id, line)",
    "CREATE INDEX ix_result_run ON replay_result(run_id, rule_version_id)",
    "CREATE INDEX ix_outcome_stored_pair ON replay_outcome_stored(result_id, trajectory_pk)",
    "CREATE INDEX ix_run_status ON replay_run(status, id)",
    "CREATE INDEX ix_rule_version_rule ON rule_version(rule_id, version)",
    "CREATE INDEX ix_decision_rule_id ON decision(rule_id, id)",
    "CREATE INDEX ix_decision_undoes ON decision(undoes_id)",
    "CREATE INDEX ix_evidence_view_result ON evidence_view(result_id, reviewer)",
    "CREATE INDEX ix_waiver_result ON waiver(result_id, reviewer)",
)

# The derived "missed" rows (legacy step 8, migrations_scale.py): typed NULLs, since
# PostgreSQL resolves a UNION's column types from its branches.
VIEW = """CREATE VIEW replay_outcome AS
    SELECT id, result_id, trajectory_pk, bucket, score, token_f1, bigram, cosine, view, floor,
           threshold, margin, spans_json
    FROM replay_outcome_stored
    UNION ALL
    SELECT CAST(NULL AS INTEGER), p.result_id, t.id, 'missed', 0.0, 0.0, 0.0, p.zero_cosine, p.zero_view,
           CAST(NULL AS TEXT), rr.threshold, p.zero_margin, CAST(NULL AS TEXT)
    FROM replay_pool p
    JOIN replay_result rr ON rr.id = p.result_id
    JOIN trajectory t ON t.success = FALSE AND t.id <= p.max_pk
         AND (p.domain IS NULL OR t.domain = p.domain)
         AND (p.exclude_pk IS NULL OR t.id <> p.exclude_pk)
         AND (p.exclude_tid IS NULL OR t.trajectory_id <> p.exclude_tid)
    WHERE NOT EXISTS (SELECT 1 FROM replay_outcome_stored s
                      WHERE s.result_id = p.result_id AND s.trajectory_pk = t.id)"""

_ADJUDICATION_GUARDED = (
    "id, corpus, file, line, trajectory_id, record_hash, lead, chosen_reviewer, trigger, directive, "
    "variants_json, note, reason, content_hash, origin, created_at"
)

# The same refusals as the SQLite triggers (audit_event, label_history, adjudication except
# its trajectory_pk, agreement_judgement are append-only) and the run owner: SQLite asks a
# function each Workbench connection registers; here each Workbench connection sets the
# ``workbench.run_owner`` setting (core.store.postgres) and other connections record their login.
FUNCTIONS: tuple[str, ...] = (
    """CREATE FUNCTION workbench_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION USING MESSAGE = TG_TABLE_NAME || ' is append-only', ERRCODE = 'restrict_violation';
    END $$""",
    """CREATE FUNCTION workbench_run_owner() RETURNS text LANGUAGE sql STABLE AS $$
        SELECT coalesce(nullif(current_setting('workbench.run_owner', true), ''), 'login|' || session_user)
    $$""",
    """CREATE FUNCTION workbench_record_run_owner() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO replay_run_owner (run_id, owner) VALUES (NEW.id, workbench_run_owner());
        RETURN NEW;
    END $$""",
)

TRIGGERS: tuple[str, ...] = (
    *(f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
      "FOR EACH ROW EXECUTE FUNCTION workbench_append_only()"
      for table in ("audit_event", "label_history", "agreement_judgement")),
    f"CREATE TRIGGER adjudication_no_update BEFORE UPDATE OF {_ADJUDICATION_GUARDED} ON adjudication "
    "FOR EACH ROW EXECUTE FUNCTION workbench_append_only()",
    *(f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
      "FOR EACH ROW EXECUTE FUNCTION workbench_append_only()"
      for table in ("audit_event", "label_history", "adjudication", "agreement_judgement")),
    "CREATE TRIGGER replay_run_owner_insert AFTER INSERT ON replay_run FOR EACH ROW "
    "WHEN (NEW.status = 'running') EXECUTE FUNCTION workbench_record_run_owner()",
)

