"""The label service: every write of a ground-truth label or a ruling, with its rules.

Each function is one write transaction; its rules are checked once, inside it, before the
store (``core.store.label_writes``, plain SQL) writes the row, its history and its audit event:

* a label needs a reviewer and a trajectory this store has (``UnknownTrajectory``); on a team
  store the database also refuses a label written under another reviewer's name (row-level
  security, see docs/team.md);
* saving the text already stored writes nothing (autosave calls ``save_label`` on every pause);
  the same words on a record that changed since are a ``reconfirm`` (the history says so);
* a ruling needs a lead and a written reason (``ReasonRequired``); a ruling that takes a
  reviewer's label needs that label to exist; a ruling based on a ruling no longer in force is
  refused (``ConcurrentChangeError``, ``expected_current``: the id of the one the lead saw, 0: none);
* a merged label or ruling never overwrites: the same reviewer's other words here (or another
  ruling in force) is a ``conflict``, reported, and nothing is written;
* a merged label or ruling whose key is longer than the store indexes (``core.corpus.limits``)
  is refused with the field and the limit (``ValueError``) before any database sees it. The team
  merge screens its file first and reports such entries by line (``core.agreement.merge_keys``);
  this is the same check for any other caller.
"""

from __future__ import annotations

from core.corpus.limits import MAX_KEY_BYTES, MAX_PATH_BYTES, text_oversize
from core.domain.errors import ReasonRequired, UnknownTrajectory
from core.domain.labels import Adjudication, Label, LabelText, SaveResult, TrajectoryKey
from core.domain.names import checked_name, checked_reason
from core.store.engine import Store
from core.store.label_writes import (
    matching_label_in,
    ruling_in_force_in,
    stored_label_in,
    trajectory_key_in,
    write_imported_label_in,
    write_imported_ruling_in,
    write_label_in,
    write_ruling_in,
)
from core.store.row_versions import check_adjudication

__all__ = ["adjudicate", "import_adjudication", "import_label", "save_label"]


def save_label(store: Store, trajectory_pk: int, reviewer: str, text: LabelText, reason: str | None = None) -> SaveResult:
    """Save ``reviewer``'s label for a trajectory; identical text is a no-op (``changed`` False)."""
    reviewer = checked_name(reviewer)
    reason = checked_reason(reason)
    if not reviewer:
        raise ValueError("a label needs a reviewer")
    new = text.normalised()
    with store.session() as session:
        key = trajectory_key_in(session, trajectory_pk)
        if key is None:
            raise UnknownTrajectory(f"no trajectory #{trajectory_pk} in {store.path}")
        stored = stored_label_in(session, trajectory_pk, reviewer, key.record_hash)
        if stored is not None and stored[1] == new.content_hash() and stored[0].key.record_hash == key.record_hash:
            return SaveResult(stored[0], changed=False)
        # Same words on a record that changed since: the reviewer confirms them for it.
        action = "reconfirm" if stored is not None and stored[1] == new.content_hash() else "save"
        return SaveResult(write_label_in(session, trajectory_pk, key, reviewer, new, action, reason), changed=True)


def adjudicate(
    store: Store, trajectory_pk: int, lead: str, text: LabelText | None, reason: str,
    chosen_reviewer: str | None = None, expected_current: int | None = None,
) -> Adjudication:
    """A lead's ruling: ``text`` the lead wrote, or (``text`` None) ``chosen_reviewer``'s label as it
    is when the ruling is written. It becomes the ground truth; every label stays in the history."""
    lead = checked_name(lead, "lead name")
    if chosen_reviewer is not None:
        chosen_reviewer = checked_name(chosen_reviewer)
    if not lead:
        raise ValueError("an adjudication needs a lead")
    reason = checked_reason(reason) or ""
    if not reason:
        raise ReasonRequired("an adjudication needs a reason")
    with store.session() as session:
        key = trajectory_key_in(session, trajectory_pk)
        if key is None:
            raise UnknownTrajectory(f"no trajectory #{trajectory_pk} in {store.path}")
        if text is None:
            chosen = None if chosen_reviewer is None else stored_label_in(session, trajectory_pk, chosen_reviewer,
                                                                          key.record_hash)
            if chosen is None:
                raise LookupError(f"{chosen_reviewer} has no label for trajectory #{trajectory_pk}")
            text = chosen[0].text
        check_adjudication(session, trajectory_pk, expected_current)
        before = ruling_in_force_in(session, trajectory_pk, key)
        return write_ruling_in(session, trajectory_pk, key, lead, text.normalised(), reason, chosen_reviewer,
                               None if before is None else before[0])


def import_label(
    store: Store, trajectory_pk: int | None, key: TrajectoryKey, reviewer: str, text: LabelText, created_at: str,
    updated_at: str, origin: str, importer: str,
) -> tuple[str, Label | None]:
    """Merge one label from another store: ("added" | "same" | "conflict", the label here).

    The same reviewer with other words here is a conflict: nothing is overwritten.
    """
    _check_keys(key, reviewer=reviewer)
    new = text.normalised()
    with store.session() as session:
        existing = matching_label_in(session, trajectory_pk, key, reviewer)
        if existing is not None:
            return ("same" if existing[1] == new.content_hash() else "conflict"), existing[0]
        return "added", write_imported_label_in(session, trajectory_pk, key, reviewer, new, created_at, updated_at,
                                                origin, importer)


def import_adjudication(
    store: Store, trajectory_pk: int | None, key: TrajectoryKey, lead: str, chosen_reviewer: str | None,
    text: LabelText, reason: str, created_at: str, origin: str, importer: str,
) -> tuple[str, Adjudication | None]:
    """("added" | "same" | "conflict", the ruling here). A different ruling in force here is a conflict."""
    _check_keys(key, lead=lead, chosen_reviewer=chosen_reviewer)
    new = text.normalised()
    with store.session() as session:
        current = ruling_in_force_in(session, trajectory_pk, key)
        if current is not None:
            return ("same" if current[1] == new.content_hash() else "conflict"), current[0]
        return "added", write_imported_ruling_in(session, trajectory_pk, key, lead, chosen_reviewer, new, reason,
                                                 created_at, origin, importer)


def _check_keys(key: TrajectoryKey, **names: str | None) -> None:
    fields = [("trajectory.corpus", key.corpus, MAX_PATH_BYTES, "a corpus name"),
              ("trajectory.file", key.file, MAX_PATH_BYTES, "a file's path inside its corpus"),
              ("trajectory.trajectory_id", key.trajectory_id, MAX_KEY_BYTES, "a trajectory id"),
              ("trajectory.content_hash", key.record_hash, MAX_KEY_BYTES, "a content hash"),
              *((name, value, MAX_KEY_BYTES, "a reviewer name") for name, value in names.items())]
    for field, value, limit, what in fields:
        problem = text_oversize(field, value, limit, what)
        if problem is not None:
            raise ValueError(f"{field}: {problem.reason}; nothing was written")
