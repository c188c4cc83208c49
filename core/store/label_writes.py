"""The SQL of the label write path, run inside the caller's transaction (no policy here).

The label service (``core.labels.service``) opens one write session, reads what it needs with
the ``*_in`` readers below, checks its rules and writes with the ``write_*_in`` functions.
Every writer adds the history row (labels) and the audit event in the same session, so a label
or a ruling is never saved without its trail.
"""

from __future__ import annotations

import json

from sqlalchemy import text as sql
from sqlmodel import Session, col, select

from core.domain.labels import Adjudication, Label, LabelText, TrajectoryKey
from core.store.label_rows import KEY_SQL, adjudication_of, current_adjudication_row, key_of_row, label_of, text_of
from core.store.review_repo import append_audit
from core.store.tables_labels import AdjudicationRow, LabelHistoryRow, LabelRow
from core.timeutil import utc_now


# -- reads inside a transaction ------------------------------------------------------------------
def trajectory_key_in(session: Session, trajectory_pk: int) -> TrajectoryKey | None:
    row = session.execute(sql(KEY_SQL + " WHERE t.id = :pk"), {"pk": trajectory_pk}).mappings().first()
    return None if row is None else key_of_row(row)


def stored_label_in(session: Session, trajectory_pk: int, reviewer: str, current_hash: str) -> tuple[Label, str] | None:
    """The reviewer's label of a trajectory and its stored content hash; None if there is none."""
    row = _label_row(session, trajectory_pk, reviewer)
    return None if row is None else (label_of(row, current_hash), row.content_hash)


def matching_label_in(session: Session, trajectory_pk: int | None, key: TrajectoryKey,
                      reviewer: str) -> tuple[Label, str] | None:
    """An incoming label's counterpart here: by trajectory, or (unattached) by the key's identity."""
    query = select(LabelRow).where(LabelRow.reviewer == reviewer)
    if trajectory_pk is not None:
        query = query.where(LabelRow.trajectory_pk == trajectory_pk)
    else:
        query = query.where(
            col(LabelRow.trajectory_pk).is_(None), LabelRow.corpus == key.corpus, LabelRow.file == key.file,
            LabelRow.trajectory_id == key.trajectory_id, LabelRow.record_hash == key.record_hash,
        )
    row = session.exec(query).first()
    return None if row is None else (label_of(row), row.content_hash)


def ruling_in_force_in(session: Session, trajectory_pk: int | None,
                       key: TrajectoryKey) -> tuple[Adjudication, str] | None:
    """The adjudication in force (the newest) and its content hash: of the trajectory, or, for a
    trajectory this store does not have, of an unattached ruling with the key's identity."""
    row = current_adjudication_row(session, trajectory_pk)
    if row is None and trajectory_pk is None:
        row = session.exec(
            select(AdjudicationRow).where(
                col(AdjudicationRow.trajectory_pk).is_(None), AdjudicationRow.corpus == key.corpus,
                AdjudicationRow.file == key.file, AdjudicationRow.trajectory_id == key.trajectory_id,
                AdjudicationRow.record_hash == key.record_hash,
            ).order_by(col(AdjudicationRow.created_at).desc())
        ).first()
    return None if row is None else (adjudication_of(row), row.content_hash)


# -- labels ------------------------------------------------------------------------------------
def write_label_in(session: Session, trajectory_pk: int, key: TrajectoryKey, reviewer: str, text: LabelText,
                   action: str, reason: str | None) -> Label:
    """Insert or update the reviewer's label (``text`` normalised), its history row and audit event."""
    now = utc_now()
    row = _label_row(session, trajectory_pk, reviewer)
    before = None if row is None else text_of(row)
    if row is None:
        row = _new_label_row(trajectory_pk, key, reviewer, text, "local", now, now)
        session.add(row)
    else:
        row.trigger, row.directive, row.note = text.trigger, text.directive, text.note
        row.variants_json = json.dumps(list(text.variants))
        row.content_hash, row.updated_at = text.content_hash(), now
        row.line, row.record_hash = key.line, key.record_hash
    session.flush()
    assert row.id is not None
    _history(session, row.id, reviewer, action, before, text, reason, now)
    append_audit(session, reviewer, f"label_{action}", "trajectory", trajectory_pk, reason,
                 before=None if before is None else before.to_dict(), after=text.to_dict())
    return label_of(row, key.record_hash)


