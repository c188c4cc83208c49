"""The store's replay profiles: named versions, and which one the team adopted (docs/lab.md, "Adoption").

A profile is named by a *label*: a built-in's name (``workbench``, ``reference-0.3.1``; they
live in code and never change), ``name@version`` for one stored version, or a stored name
alone for its newest version. The adopted profile is what a replay runs when none is named;
until a team adopts one it is ``lab-2026-12``, the profile the calibration lab chose on the shared
corpus (``core.replay.profiles.LAB_2026_12``; before it, ``workbench``).

Adopting is a lead's action on a team store: refused here in one line before anything is
written (``may_adopt``), and by the server's row-level policies (``core.team.table_policy``).
Every adoption is an append-only row plus an audit event; a stored version is never changed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text

from core.domain.errors import DomainError
from core.replay.profile_codec import profile_from_dict, profile_to_dict
from core.replay.profiles import LAB_2026_12, PROFILES, ReplayProfile
from core.store.engine import Store
from core.store.review_repo import append_audit
from core.store.tables_profiles import ProfileAdoptionRow, ReplayProfileRow
from core.timeutil import utc_now

DEFAULT_PROFILE = LAB_2026_12.name
# Every column but the (possibly large) lab report, and whether there is one.
_COLUMNS = ("name, version, profile_json, lab_setting, split_json, tuned_on_all_data, created_by, created_at, note, "
            "CASE WHEN lab_report_json IS NULL THEN 0 ELSE 1 END AS has_report")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")


class UnknownProfile(DomainError, LookupError):
    """No profile with that label in this store."""


class ProfileRefused(DomainError, PermissionError):
    """The profile may not be written: a built-in's name, a bad name, or not a lead."""


@dataclass(frozen=True)
class StoredProfile:
    label: str  # what a run records and a command names: "workbench" or "name@version"
    name: str
    version: int | None  # None: a built-in
    profile: ReplayProfile
    lab_setting: str | None = None
    split: dict[str, Any] | None = None
    tuned_on_all_data: bool = False
    has_report: bool = False
    created_by: str | None = None
    created_at: str | None = None
    note: str | None = None

    @property
    def builtin(self) -> bool:
        return self.version is None

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "name": self.name, "version": self.version, "builtin": self.builtin,
                "lab_setting": self.lab_setting, "split": self.split, "tuned_on_all_data": self.tuned_on_all_data,
                "has_report": self.has_report, "created_by": self.created_by, "created_at": self.created_at,
                "note": self.note, "profile": profile_to_dict(self.profile)}


def split_label(label: str) -> tuple[str, int | None]:
    """``"team@2"`` -> ``("team", 2)``; ``"team"`` -> ``("team", None)``."""
    name, at, version = label.strip().partition("@")
    if not at:
        return name, None
    if not version.isdigit() or int(version) < 1:
        raise UnknownProfile(f"profile {label!r}: the version after '@' must be a whole number from 1")
    return name, int(version)


def _builtin(name: str) -> StoredProfile:
    return StoredProfile(label=name, name=name, version=None, profile=PROFILES[name])


class ProfileRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    # -- reading ------------------------------------------------------------------------
    def list_profiles(self) -> list[StoredProfile]:
        """Built-ins first, then every stored version (by name, then version)."""
        with self._store.read_session() as session:
            rows = session.execute(text(f"SELECT {_COLUMNS} FROM replay_profile ORDER BY name, version")).mappings().all()
        return [_builtin(n) for n in PROFILES] + [_stored(row) for row in rows]

    def get(self, label: str) -> StoredProfile:
        name, version = split_label(label)
        if name in PROFILES:
            if version not in (None, 1):
                raise UnknownProfile(f"profile {label!r}: {name} is built in and has no other version")
            return _builtin(name)
        query = f"SELECT {_COLUMNS} FROM replay_profile WHERE name = :name"
        query += " AND version = :version" if version is not None else " ORDER BY version DESC LIMIT 1"
        with self._store.read_session() as session:
            row = session.execute(text(query), {"name": name, "version": version}).mappings().first()
        if row is None:
            known = ", ".join(sorted({p.label for p in self.list_profiles()}))
            raise UnknownProfile(f"no profile {label!r} in this store; known: {known}")
        return _stored(row)

    def resolve(self, label: str) -> ReplayProfile:
        """The replay profile a label names, its ``name`` being the exact label a run records."""
        return self.get(label).profile

    def lab_report(self, label: str) -> dict[str, Any] | None:
        found = self.get(label)
        if found.builtin:
            return None
        with self._store.read_session() as session:
            raw = session.execute(text("SELECT lab_report_json FROM replay_profile WHERE name = :n AND version = :v"),
                                  {"n": found.name, "v": found.version}).scalar()
        return None if raw is None else dict(json.loads(raw))

    def adopted_label(self) -> str:
        """The label of the adopted profile (``workbench`` until a team adopts one)."""
        return self.adoption_in_force() or DEFAULT_PROFILE

    def adoption_in_force(self) -> str | None:
        """The label the team adopted last; None when no one ever adopted a profile in this store."""
        with self._store.read_session() as session:
            value = session.execute(text("SELECT profile FROM profile_adoption ORDER BY id DESC LIMIT 1")).scalar()
        return str(value) if value else None

    def adopted(self) -> ReplayProfile:
        return self.resolve(self.adopted_label())

    def adoptions(self) -> list[dict[str, Any]]:
        with self._store.read_session() as session:
            rows = session.execute(text("SELECT * FROM profile_adoption ORDER BY id")).mappings().all()
        return [dict(r) for r in rows]

    # -- writing (a lead's) -------------------------------------------------------------
    def may_adopt(self) -> bool:
        """SQLite, or PostgreSQL without the team roles: anyone who may write the store. A team
        store: members of the ``lead`` role (and the database's superuser)."""
        if not self._store.is_postgres:
            return True
        with self._store.read_session() as session:
            return bool(session.execute(text(
                "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lead') THEN true "
                "ELSE pg_has_role(session_user, 'lead', 'MEMBER') OR "
                "(SELECT rolsuper FROM pg_roles WHERE rolname = session_user) END")).scalar())

    def add(
        self, name: str, profile: ReplayProfile, actor: str, *, lab_report: dict[str, Any] | None = None,
        lab_setting: str | None = None, split: dict[str, Any] | None = None, tuned_on_all_data: bool = False,
        note: str | None = None, adopt: bool = True,
    ) -> StoredProfile:
        """Store ``profile`` as the next version of ``name``; adopt it too unless ``adopt`` is False."""
        self._check_name(name)
        actor = self._actor(actor)
        with self._store.session() as session:
            latest = session.execute(text("SELECT max(version) FROM replay_profile WHERE name = :n"),
                                     {"n": name}).scalar()
            version = int(latest or 0) + 1
            label = f"{name}@{version}"
            stored = profile.with_(name=label)
            row = ReplayProfileRow(
                name=name, version=version, profile_json=json.dumps(profile_to_dict(stored), sort_keys=True),
                lab_report_json=None if lab_report is None else json.dumps(lab_report),
                lab_setting=lab_setting, split_json=None if split is None else json.dumps(split, sort_keys=True),
                tuned_on_all_data=tuned_on_all_data, created_by=actor, created_at=utc_now(), note=note)
            session.add(row)
            session.flush()
            if adopt:
                self._adopt_in(session, label, actor, note)
        return self.get(label)

    def adopt(self, label: str, actor: str, reason: str | None = None) -> StoredProfile:
        """Make an existing profile (a built-in or a stored version) the adopted one."""
        found = self.get(label)  # raises for an unknown label; "team" alone means its newest version
        actor = self._actor(actor)
        with self._store.session() as session:
            self._adopt_in(session, found.label, actor, reason)
        return found

    def _adopt_in(self, session: Any, label: str, actor: str, reason: str | None) -> None:
        before = session.execute(text("SELECT profile FROM profile_adoption ORDER BY id DESC LIMIT 1")).scalar()
        session.add(ProfileAdoptionRow(profile=label, adopted_by=actor, adopted_at=utc_now(), reason=reason))
        append_audit(session, actor, "adopt_profile", "replay_profile", label, reason=reason,
                     before={"adopted": before or DEFAULT_PROFILE}, after={"adopted": label})

    def _check_name(self, name: str) -> None:
        if name in PROFILES:
            raise ProfileRefused(f"{name} is a built-in profile and cannot be changed; choose another name")
        if not _NAME.match(name):
            raise ProfileRefused("a profile name is 1-63 letters, digits, '.', '_' or '-', starting with a letter "
                                 "or digit (no '@': the version is added)")

    def _actor(self, actor: str) -> str:
        if not self.may_adopt():
            raise ProfileRefused("only a lead may adopt a replay profile on a team store")
        login = self._store.login()
        return login if login is not None else actor


def _stored(row: Any) -> StoredProfile:
    label = f"{row['name']}@{row['version']}"
    return StoredProfile(
        label=label, name=row["name"], version=int(row["version"]),
        profile=profile_from_dict(json.loads(row["profile_json"]), name=label),
        lab_setting=row["lab_setting"], split=None if row["split_json"] is None else json.loads(row["split_json"]),
        tuned_on_all_data=bool(row["tuned_on_all_data"]), has_report=bool(row["has_report"]),
        created_by=row["created_by"], created_at=row["created_at"], note=row["note"])


def resolve_profile(store: Store, label: str) -> ReplayProfile:
    """What a run's recorded profile label names (built-ins without touching the store)."""
    if label in PROFILES:
        return PROFILES[label]
    return ProfileRepository(store).resolve(label)
