"""Queries for the review workspace: the rules table, evidence flags, marks, bucket moves.

The rules table shows one row per rule: either every result of one chosen run, or (the
default) each rule's newest result from a complete run, plus any run the caller is
watching live. Filtering, sorting and paging happen here, in SQL, so the window holds only
the rows it shows. Review status is the rule's effective decision (undone decisions do not
count), computed in the same query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import text

from core.store import workspace_groups as groups
from core.store.dto import RuleVersionInfo
from core.store.engine import Store
from core.store.evidence_pages import EvidenceBundle, evidence_board, evidence_counts, evidence_page
from core.store.replay_repo import StoredOutcome, StoredResult, _stored_result
from core.store.review_repo import append_audit, waived_in
from core.store.rule_repo import RuleText, _add_version, _latest_version_row, _version_info
from core.store.workspace_query import (
    EFFECTIVE_DECISIONS_SQL,
    ROW_COLUMNS,
    SORT_KEYS,
    VERDICT_MARKS_SQL,
    BucketMove,
    RulePage,
    WorkspaceFilter,
    WorkspaceRule,
    WorkspaceScope,
    results_cte,
    where_sql,
    workspace_rule,
)
from core.timeutil import utc_now


class WorkspaceRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    # -- the rules table ---------------------------------------------------------------
    def _query(self, scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None,
               select: str, extra: Sequence[str] = ()) -> tuple[str, dict[str, Any]]:
        params: dict[str, Any] = {"reviewer": reviewer or ""}
        sql = f"""
            WITH w AS ({results_cte(scope, params)}),
                 d AS ({EFFECTIVE_DECISIONS_SQL}),
                 m AS ({VERDICT_MARKS_SQL})
            SELECT {select}
            FROM w LEFT JOIN d ON d.rule_id = w.rule_id LEFT JOIN m ON m.result_id = w.id
            {where_sql(flt, params, extra)}
        """
        return sql, params

    def page(
        self, scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None = None, *,
        order_by: str = "rule", descending: bool = False, offset: int = 0, limit: int = 200,
    ) -> RulePage:
        """Count, unreviewed count and one page of rows in a single session (one connection:
        the window calls this while a replay may be running, so fewer round trips matter)."""
        expression = SORT_KEYS.get(order_by, SORT_KEYS["rule"])
        direction = "DESC" if descending else "ASC"
        # One pass counts both the rows and the unreviewed ones among them (each pass over
        # the newest-result CTE costs tens of ms at 10^3 rules).
        count_sql, count_params = self._query(
            scope, flt, reviewer, "count(*), coalesce(sum(CASE WHEN d.action IS NULL THEN 1 ELSE 0 END), 0)")
        rows_sql, rows_params = self._query(scope, flt, reviewer, ROW_COLUMNS)
        rows_sql += f" ORDER BY {expression} {direction}, w.rule_id ASC LIMIT :limit OFFSET :offset"
        rows_params.update(limit=int(limit), offset=int(offset))
        with self._store.read_session() as session:
            total, unreviewed = session.execute(text(count_sql), count_params).one()
            rows = [workspace_rule(r) for r in session.execute(text(rows_sql), rows_params).mappings().all()]
        return RulePage(int(total), int(unreviewed) if flt.status in (None, "unreviewed") else 0, rows)

    def page_groups(
        self, scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None = None, *,
        order_by: str = "rule", descending: bool = False, offset: int = 0, limit: int = 200,
    ) -> RulePage:
        """Like ``page``, with duplicates (same trigger and directive) as one row per group
        (``workspace_groups``): ``total`` counts groups, ``rules`` the rules behind them, and
        each row is its group's first member in this order, with ``group_size``."""
        expression = SORT_KEYS.get(order_by, SORT_KEYS["rule"])
        direction = "DESC" if descending else "ASC"
        params: dict[str, Any] = {"limit": int(limit), "offset": int(offset)}
        cte = groups.filtered_cte(scope, flt, reviewer, expression, params)
        with self._store.read_session() as session:
            found = session.execute(text(groups.page_sql(cte, direction)), params).mappings().all()
        heads: list[WorkspaceRule] = []
        members: dict[str, list[WorkspaceRule]] = {}
        for r in found:
            row = workspace_rule(r)
            if int(r["g_rank"]) == 1:
                heads.append(row)
            if row.group_size > 1:
                members.setdefault(str(r["g_key"]), []).append(row)
        first = found[0] if found else None
        total = int(first["h_total"]) if first else 0
        rules = int(first["all_rules"]) if first else 0
        unreviewed = int(first["all_unreviewed"] or 0) if first else 0
        if first is None and offset > 0:  # past the end: the counts need their own query
            probe = self.page_groups(scope, flt, reviewer, order_by=order_by, descending=descending, limit=1)
            total, rules, unreviewed = probe.total, probe.rules, probe.unreviewed
        return RulePage(total, unreviewed if flt.status in (None, "unreviewed") else 0, heads, rules, members)

    def group_members(
        self, scope: WorkspaceScope, flt: WorkspaceFilter, keys: Sequence[str], reviewer: str | None = None, *,
        order_by: str = "rule", descending: bool = False,
    ) -> dict[str, list[WorkspaceRule]]:
        """group key -> its filtered rules, in the table's order (the group's row is the first)."""
        if not keys:
            return {}
        expression = SORT_KEYS.get(order_by, SORT_KEYS["rule"])
        direction = "DESC" if descending else "ASC"
        params: dict[str, Any] = {}
        cte = groups.filtered_cte(scope, flt, reviewer, expression, params)
        sql = groups.members_sql(cte, list(dict.fromkeys(keys)), params, direction)
        found: dict[str, list[WorkspaceRule]] = {}
        with self._store.read_session() as session:
            for r in session.execute(text(sql), params).mappings().all():
                found.setdefault(str(r["g_key"]), []).append(workspace_rule(r))
        return found

    def count_rules(self, scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None = None) -> int:
        sql, params = self._query(scope, flt, reviewer, "count(*)")
        with self._store.read_session() as session:
            return int(session.execute(text(sql), params).scalar_one())

    def list_rules(
        self, scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None = None, *,
        order_by: str = "rule", descending: bool = False, offset: int = 0, limit: int = 200,
    ) -> list[WorkspaceRule]:
        expression = SORT_KEYS.get(order_by, SORT_KEYS["rule"])
        direction = "DESC" if descending else "ASC"
        sql, params = self._query(scope, flt, reviewer, ROW_COLUMNS)
        sql += f" ORDER BY {expression} {direction}, w.rule_id ASC LIMIT :limit OFFSET :offset"
        params.update(limit=int(limit), offset=int(offset))
        with self._store.read_session() as session:
            return [workspace_rule(r) for r in session.execute(text(sql), params).mappings().all()]

    def rule_row(self, scope: WorkspaceScope, rule_id: int, reviewer: str | None = None) -> WorkspaceRule | None:
        sql, params = self._query(scope, WorkspaceFilter(), reviewer, ROW_COLUMNS, ["w.rule_id = :one_rule"])
        params["one_rule"] = rule_id
        with self._store.read_session() as session:
            row = session.execute(text(sql), params).mappings().first()
            return workspace_rule(row) if row is not None else None

    def filter_options(self, scope: WorkspaceScope) -> dict[str, list[str]]:
        """Distinct values present in the scope, for the filter combos."""
        params: dict[str, Any] = {}
        cte = results_cte(scope, params)
        out: dict[str, list[str]] = {}
        with self._store.read_session() as session:
            for key, column in (("verdict", "verdict"), ("reason", "reason"), ("domain", "rule_domain"),
                                ("corpus", "rule_corpus")):
                rows = session.execute(
                    text(f"WITH w AS ({cte}) SELECT DISTINCT {column} FROM w WHERE {column} IS NOT NULL "
                         f"ORDER BY {column}"),
                    params,
                ).all()
                out[key] = [str(r[0]) for r in rows]
        return out

    def has_results(self) -> bool:
        with self._store.read_session() as session:
            return session.execute(text("SELECT 1 FROM replay_result LIMIT 1")).first() is not None

    # -- one result and its evidence ---------------------------------------------------
    def result(self, result_id: int) -> StoredResult | None:
        with self._store.read_session() as session:
            row = session.execute(
                text(
                    """SELECT rr.*, rv.rule_id, rv.version, rv.trigger, rv.directive,
                              r.origin, r.kind, r.domain AS rule_domain, r.source_trajectory
                       FROM replay_result rr
                       JOIN rule_version rv ON rv.id = rr.rule_version_id
                       JOIN rule r ON r.id = rv.rule_id
                       WHERE rr.id = :id"""
                ),
                {"id": result_id},
            ).mappings().first()
            return _stored_result(row) if row is not None else None

    def evidence_bundle(self, result_id: int, reviewer: str | None) -> EvidenceBundle:
        """The evidence board of a result: bucket sizes and first pages, never every row
        (``evidence_pages.evidence_board``)."""
        return evidence_board(self._store, result_id, reviewer)

    def evidence_counts(self, result_id: int) -> dict[str, int]:
        """Rows per bucket of one result (what the bucket tabs show before any row is read)."""
        return evidence_counts(self._store, result_id)

    def evidence_page(self, result_id: int, bucket: str, offset: int = 0, limit: int = 200) -> list[StoredOutcome]:
        """One page of a bucket's evidence in the evidence table's order (score, then id)."""
        return evidence_page(self._store, result_id, bucket, offset, limit)

    def waivers(self, reviewer: str, result_id: int) -> dict[int, str]:
        """trajectory pk -> waiver reason, for this reviewer's waivers on a result."""
        with self._store.read_session() as session:
            return waived_in(session, reviewer, result_id)

    def evidence_marks(self, reviewer: str, result_id: int) -> dict[int | None, str]:
        """The reviewer's newest mark per trajectory of a result (None = the verdict)."""
        with self._store.read_session() as session:
            rows = session.execute(
                text("SELECT trajectory_pk, mark FROM agreement_mark WHERE reviewer = :r AND result_id = :res "
                     "ORDER BY id"),
                {"r": reviewer, "res": result_id},
            ).all()
            return {(None if r[0] is None else int(r[0])): str(r[1]) for r in rows}

    # -- what if: the previous result and bucket moves ---------------------------------

    def bucket_moves(self, before_result_id: int, after_result_id: int) -> list[BucketMove]:
        """Trajectories whose bucket differs between two results (absent = no effect)."""
        with self._store.read_session() as session:
            rows = session.execute(
                text(
                    """WITH a AS (SELECT trajectory_pk, bucket FROM replay_outcome WHERE result_id = :a),
                            b AS (SELECT trajectory_pk, bucket FROM replay_outcome WHERE result_id = :b),
                            pks AS (SELECT trajectory_pk FROM a UNION SELECT trajectory_pk FROM b)
                       SELECT pks.trajectory_pk, t.trajectory_id, c.name,
                              coalesce(a.bucket, 'no_effect'), coalesce(b.bucket, 'no_effect')
                       FROM pks JOIN trajectory t ON t.id = pks.trajectory_pk
                       JOIN corpus c ON c.id = t.corpus_id
                       LEFT JOIN a ON a.trajectory_pk = pks.trajectory_pk
                       LEFT JOIN b ON b.trajectory_pk = pks.trajectory_pk
                       WHERE coalesce(a.bucket, 'no_effect') != coalesce(b.bucket, 'no_effect')
                       ORDER BY t.trajectory_id, pks.trajectory_pk"""
                ),
                {"a": before_result_id, "b": after_result_id},
            ).all()
            return [BucketMove(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4])) for r in rows]

    def record_view(self, reviewer: str, result_id: int, trajectory_pk: int) -> bool:
        """Record that the reviewer opened an evidence trajectory (first time: with an audit
        event, in the same transaction). Returns True if this was the first opening."""
        with self._store.session() as session:
            inserted = session.execute(
                text(
                    "INSERT INTO evidence_view (reviewer, result_id, trajectory_pk, viewed_at) "
                    "VALUES (:r, :res, :t, :at) ON CONFLICT DO NOTHING"
                ),
                {"r": reviewer, "res": result_id, "t": trajectory_pk, "at": utc_now()},
            ).rowcount  # type: ignore[attr-defined]  # a DML statement's result is a CursorResult
            if inserted:
                append_audit(session, reviewer, "open_evidence", "result", result_id, None,
                             after={"trajectory_pk": trajectory_pk})
            return bool(inserted)

    def edit_rule(self, rule_id: int, new_text: RuleText, author: str, note: str | None = None) -> RuleVersionInfo:
        """Save an edited rule as a new version, with its audit event, in one transaction."""
        with self._store.session() as session:
            before = _latest_version_row(session, rule_id)
            row = _add_version(session, rule_id, new_text, author, note)
            append_audit(
                session, author, "edit_rule", "rule", rule_id, note,
                before=None if before is None else {"version": before.version, "trigger": before.trigger,
                                                    "directive": before.directive},
                after={"version": row.version, "trigger": row.trigger, "directive": row.directive},
            )
            return _version_info(row)

    def rule_corpora(self) -> list[str]:
        """Corpora that hold rules (the "replay a corpus" choices)."""
        with self._store.read_session() as session:
            rows = session.execute(
                text("SELECT DISTINCT c.name FROM rule r JOIN corpus c ON c.id = r.corpus_id ORDER BY c.name")
            ).all()
            return [str(r[0]) for r in rows]

    def rule_ids_in_corpus(self, corpus: str) -> list[int]:
        with self._store.read_session() as session:
            rows = session.execute(
                text("SELECT r.id FROM rule r JOIN corpus c ON c.id = r.corpus_id WHERE c.name = :c ORDER BY r.id"),
                {"c": corpus},
            ).all()
            return [int(r[0]) for r in rows]
