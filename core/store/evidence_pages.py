"""A result's evidence as the evidence board reads it: one board, then a page at a time.

The board (``evidence_board``) is what the Review tab shows when a rule is selected: the
result, each bucket's size, each bucket's *first page* of rows, this reviewer's flags and
how many broken rows they have still to open. Deeper rows are read a page at a time
(``evidence_page``) when the table scrolls, so a result with 10^4 evidence rows opens by
reading at most one page per bucket. Every function here is a plain read that runs where
it is called: the GUI calls them through its database executor, never on the GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import text
from sqlmodel import Session

from core.store.engine import Store
from core.store.outcome_reads import bucket_counts, in_evidence_order, result_block, trajectory_meta
from core.store.replay_repo import StoredOutcome, StoredResult, _stored_result, outcome_from_row
from core.store.review_repo import unreviewed_broken_in, waived_in

PAGE = 200  # rows per page of a bucket (the first page comes with the board)

@dataclass(frozen=True)
class EvidenceBundle:
    """Everything the evidence board shows for one result when it opens, read in one session."""

    result: StoredResult | None
    counts: dict[str, int]  # bucket -> rows in it (only buckets with rows)
    first_rows: dict[str, list[StoredOutcome]]  # bucket -> its first page, in the evidence order
    viewed: frozenset[int]
    waived: dict[int, str]
    marks: dict[int | None, str]
    reviewer: str | None = None
    unopened_broken: int = 0  # broken rows this reviewer has neither opened nor waived

    def total(self, bucket: str) -> int:
        return self.counts.get(bucket, 0)


def evidence_counts(store: Store, result_id: int) -> dict[str, int]:
    with store.read_session() as session:
        return _counts(session, result_id)


def evidence_page(store: Store, result_id: int, bucket: str, offset: int = 0, limit: int = PAGE) -> list[StoredOutcome]:
    """One page of a bucket's rows in the evidence order (score, then trajectory id)."""
    with store.read_session() as session:
        return _page(session, store, result_id, bucket, offset, limit)


def unopened_broken(store: Store, result_id: int, reviewer: str | None) -> int:
    """How many broken rows ``reviewer`` has neither opened nor waived (no reviewer: all of them)."""
    with store.read_session() as session:
        return _unopened(session, result_id, reviewer)


def evidence_board(store: Store, result_id: int, reviewer: str | None, first: int = PAGE) -> EvidenceBundle:
    """The board of one result: its row, the bucket sizes, each bucket's first ``first`` rows
    and the reviewer's flags; never more than ``first`` rows per bucket."""
    with store.read_session() as session:
        row = session.execute(
            text(
                """SELECT rr.*, rv.rule_id, rv.version, rv.trigger, rv.directive,
                          r.origin, r.kind, r.domain AS rule_domain, r.source_trajectory
                   FROM replay_result rr JOIN rule_version rv ON rv.id = rr.rule_version_id
                   JOIN rule r ON r.id = rv.rule_id WHERE rr.id = :id"""
            ),
            {"id": result_id},
        ).mappings().first()
        counts = _counts(session, result_id)
        rows = {b: _page(session, store, result_id, b, 0, first) for b in counts}
        viewed: frozenset[int] = frozenset()
        waived: dict[int, str] = {}
        marks: dict[int | None, str] = {}
        if reviewer:
            params = {"r": reviewer, "res": result_id}
            viewed = frozenset(int(v[0]) for v in session.execute(
                text("SELECT trajectory_pk FROM evidence_view WHERE reviewer = :r AND result_id = :res"), params))
            waived = waived_in(session, reviewer, result_id)
            marks = {(None if m[0] is None else int(m[0])): str(m[1]) for m in session.execute(
                text("SELECT trajectory_pk, mark FROM agreement_mark WHERE reviewer = :r AND result_id = :res "
                     "ORDER BY id"), params)}
        unopened = _unopened(session, result_id, reviewer) if counts.get("broken") else 0
    return EvidenceBundle(
        result=_stored_result(row) if row is not None else None, counts=counts, first_rows=rows,
        viewed=viewed, waived=waived, marks=marks, reviewer=reviewer, unopened_broken=unopened,
    )


def _counts(session: Session, result_id: int) -> dict[str, int]:
    return bucket_counts(session, result_id)


def _page(session: Session, store: Store, result_id: int, bucket: str, offset: int, limit: int) -> list[StoredOutcome]:
    # The bucket's columns are decoded and sorted whole (10^4 rows: milliseconds); only the
    # page's rows are joined with their trajectories and built as objects.
    ordered = in_evidence_order(result_block(session, result_id, (bucket,)))
    page = ordered.take(np.arange(min(offset, len(ordered)), min(offset + limit, len(ordered))))
    meta = trajectory_meta(session, page.pk)
    rows = []
    for r in page.rows():
        t = meta.get(r["trajectory_pk"])
        if t is not None:  # like the former join: a row whose trajectory is gone is not shown
            rows.append(dict(r, result_id=result_id, trajectory_id=t.trajectory_id, domain=t.domain,
                             success=t.success, corpus=t.corpus))
    return [outcome_from_row(store, r) for r in rows]


def _unopened(session: Session, result_id: int, reviewer: str | None) -> int:
    if not reviewer:
        return len(result_block(session, result_id, ("broken",)))
    # The approval gate's own rule (and the only place the waiver table is read): one id per
    # broken row left, never the rows themselves.
    return len(unreviewed_broken_in(session, reviewer, result_id))
