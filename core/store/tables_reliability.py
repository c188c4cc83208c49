"""SQLModel table class for schema step 6 (``migrations_reliability.py``); mirrors its DDL."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class ReplayRunOwnerRow(SQLModel, table=True):
    __tablename__ = "replay_run_owner"
    run_id: int = Field(primary_key=True, foreign_key="replay_run.id")
    owner: str
