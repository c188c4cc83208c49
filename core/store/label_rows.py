"""Row conversions and SQL shared by the label queries: a stored label or adjudication as its
domain type, the labelling queue's SELECT, and how a trajectory's ground truth is resolved."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session, col, select

from core.domain.labels import (
    Adjudication,
    GroundTruth,
    Label,
    LabelFilter,
    LabelText,
    TrajectoryKey,
)
from core.store.tables_labels import AdjudicationRow, LabelRow

KEY_SQL = """SELECT t.id, c.name AS corpus, f.path AS file, t.line, t.trajectory_id, t.content_hash
              FROM trajectory t JOIN corpus c ON c.id = t.corpus_id JOIN source_file f ON f.id = t.file_id"""


def key_of_row(row: Any) -> TrajectoryKey:
    return TrajectoryKey(row["corpus"], row["file"], int(row["line"]), row["trajectory_id"], row["content_hash"])


def text_of(row: LabelRow | AdjudicationRow) -> LabelText:
    return LabelText(row.trigger, row.directive, tuple(json.loads(row.variants_json)), row.note)


def label_of(row: LabelRow, current_hash: str | None = None) -> Label:
    return Label(
        id=row.id or 0, trajectory_pk=row.trajectory_pk,
        key=TrajectoryKey(row.corpus, row.file, row.line, row.trajectory_id, row.record_hash),
        reviewer=row.reviewer, text=text_of(row), origin=row.origin, created_at=row.created_at,
        updated_at=row.updated_at, stale=current_hash is not None and current_hash != row.record_hash,
    )


def adjudication_of(row: AdjudicationRow) -> Adjudication:
    return Adjudication(
        id=row.id or 0, trajectory_pk=row.trajectory_pk,
        key=TrajectoryKey(row.corpus, row.file, row.line, row.trajectory_id, row.record_hash), lead=row.lead,
        chosen_reviewer=row.chosen_reviewer, text=text_of(row), reason=row.reason, origin=row.origin,
        created_at=row.created_at,
    )


def queue_sql(reviewer: str, flt: LabelFilter) -> tuple[str, dict[str, Any]]:
    """The labelling queue's SELECT (and its parameters) for ``reviewer`` under ``flt``."""
    query = """SELECT t.id, t.trajectory_id, c.name AS corpus, f.path AS file, t.line, t.domain, t.success,
                      t.failure_class, t.expected_rule, me.trigger AS my_trigger, me.directive AS my_directive,
                      (SELECT count(*) FROM label l WHERE l.trajectory_pk = t.id) AS labels,
                      EXISTS (SELECT 1 FROM adjudication a WHERE a.trajectory_pk = t.id) AS adjudicated
               FROM trajectory t JOIN corpus c ON c.id = t.corpus_id JOIN source_file f ON f.id = t.file_id
               LEFT JOIN label me ON me.trajectory_pk = t.id AND me.reviewer = :reviewer
               WHERE 1 = 1"""
    params: dict[str, Any] = {"reviewer": reviewer}
    if flt.corpus:
        query += " AND c.name = :corpus"
        params["corpus"] = flt.corpus
    if flt.domain:
        query += " AND t.domain = :domain"
        params["domain"] = flt.domain
    if flt.text:
        # lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
        query += (" AND (lower(t.trajectory_id) LIKE :pattern OR lower(t.task) LIKE :pattern"
                  " OR lower(t.failure_class) LIKE :pattern)")
        params["pattern"] = f"%{flt.text.lower()}%"
    if flt.status == "missing":
        query += " AND me.id IS NULL"
    elif flt.status == "labelled":
        query += " AND me.id IS NOT NULL"
    elif flt.status == "no_ground_truth":
        query += (
            " AND NOT EXISTS (SELECT 1 FROM label l WHERE l.trajectory_pk = t.id)"
            " AND NOT EXISTS (SELECT 1 FROM adjudication a WHERE a.trajectory_pk = t.id)"
            " AND (t.expected_rule IS NULL OR t.expected_rule = '')"
        )
    elif flt.status != "all":
        raise ValueError(f"unknown label status filter {flt.status!r}")
    return query, params


def current_adjudication_row(session: Session, trajectory_pk: int | None) -> AdjudicationRow | None:
    if trajectory_pk is None:
        return None
    return session.exec(
        select(AdjudicationRow).where(AdjudicationRow.trajectory_pk == trajectory_pk)
        .order_by(col(AdjudicationRow.created_at).desc(), col(AdjudicationRow.id).desc())
    ).first()


def resolve_ground_truth(
    pk: int, expected_rule: str | None, labels: list[LabelRow], adjudication: AdjudicationRow | None,
    reviewer: str | None,
) -> GroundTruth:
    """Adjudicated label, else the reviewer's own label, else the imported ``expected_rule``.

    Without a reviewer, labels count only when every reviewer wrote the same thing; when they
    differ the trajectory is flagged ``conflicting`` (it needs adjudication) and falls back to
    the imported rule.
    """
    distinct = {row.content_hash for row in labels}
    conflicting = len(distinct) > 1
    if adjudication is not None:
        text = text_of(adjudication)
        return GroundTruth(pk, "adjudicated", text, text.sentence(), adjudication.lead, False)
    own = [row for row in labels if row.reviewer == reviewer] if reviewer is not None else []
    if own:
        text = text_of(own[0])
        return GroundTruth(pk, "label", text, text.sentence(), reviewer, conflicting)
    if reviewer is None and labels and not conflicting:
        text = text_of(labels[0])
        names = ", ".join(sorted(row.reviewer for row in labels))
        return GroundTruth(pk, "label", text, text.sentence(), names, False)
    if expected_rule is not None:
        return GroundTruth(pk, "imported", None, expected_rule, None, conflicting)
    return GroundTruth(pk, "none", None, None, None, conflicting)
