"""SQLModel table classes: the store's schema (with ``tables_*.py``).

These classes are the schema: Alembic revisions (``core.store.schema``) bring every store to
them, and a test checks that a new and an upgraded store equal them (``compare_metadata``).
A schema change is a change here plus a new revision. ORM objects never leave a
repository: repositories return DTOs (``dto.py``).
"""

from __future__ import annotations

from typing import Optional

from sqlalchemy import Index
from sqlmodel import Field, SQLModel


class CorpusRow(SQLModel, table=True):
    __tablename__ = "corpus"
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str
    role: str
    role_source: str
    created_at: str


class SourceFileRow(SQLModel, table=True):
    __tablename__ = "source_file"
    id: Optional[int] = Field(default=None, primary_key=True)
    corpus_id: int = Field(foreign_key="corpus.id")
    path: str
    kind: str
    content_hash: str
    size: int
    imported_at: str


class TrajectoryRow(SQLModel, table=True):
    __tablename__ = "trajectory"
    __table_args__ = (
        Index("ix_trajectory_corpus", "corpus_id"),
        Index("ix_trajectory_corpus_id", "corpus_id", "id"),
        Index("ix_trajectory_domain", "domain"),
        Index("ix_trajectory_domain_id", "domain", "id"),
        # SQLite only: a PostgreSQL b-tree entry cannot exceed ~2.7 KB, and expected_rule and
        # task are free text of any length (revision 0008 drops these two there).
        Index("ix_trajectory_expected_rule", "expected_rule", "id").ddl_if(dialect="sqlite"),
        Index("ix_trajectory_failure_class", "failure_class", "id"),
        Index("ix_trajectory_file_line", "file_id", "line"),
        Index("ix_trajectory_success", "success", "id"),
        Index("ix_trajectory_tid", "trajectory_id"),
        Index("ix_trajectory_tid_id", "trajectory_id", "id"),
        # Covers the trajectory table's text filter and its other filters: the filter scans
        # this (a few MB at 10^5 rows) instead of the table's records (hundreds of MB).
        Index("ix_trajectory_search", "success", "corpus_id", "domain", "failure_class", "trajectory_id", "task",
              "expected_rule").ddl_if(dialect="sqlite"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    corpus_id: int = Field(foreign_key="corpus.id")
    file_id: int = Field(foreign_key="source_file.id")
    line: int
    end_line: int
    trajectory_id: str
    success: bool
    domain: Optional[str] = None
    failure_class: Optional[str] = None
    failure_point: Optional[str] = None
    task: str
    expected_outcome: Optional[str] = None
    expected_rule: Optional[str] = None
    role: Optional[str] = None
    raw_text: str
    record_json: str
    content_hash: str


class RuleRow(SQLModel, table=True):
    __tablename__ = "rule"
    id: Optional[int] = Field(default=None, primary_key=True)
    corpus_id: Optional[int] = Field(default=None, foreign_key="corpus.id")
    file_id: Optional[int] = Field(default=None, foreign_key="source_file.id")
    origin: str
    kind: str
    rule_ref: Optional[str] = None
    status: Optional[str] = None
    source_trajectory: Optional[str] = None
    source_trajectory_pk: Optional[int] = Field(default=None, foreign_key="trajectory.id")
    domain: Optional[str] = None
    raw_text: Optional[str] = None
    data_json: Optional[str] = None
    content_hash: str
    created_at: str
    # Optimistic concurrency between reviewers (revision 0003_team, core/store/row_versions.py).
    row_version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class RuleVersionRow(SQLModel, table=True):
    __tablename__ = "rule_version"
    __table_args__ = (
        Index("ix_rule_version_rule", "rule_id", "version"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    rule_id: int = Field(foreign_key="rule.id")
    version: int
    trigger: str
    context_json: str
    signature: Optional[str] = None
    directive: str
    because: Optional[str] = None
    confidence: Optional[float] = None
    author: str
    note: Optional[str] = None
    created_at: str
    # core.store.duplicate_key.duplicate_key_hash(trigger, directive): groups duplicates in SQL.
    dup_key: Optional[str] = None


class ImportReportRow(SQLModel, table=True):
    __tablename__ = "import_report"
    id: Optional[int] = Field(default=None, primary_key=True)
    started_at: str
    finished_at: Optional[str] = None
    roots_json: str
    summary_json: Optional[str] = None


class ImportIssueRow(SQLModel, table=True):
    __tablename__ = "import_issue"
    id: Optional[int] = Field(default=None, primary_key=True)
    report_id: int = Field(foreign_key="import_report.id")
    corpus: Optional[str] = None
    file: str
    line: Optional[int] = None
    field: Optional[str] = None
    reason: str


class AuditEventRow(SQLModel, table=True):
    __tablename__ = "audit_event"
    __table_args__ = (
        Index("ix_audit_target", "target_kind", "target_id"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    at: str
    actor: str
    action: str
    target_kind: str
    target_id: str
    reason: Optional[str] = None
    before_json: Optional[str] = None
    after_json: Optional[str] = None
    run_id: Optional[int] = None


class SettingRow(SQLModel, table=True):
    __tablename__ = "setting"
    key: str = Field(primary_key=True)
    value_json: str


class ReplayRunRow(SQLModel, table=True):
    __tablename__ = "replay_run"
    __table_args__ = (
        Index("ix_run_status", "status", "id"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    started_at: str
    finished_at: Optional[str] = None
    status: str
    profile: str
    config_json: str
    config_hash: str
    corpus_hash: str
    model_id: Optional[str] = None
    semantic_state: str
    pairs: int = 0
    seconds: Optional[float] = None
    scope: Optional[str] = None
    started_by: Optional[str] = None  # the login (team store; set by the server), NULL on a file


class ReplayResultRow(SQLModel, table=True):
    __tablename__ = "replay_result"
    __table_args__ = (
        Index("ix_result_run", "run_id", "rule_version_id"),
        Index("ix_result_version", "rule_version_id"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="replay_run.id")
    rule_version_id: int = Field(foreign_key="rule_version.id")
    verdict: str
    reason: str
    threshold: float
    prevented_n: int
    broken_n: int
    near_miss_n: int
    missed_n: int
    precision: Optional[float] = None
    precision_lo: Optional[float] = None
    precision_hi: Optional[float] = None
    recall: Optional[float] = None
    recall_lo: Optional[float] = None
    recall_hi: Optional[float] = None
    recall_pool_json: str
    precision_pool_json: str
    attribution: Optional[str] = None


class EmbeddingRow(SQLModel, table=True):
    __tablename__ = "embedding"
    model_id: str = Field(primary_key=True)
    text_hash: str = Field(primary_key=True)
    dim: int
    vector: bytes


class DecisionRow(SQLModel, table=True):
    __tablename__ = "decision"
    __table_args__ = (
        Index("ix_decision_rule", "rule_id"),
        Index("ix_decision_rule_id", "rule_id", "id"),
        Index("ix_decision_undoes", "undoes_id"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    rule_id: int = Field(foreign_key="rule.id")
    rule_version_id: int = Field(foreign_key="rule_version.id")
    run_id: Optional[int] = Field(default=None, foreign_key="replay_run.id")
    reviewer: str
    action: str
    reason: Optional[str] = None
    evidence_json: Optional[str] = None
    undoes_id: Optional[int] = Field(default=None, foreign_key="decision.id")
    created_at: str


class EvidenceViewRow(SQLModel, table=True):
    __tablename__ = "evidence_view"
    __table_args__ = (
        Index("ix_evidence_view_result", "result_id", "reviewer"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    reviewer: str
    result_id: int = Field(foreign_key="replay_result.id")
    trajectory_pk: int = Field(foreign_key="trajectory.id")
    viewed_at: str


class WaiverRow(SQLModel, table=True):
    __tablename__ = "waiver"
    __table_args__ = (
        Index("ix_waiver_result", "result_id", "reviewer"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    reviewer: str
    result_id: int = Field(foreign_key="replay_result.id")
    trajectory_pk: int = Field(foreign_key="trajectory.id")
    reason: str
    created_at: str


class AgreementMarkRow(SQLModel, table=True):
    __tablename__ = "agreement_mark"
    __table_args__ = (
        Index("ix_mark_result", "result_id", "reviewer"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    reviewer: str
    result_id: int = Field(foreign_key="replay_result.id")
    trajectory_pk: Optional[int] = Field(default=None, foreign_key="trajectory.id")
    replay_answer: str
    mark: str
    blinded: bool
    session_id: Optional[int] = None
    created_at: str


# Table classes owned by other modules, registered with the same metadata.
from core.store import (  # noqa: E402,F401
    tables_labels,
    tables_profiles,
    tables_promotion,
    tables_reliability,
    tables_scale,
)
