"""SQLModel classes for the scale tables (created by legacy step 8, ``migrations_scale``).

``replay_outcome`` (``tables.ReplayOutcomeRow``) is a view from step 8 on: stored outcomes
live in ``replay_outcome_stored`` and each result's recall pool in ``replay_pool``, from
which the view derives the score-0 ``missed`` rows (the view is left out of the schema comparison,
``schema.VIEWS``). Writes use plain ``executemany``
(``replay_repo``); these classes document the columns and serve typed reads.
"""

from __future__ import annotations

from typing import Optional

from sqlalchemy import Index
from sqlmodel import Field, SQLModel


class ReplayOutcomeStoredRow(SQLModel, table=True):
    __tablename__ = "replay_outcome_stored"
    __table_args__ = (
        Index("ix_outcome_stored_pair", "result_id", "trajectory_pk"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    result_id: int = Field(foreign_key="replay_result.id")
    trajectory_pk: int = Field(foreign_key="trajectory.id")
    bucket: str
    score: float
    token_f1: Optional[float] = None
    bigram: Optional[float] = None
    cosine: Optional[float] = None
    view: Optional[str] = None
    floor: Optional[str] = None
    threshold: float
    margin: float
    spans_json: Optional[str] = None


class ReplayPoolRow(SQLModel, table=True):
    __tablename__ = "replay_pool"
    result_id: int = Field(primary_key=True, foreign_key="replay_result.id")
    domain: Optional[str] = None  # None: every trajectory of the run
    exclude_pk: Optional[int] = None
    exclude_tid: Optional[str] = None
    max_pk: int  # the run's largest trajectory key: later imports are not in its pools
    zero_view: Optional[str] = None
    zero_cosine: Optional[float] = None
    zero_margin: float
