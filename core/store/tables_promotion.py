"""SQLModel table classes for promotions (created by legacy step 5, ``migrations_promotion.py``)."""

from __future__ import annotations

from typing import Optional

from sqlalchemy import Index
from sqlmodel import Field, SQLModel


class PromotionRow(SQLModel, table=True):
    __tablename__ = "promotion"
    __table_args__ = (
        Index("ix_promotion_rule", "rule_id"),
        Index("ix_promotion_status", "status"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    rule_id: int = Field(foreign_key="rule.id")
    rule_version_id: int = Field(foreign_key="rule_version.id")
    decision_id: Optional[int] = Field(default=None, foreign_key="decision.id")
    standing_id: str
    status: str
    superseded_by: Optional[str] = None
    status_reason: Optional[str] = None
    provenance_json: str
    evidence_json: str
    created_at: str
    updated_at: str


class IdCounterRow(SQLModel, table=True):
    __tablename__ = "id_counter"
    name: str = Field(primary_key=True)
    next_value: int
