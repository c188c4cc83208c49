"""Import reports: every import run and every record it refused, kept in the store."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import insert
from sqlmodel import col, select

from core.store.dto import ImportIssue
from core.store.engine import Store
from core.store.tables import ImportIssueRow, ImportReportRow
from core.timeutil import utc_now


class ImportReportRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    def start(self, roots: Sequence[str]) -> int:
        with self._store.session() as session:
            row = ImportReportRow(started_at=utc_now(), roots_json=json.dumps(list(roots)))
            session.add(row)
            session.flush()
            assert row.id is not None
            return row.id

    def add_issues(self, report_id: int, issues: Sequence[ImportIssue]) -> None:
        if not issues:
            return
        with self._store.session() as session:
            session.execute(
                insert(ImportIssueRow),
                [
                    {"report_id": report_id, "corpus": i.corpus, "file": i.file, "line": i.line,
                     "field": i.field, "reason": i.reason}
                    for i in issues
                ],
            )

    def finish(self, report_id: int, summary: dict[str, object]) -> None:
        with self._store.session() as session:
            row = session.get(ImportReportRow, report_id)
            if row is not None:
                row.finished_at = utc_now()
                row.summary_json = json.dumps(summary, ensure_ascii=False)

    def issues(self, report_id: int) -> list[ImportIssue]:
        with self._store.read_session() as session:
            rows = session.exec(
                select(ImportIssueRow).where(ImportIssueRow.report_id == report_id).order_by(col(ImportIssueRow.id))
            ).all()
            return [ImportIssue(r.corpus, r.file, r.line, r.field, r.reason) for r in rows]
