"""Row versions: a second reviewer's write never silently overwrites the first's.

A reviewer reads a rule (its ``row_version``), looks at the evidence, then decides. Another
reviewer may decide on, or edit, the same rule in between. Writes that name the version they
were based on (``expected``) go through only if the rule is still at that version: the check
and the increment are one ``UPDATE ... WHERE row_version = :expected`` inside the write
transaction, so it holds on both back ends and at any isolation level. A mismatch raises
:class:`ConcurrentChangeError` naming who changed the rule, how and when; the screen shows
it and the reviewer chooses (decide again on the new state, or leave it). Writes that name no
version (imports, the CLI, older callers) still count as changes.

Adjudications are append-only (the newest is in force), so their version is the id of the
adjudication in force: a lead's ruling names the one they saw (0: none) and a newer one
from another lead is a conflict (:func:`check_adjudication`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import CursorResult, text
from sqlmodel import Session

from core.domain.errors import ConcurrentChangeError

if TYPE_CHECKING:
    from core.store.engine import Store

__all__ = [
    "UNDO_RETIREMENT_REASON", "ConcurrentChangeError", "LastChange", "adjudication_in_force", "adjudications_in_force",
    "bump_rule", "check_adjudication", "last_rule_change", "rule_version", "rule_versions", "version_after_own_undo",
]


# The reason of the retirement an undone approval's standing rule gets (``core.decisions.undo``).
UNDO_RETIREMENT_REASON = "approval undone"


@dataclass(frozen=True)
class LastChange:
    by: str
    what: str
    at: str


def rule_version(session: Session, rule_id: int) -> int:
    value = session.execute(text("SELECT row_version FROM rule WHERE id = :id"), {"id": rule_id}).scalar_one_or_none()
    if value is None:
        raise LookupError(f"no rule {rule_id} in this store")
    return int(value)


def rule_versions(store: Store) -> dict[int, int]:
    """Every rule's row version (a screen reads these FIRST, before the rows it shows: a change
    made in between then looks like a conflict, never like a version already seen)."""
    with store.read_session() as session:
        return {int(r[0]): int(r[1]) for r in session.execute(text("SELECT id, row_version FROM rule")).all()}


def version_after_own_undo(store: Store, rule_id: int, reviewer: str) -> int | None:
    """The rule's version right after ``reviewer``'s undo, if nothing changed the rule since (else None).

    Undo writes no version of its own to return; this reads it back and accepts it only when
    the newest change of the rule is that undo (every change is a decision row, a text version or
    a retirement / supersession audit event), so a screen never takes on a version that hides
    another reviewer's change."""
    with store.read_session() as session:
        version = rule_version(session, rule_id)
        newest = session.execute(text(
            "SELECT reviewer, action, created_at FROM decision WHERE rule_id = :id ORDER BY id DESC LIMIT 1"),
            {"id": rule_id}).first()
        edited = session.execute(text("SELECT max(created_at) FROM rule_version WHERE rule_id = :id AND version > 1"),
                                 {"id": rule_id}).scalar_one_or_none()
        lifecycle = _lifecycle_row(session, rule_id)
    if newest is None or (str(newest[0]), str(newest[1])) != (reviewer, "undo"):
        return None
    # A retirement or supersession after the undo is a change too, unless it is the undo's own
    # retirement of the standing rule the undone approval made (same reviewer, same transaction).
    own_retirement = lifecycle is not None and (str(lifecycle[0]), str(lifecycle[1]), lifecycle[3]) == (
        reviewer, "retire", UNDO_RETIREMENT_REASON)
    if lifecycle is not None and str(lifecycle[4]) >= str(newest[2]) and not own_retirement:
        return None
    if edited is not None and str(edited) >= str(newest[2]):  # an edit at the same instant: cannot tell
        return None
    return version


def adjudication_in_force(store: Store, trajectory_pk: int) -> int:
    """The id of the trajectory's ruling in force (0: none): what a lead's ruling names as ``expected_current``."""
    with store.read_session() as session:
        return _ruling_in_force(session, trajectory_pk)


def adjudications_in_force(store: Store) -> dict[int, int]:
    """Every adjudicated trajectory's ruling in force (its id), read before a screen's other rows."""
    with store.read_session() as session:
        rows = session.execute(text(
            "SELECT trajectory_pk, id FROM adjudication WHERE trajectory_pk IS NOT NULL "
            "ORDER BY trajectory_pk, created_at, id")).all()
    return {int(r[0]): int(r[1]) for r in rows}  # the newest of each trajectory comes last


def _ruling_in_force(session: Session, trajectory_pk: int) -> int:
    value = session.execute(text(
        "SELECT id FROM adjudication WHERE trajectory_pk = :t ORDER BY created_at DESC, id DESC LIMIT 1"),
        {"t": trajectory_pk}).scalar_one_or_none()
    return 0 if value is None else int(value)


