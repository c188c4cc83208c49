"""SQLModel classes for the scale tables (``replay_pool``: legacy step 8, ``migrations_scale``;
``replay_outcome_block``: revision 0009; ``replay_side_cache``: revision 0010).

Each result's stored outcomes are one columnar block (``outcome_blocks``) and its recall
pool one ``replay_pool`` row, from which ``outcome_reads`` derives the score-0 ``missed``
rows. Writes use plain ``executemany`` (``result_writes``); these classes document the columns.
"""

from __future__ import annotations

from typing import Optional

from sqlalchemy import Column, ForeignKey, Index, Integer, LargeBinary, String
from sqlmodel import Field, SQLModel


class ReplayOutcomeBlockRow(SQLModel, table=True):
    __tablename__ = "replay_outcome_block"
    result_id: int = Field(
        sa_column=Column(Integer, ForeignKey("replay_result.id", ondelete="CASCADE"), primary_key=True,
                         autoincrement=False, nullable=False))
    n: int  # pairs in the block
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # core.store.outcome_blocks


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


class ReplaySideCacheRow(SQLModel, table=True):
    """A run's trajectory side (``core.replay.side_codec``), so a new process's first run on the
    same trajectories reads it instead of building it (``side_cache_repo``: a few entries at most)."""

    __tablename__ = "replay_side_cache"
    __table_args__ = (Index("ix_replay_side_cache_key", "cache_key", unique=True),)
    id: Optional[int] = Field(default=None, primary_key=True)  # write order: the oldest entries go first
    cache_key: str = Field(sa_column=Column(String(64), nullable=False))  # side_codec.side_key (sha256 hex)
    format: int  # side_codec.FORMAT_VERSION of the blob
    engine_version: str
    trajectories: int
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
