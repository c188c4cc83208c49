"""A result's evidence read a page at a time (the evidence table at 10^4 rows per result).

``evidence_page`` reads one bucket's rows in the evidence order (score, then trajectory
id); ``PagedOutcomes`` is a read-only sequence over one bucket that fetches a page the
first time one of its rows is asked for, which is what ``ResultRepository.
evidence_bundle`` hands the evidence panel.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import text

from core.store.engine import Store
from core.store.replay_repo import StoredOutcome, outcome_from_row


def evidence_counts(store: Store, result_id: int) -> dict[str, int]:
    with store.read_session() as session:
        rows = session.execute(
            text("SELECT bucket, count(*) FROM replay_outcome WHERE result_id = :res GROUP BY bucket"),
            {"res": result_id},
        ).all()
    return {str(b): int(n) for b, n in rows}


def evidence_page(store: Store, result_id: int, bucket: str, offset: int = 0, limit: int = 200) -> list[StoredOutcome]:
    with store.read_session() as session:
        rows = session.execute(
            text(
                """SELECT o.*, t.trajectory_id, t.domain, t.success, c.name AS corpus
                   FROM replay_outcome o JOIN trajectory t ON t.id = o.trajectory_pk
                   JOIN corpus c ON c.id = t.corpus_id
                   WHERE o.result_id = :res AND o.bucket = :bucket
                   ORDER BY o.score DESC, t.id LIMIT :limit OFFSET :offset"""
            ),
            {"res": result_id, "bucket": bucket, "limit": int(limit), "offset": int(offset)},
        ).mappings().all()
    return [outcome_from_row(store, r) for r in rows]


class PagedOutcomes(Sequence[StoredOutcome]):
    """One bucket of a result's evidence, in the evidence order, read a page at a time.

    Behaves as a read-only list (len, index, slice, iterate); a page is fetched the first
    time one of its rows is asked for and kept.
    """

    PAGE = 200

    def __init__(self, store: Store, result_id: int, bucket: str, total: int) -> None:
        self._store, self._result_id, self._bucket, self._total = store, result_id, bucket, total
        self._pages: dict[int, list[StoredOutcome]] = {}

    def __len__(self) -> int:
        return self._total

    def _row(self, index: int) -> StoredOutcome:
        page, offset = divmod(index, self.PAGE)
        rows = self._pages.get(page)
        if rows is None:
            rows = evidence_page(self._store, self._result_id, self._bucket, page * self.PAGE, self.PAGE)
            self._pages[page] = rows
        if offset >= len(rows):  # the run's rows never change; a shorter page means a deleted trajectory
            raise IndexError(index)
        return rows[offset]

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._row(i) for i in range(*index.indices(self._total))]
        if index < 0:
            index += self._total
        if not 0 <= index < self._total:
            raise IndexError(index)
        return self._row(index)

    def __iter__(self) -> Iterator[StoredOutcome]:
        for i in range(self._total):
            try:
                yield self._row(i)
            except IndexError:
                return