def last_rule_change(session: Session, rule_id: int) -> LastChange | None:
    """The newest decision on, or edit of, a rule: who, what (with the reason), when."""
    decision = session.execute(text(
        "SELECT reviewer, action, reason, created_at, id FROM decision WHERE rule_id = :id ORDER BY id DESC LIMIT 1"),
        {"id": rule_id}).first()
    edit = session.execute(text(
        "SELECT author, version, created_at FROM rule_version WHERE rule_id = :id ORDER BY version DESC LIMIT 1"),
        {"id": rule_id}).first()
    changes = []
    lifecycle = _last_lifecycle(session, rule_id)
    if decision is not None:
        reason = f" ({decision[2]})" if decision[2] else ""
        changes.append(LastChange(str(decision[0]), f"{decision[1]}{reason}", str(decision[3])))
    if edit is not None and int(edit[1]) > 1:
        changes.append(LastChange(str(edit[0]), f"edited the rule (version {edit[1]})", str(edit[2])))
    if lifecycle is not None:
        changes.append(lifecycle)
    return max(changes, key=lambda c: c.at) if changes else None


def _lifecycle_row(session: Session, rule_id: int) -> Any:
    """The newest retirement or supersession of one of the rule's standing rules (audit events:
    neither is a decision row nor a text version, yet each changes the rule's version)."""
    return session.execute(text(
        "SELECT a.actor, a.action, a.target_id, a.reason, a.at, a.after_json FROM audit_event a "
        "JOIN promotion p ON a.target_kind = 'promotion' AND a.target_id = p.standing_id "
        "WHERE p.rule_id = :id AND a.action IN ('retire', 'supersede') ORDER BY a.id DESC LIMIT 1"),
        {"id": rule_id}).first()


def _last_lifecycle(session: Session, rule_id: int) -> LastChange | None:
    row = _lifecycle_row(session, rule_id)
    if row is None:
        return None
    successor = (json.loads(row[5]) if row[5] else {}).get("superseded_by") if row[1] == "supersede" else None
    what = f"{row[1]}d {row[2]}" + (f" by {successor}" if successor else "") + (f" ({row[3]})" if row[3] else "")
    return LastChange(str(row[0]), what, str(row[4]))


def bump_rule(session: Session, rule_id: int, expected: int | None = None) -> int:
    """Count a change to the rule; with ``expected``, only if nobody changed it since. Returns the new version."""
    if expected is None:
        session.execute(text("UPDATE rule SET row_version = row_version + 1 WHERE id = :id"), {"id": rule_id})
        return rule_version(session, rule_id)
    # rowcount, not RETURNING: SQLite has RETURNING only since 3.35, older Pythons bundle older.
    updated = cast(CursorResult[Any], session.execute(
        text("UPDATE rule SET row_version = row_version + 1 WHERE id = :id AND row_version = :expected"),
        {"id": rule_id, "expected": expected})).rowcount
    if updated == 1:
        return expected + 1
    found = rule_version(session, rule_id)
    change = last_rule_change(session, rule_id)
    who = f"{change.by} {change.what} at {change.at}" if change else "another writer changed it"
    raise ConcurrentChangeError(
        f"rule {rule_id} changed after you opened it (version {expected}, now {found}): {who}. "
        "Nothing was saved; look at the rule again and decide.",
        kind="rule", key=rule_id, expected=expected, found=found,
        by=change.by if change else None, what=change.what if change else None, at=change.at if change else None)


def check_adjudication(session: Session, trajectory_pk: int, expected: int | None) -> None:
    """Refuse a ruling based on an adjudication that is no longer the one in force (``expected`` 0: none)."""
    if expected is None:
        return
    row = session.execute(text(
        "SELECT id, lead, trigger, directive, created_at FROM adjudication WHERE trajectory_pk = :t "
        "ORDER BY created_at DESC, id DESC LIMIT 1"), {"t": trajectory_pk}).first()
    found = 0 if row is None else int(row[0])
    if found == expected:
        return
    what = "" if row is None else f'ruled "{row[2]}" -> "{row[3]}"'
    raise ConcurrentChangeError(
        f"trajectory #{trajectory_pk} was adjudicated after you opened it: {row[1]} {what} at {row[4]}. "
        "Nothing was saved; read their ruling and choose." if row is not None else
        f"the adjudication of trajectory #{trajectory_pk} you saw is gone",
        kind="adjudication", key=trajectory_pk, expected=expected, found=found,
        by=None if row is None else str(row[1]), what=what or None, at=None if row is None else str(row[4]))
