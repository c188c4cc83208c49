"""SQLModel table class for replay run owners (created by legacy step 6, ``migrations_reliability.py``)."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class ReplayRunOwnerRow(SQLModel, table=True):
    __tablename__ = "replay_run_owner"
    run_id: int = Field(primary_key=True, foreign_key="replay_run.id")
    owner: str
