"""SQLModel table classes for labels and agreement (created by legacy step 4, ``migrations_labels.py``).

Like ``tables.py`` these are the schema; ORM rows never leave ``label_repo`` / ``agreement_repo``.
"""

from __future__ import annotations

from typing import Optional

from sqlalchemy import Index
from sqlmodel import Field, SQLModel


class LabelRow(SQLModel, table=True):
    __tablename__ = "label"
    __table_args__ = (
        Index("ix_label_key", "corpus", "file", "trajectory_id"),
        Index("ix_label_reviewer", "reviewer"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    trajectory_pk: Optional[int] = Field(default=None, foreign_key="trajectory.id")
    corpus: str
    file: str
    line: int
    trajectory_id: str
    record_hash: str
    reviewer: str
    trigger: str
    directive: str
    variants_json: str = "[]"
    note: Optional[str] = None
    content_hash: str
    origin: str = "local"
    created_at: str
    updated_at: str


class LabelHistoryRow(SQLModel, table=True):
    __tablename__ = "label_history"
    __table_args__ = (
        Index("ix_label_history_label", "label_id"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    label_id: int = Field(foreign_key="label.id")
    actor: str
    action: str
    at: str
    before_json: Optional[str] = None
    after_json: str
    reason: Optional[str] = None


class AdjudicationRow(SQLModel, table=True):
    __tablename__ = "adjudication"
    __table_args__ = (
        Index("ix_adjudication_trajectory", "trajectory_pk"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    trajectory_pk: Optional[int] = Field(default=None, foreign_key="trajectory.id")
    corpus: str
    file: str
    line: int
    trajectory_id: str
    record_hash: str
    lead: str
    chosen_reviewer: Optional[str] = None
    trigger: str
    directive: str
    variants_json: str = "[]"
    note: Optional[str] = None
    reason: str
    content_hash: str
    origin: str = "local"
    created_at: str


class AgreementSessionRow(SQLModel, table=True):
    __tablename__ = "agreement_session"
    __table_args__ = (
        Index("ix_session_run", "run_id"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    uid: str
    name: Optional[str] = None
    run_id: Optional[int] = Field(default=None, foreign_key="replay_run.id")
    run_profile: Optional[str] = None
    run_config_hash: Optional[str] = None
    run_corpus_hash: Optional[str] = None
    seed: int
    target_half_width: Optional[float] = None
    assumed_p: float
    size: int
    blind: bool = True
    allocation: str
    min_per_stratum: int
    gate: float = 0.8
    strata_json: str
    created_by: str
    origin: str = "local"
    created_at: str
    question: str = "firing_scope"  # schema step 7; sessions made before are "single"
    # Revision 0004_assignments: reviewers per item when a lead assigned the items (None: everyone judges all).
    assigned_per_item: Optional[int] = None


class AgreementItemRow(SQLModel, table=True):
    __tablename__ = "agreement_item"
    id: Optional[int] = Field(default=None, primary_key=True)
    session_id: int = Field(foreign_key="agreement_session.id")
    ordinal: int
    kind: str
    result_id: Optional[int] = Field(default=None, foreign_key="replay_result.id")
    rule_origin: str
    rule_version: Optional[int] = None
    trigger: str
    directive: str
    trajectory_pk: Optional[int] = Field(default=None, foreign_key="trajectory.id")
    trajectory_key_json: Optional[str] = None
    stratum: str
    replay_answer: str
    scope_replay: Optional[str] = None  # schema step 7
    rule_pool: Optional[str] = None


class AgreementJudgementRow(SQLModel, table=True):
    __tablename__ = "agreement_judgement"
    __table_args__ = (
        Index("ix_judgement_reviewer", "reviewer"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key="agreement_item.id")
    reviewer: str
    answer: str
    rubric_json: Optional[str] = None
    note: Optional[str] = None
    origin: str = "local"
    committed_at: str
    scope: Optional[str] = None  # schema step 7


class AgreementAssignmentRow(SQLModel, table=True):
    """Item ``ordinal`` of a session is assigned to ``reviewer`` (revision 0004_assignments)."""

    __tablename__ = "agreement_assignment"
    __table_args__ = (
        Index("ix_assignment_unique", "session_id", "ordinal", "reviewer", unique=True),
        Index("ix_assignment_reviewer", "session_id", "reviewer"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    session_id: int = Field(foreign_key="agreement_session.id")
    ordinal: int
    reviewer: str
    assigned_by: str
    assigned_at: str
