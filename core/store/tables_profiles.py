"""SQLModel classes for the team's replay profiles (revision ``0012_lab_profiles``; docs/lab.md, "Adoption").

``replay_profile``: one row per version of a named profile, written once and never changed:
every ``ReplayProfile`` field as JSON (``core.replay.profile_codec``), the lab report it was
chosen from and the setting's name there, the split, whether it was tuned on all data, who
made it and when. ``profile_adoption``: append-only; its newest row names the store's adopted
profile (a built-in's name, or ``name@version``). No row: the built-in default (``workbench``).
Both are a lead's writes on a team store (``core.team.table_policy``).
"""

from __future__ import annotations

from typing import Optional

from sqlalchemy import Index
from sqlmodel import Field, SQLModel


class ReplayProfileRow(SQLModel, table=True):
    __tablename__ = "replay_profile"
    __table_args__ = (Index("ix_replay_profile_name_version", "name", "version", unique=True),)
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str
    version: int
    profile_json: str
    lab_report_json: Optional[str] = None
    lab_setting: Optional[str] = None
    split_json: Optional[str] = None
    tuned_on_all_data: bool
    created_by: str
    created_at: str
    note: Optional[str] = None


class ProfileAdoptionRow(SQLModel, table=True):
    __tablename__ = "profile_adoption"
    id: Optional[int] = Field(default=None, primary_key=True)
    profile: str  # "workbench", "reference-0.3.1" or "name@version"
    adopted_by: str
    adopted_at: str
    reason: Optional[str] = None