def write_imported_label_in(session: Session, trajectory_pk: int | None, key: TrajectoryKey, reviewer: str,
                            text: LabelText, created_at: str, updated_at: str, origin: str, importer: str) -> Label:
    row = _new_label_row(trajectory_pk, key, reviewer, text, origin, created_at, updated_at)
    session.add(row)
    session.flush()
    assert row.id is not None
    _history(session, row.id, importer, "import", None, text, f"{origin} ({reviewer}'s label)", utc_now())
    append_audit(session, importer, "label_import", "trajectory", trajectory_pk or key.to_json(), origin,
                 after=dict(text.to_dict(), reviewer=reviewer))
    return label_of(row)


# -- adjudications -----------------------------------------------------------------------------
def write_ruling_in(session: Session, trajectory_pk: int, key: TrajectoryKey, lead: str, text: LabelText,
                    reason: str, chosen_reviewer: str | None, before: Adjudication | None) -> Adjudication:
    """A lead's ruling and its audit event (``before``: the ruling it replaces in force)."""
    row = _new_ruling_row(trajectory_pk, key, lead, chosen_reviewer, text, reason, "local", utc_now())
    session.add(row)
    session.flush()
    append_audit(
        session, lead, "adjudicate", "trajectory", trajectory_pk, reason,
        before=None if before is None else dict(before.text.to_dict(), lead=before.lead),
        after=dict(text.to_dict(), chosen_reviewer=chosen_reviewer),
    )
    return adjudication_of(row)


def write_imported_ruling_in(session: Session, trajectory_pk: int | None, key: TrajectoryKey, lead: str,
                             chosen_reviewer: str | None, text: LabelText, reason: str, created_at: str, origin: str,
                             importer: str) -> Adjudication:
    row = _new_ruling_row(trajectory_pk, key, lead, chosen_reviewer, text, reason, origin, created_at)
    session.add(row)
    session.flush()
    append_audit(session, importer, "adjudication_import", "trajectory", trajectory_pk or key.to_json(),
                 reason, after=dict(text.to_dict(), lead=lead))
    return adjudication_of(row)


# -- rows --------------------------------------------------------------------------------------
def _label_row(session: Session, trajectory_pk: int, reviewer: str) -> LabelRow | None:
    return session.exec(
        select(LabelRow).where(LabelRow.trajectory_pk == trajectory_pk, LabelRow.reviewer == reviewer)
    ).first()


def _new_label_row(trajectory_pk: int | None, key: TrajectoryKey, reviewer: str, text: LabelText, origin: str,
                   created_at: str, updated_at: str) -> LabelRow:
    return LabelRow(
        trajectory_pk=trajectory_pk, corpus=key.corpus, file=key.file, line=key.line,
        trajectory_id=key.trajectory_id, record_hash=key.record_hash, reviewer=reviewer,
        trigger=text.trigger, directive=text.directive, variants_json=json.dumps(list(text.variants)),
        note=text.note, content_hash=text.content_hash(), origin=origin, created_at=created_at, updated_at=updated_at,
    )


def _new_ruling_row(trajectory_pk: int | None, key: TrajectoryKey, lead: str, chosen_reviewer: str | None,
                    text: LabelText, reason: str, origin: str, created_at: str) -> AdjudicationRow:
    return AdjudicationRow(
        trajectory_pk=trajectory_pk, corpus=key.corpus, file=key.file, line=key.line,
        trajectory_id=key.trajectory_id, record_hash=key.record_hash, lead=lead, chosen_reviewer=chosen_reviewer,
        trigger=text.trigger, directive=text.directive, variants_json=json.dumps(list(text.variants)),
        note=text.note, reason=reason, content_hash=text.content_hash(), origin=origin, created_at=created_at,
    )


def _history(session: Session, label_id: int, actor: str, action: str, before: LabelText | None, after: LabelText,
             reason: str | None, at: str) -> None:
    session.add(LabelHistoryRow(
        label_id=label_id, actor=actor, action=action, at=at,
        before_json=None if before is None else json.dumps(before.to_dict(), ensure_ascii=False),
        after_json=json.dumps(after.to_dict(), ensure_ascii=False), reason=reason,
    ))
