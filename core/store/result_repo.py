"""Replay results as the review reads them: the rules table, one result with its evidence,
and the bucket moves between two results. Writes of results are ``result_writes``'s; decisions,
marks, views and waivers are ``review_repo``'s; rules and versions ``rule_repo``'s.

The rules table shows one row per rule: either every result of one chosen run, or (the
default) each rule's newest result from a complete run, plus any run the caller is
watching live. Filtering, sorting and paging happen here, in SQL, so the window holds only
the rows it shows. Review status is the rule's effective decision (undone decisions do not
count) and the verdict mark the reviewer's newest, found in the same query
(``workspace_query``: the row types and SQL; ``workspace_groups``: duplicates as one row).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import text

from core.store import workspace_groups as groups
from core.store.engine import Store
from core.store.evidence_pages import EvidenceBundle, evidence_board, evidence_counts, evidence_page
from core.store.outcome_reads import bucket_of, result_block, trajectory_meta
from core.store.replay_repo import RESULT_WITH_RULE_SQL, StoredOutcome, StoredResult, _stored_result
from core.store.workspace_query import (
    DECISION_AND_MARK_JOINS,
    ROW_COLUMNS,
    BucketMove,
    RulePage,
    WorkspaceFilter,
    WorkspaceRule,
    WorkspaceScope,
    blind_sort,
    hidden_sql,
    order_sql,
    plain_rows,
    results_cte,
    where_sql,
    workspace_rule,
)


class ResultRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    # -- the rules table ---------------------------------------------------------------
    def _query(self, scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None,
               select: str, extra: Sequence[str] = ()) -> tuple[str, dict[str, Any]]:
        params: dict[str, Any] = {"reviewer": reviewer or ""}
        sql = f"""
            WITH w AS ({results_cte(scope, params)})
            SELECT {select}
            FROM w {DECISION_AND_MARK_JOINS}
            {where_sql(flt, params, extra)}
        """
        return sql, params

    def page(
        self, scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None = None, *,
        order_by: str = "rule", descending: bool = False, offset: int = 0, limit: int = 200,
    ) -> RulePage:
        """Count, unreviewed count and one page of rows in one query (the window calls this
        while a replay may be running, so fewer passes matter): the counts are window
        aggregates over the filtered rows, taken before the page is cut."""
        direction = "DESC" if descending else "ASC"
        counts = "count(*) OVER () AS n_total, sum(CASE WHEN d.action IS NULL THEN 1 ELSE 0 END) OVER () AS n_unreviewed"
        rows_sql, params = self._query(scope, flt, reviewer, f"{ROW_COLUMNS}, {counts}")
        hidden, expression = blind_sort(order_by, flt, params)
        rows_sql += f" ORDER BY {order_sql(hidden, expression, direction)} LIMIT :limit OFFSET :offset"
        params.update(limit=int(limit), offset=int(offset))
        with self._store.read_session() as session:
            found = plain_rows(session.execute(text(rows_sql), params))
            if found:
                total, unreviewed = found[0]["n_total"], found[0]["n_unreviewed"]
            else:  # an empty filter, or a page past the end: the counts need their own pass
                count_sql, count_params = self._query(
                    scope, flt, reviewer, "count(*), coalesce(sum(CASE WHEN d.action IS NULL THEN 1 ELSE 0 END), 0)")
                total, unreviewed = session.execute(text(count_sql), count_params).one()
        rows = [workspace_rule(r) for r in found]
        return RulePage(int(total), int(unreviewed or 0) if flt.status in (None, "unreviewed") else 0, rows)

    def page_groups(
        self, scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None = None, *,
        order_by: str = "rule", descending: bool = False, offset: int = 0, limit: int = 200,
    ) -> RulePage:
        """Like ``page``, with duplicates (same trigger and directive) as one row per group
        (``workspace_groups``): ``total`` counts groups, ``rules`` the rules behind them, and
        each row is its group's first member in this order, with ``group_size``. Members are
        not in the page: ``group_members`` reads them (the table does when a group expands)."""
        direction = "DESC" if descending else "ASC"
        params: dict[str, Any] = {"limit": int(limit), "offset": int(offset)}
        hidden, expression = blind_sort(order_by, flt, params)
        cte = groups.filtered_cte(scope, flt, reviewer, expression, params, hidden)
        with self._store.read_session() as session:
            found = plain_rows(session.execute(text(groups.page_sql(cte, direction)), params))
        heads = [workspace_rule(r) for r in found]  # group rows only: members are read on expand
        first = found[0] if found else None
        total = int(first["h_total"]) if first else 0
        rules = int(first["all_rules"]) if first else 0
        unreviewed = int(first["all_unreviewed"] or 0) if first else 0
        if first is None and offset > 0:  # past the end: the counts need their own query
            probe = self.page_groups(scope, flt, reviewer, order_by=order_by, descending=descending, limit=1)
            total, rules, unreviewed = probe.total, probe.rules, probe.unreviewed
        return RulePage(total, unreviewed if flt.status in (None, "unreviewed") else 0, heads, rules)

    def group_members(
        self, scope: WorkspaceScope, flt: WorkspaceFilter, keys: Sequence[str], reviewer: str | None = None, *,
        order_by: str = "rule", descending: bool = False,
    ) -> dict[str, list[WorkspaceRule]]:
        """group key -> its filtered rules, in the table's order (the group's row is the first)."""
        if not keys:
            return {}
        direction = "DESC" if descending else "ASC"
        params: dict[str, Any] = {}
        hidden, expression = blind_sort(order_by, flt, params)
        cte = groups.filtered_cte(scope, flt, reviewer, expression, params, hidden)
        sql = groups.members_sql(cte, list(dict.fromkeys(keys)), params, direction)
        found: dict[str, list[WorkspaceRule]] = {}
        with self._store.read_session() as session:
            for r in plain_rows(session.execute(text(sql), params)):
                found.setdefault(str(r["g_key"]), []).append(workspace_rule(r))
        return found

    def rule_group(
        self, scope: WorkspaceScope, flt: WorkspaceFilter, rule_id: int, reviewer: str | None = None, *,
        order_by: str = "rule", descending: bool = False,
    ) -> tuple[str, list[WorkspaceRule]] | None:
        """The group key and filtered rules (table order) of the rule's group; None when the
        filter hides the rule. Finds a member of a group not expanded yet (a rule to select)."""
        params: dict[str, Any] = {}
        hidden, expression = blind_sort(order_by, flt, params)
        cte = groups.filtered_cte(scope, flt, reviewer, expression, params, hidden)
        sql = groups.rule_group_sql(cte, rule_id, params, "DESC" if descending else "ASC")
        with self._store.read_session() as session:
            found = plain_rows(session.execute(text(sql), params))
        return (str(found[0]["g_key"]), [workspace_rule(r) for r in found]) if found else None

    def count_rules(self, scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None = None) -> int:
        sql, params = self._query(scope, flt, reviewer, "count(*)")
        with self._store.read_session() as session:
            return int(session.execute(text(sql), params).scalar_one())

    def list_rules(
        self, scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None = None, *,
        order_by: str = "rule", descending: bool = False, offset: int = 0, limit: int = 200,
    ) -> list[WorkspaceRule]:
        direction = "DESC" if descending else "ASC"
        sql, params = self._query(scope, flt, reviewer, ROW_COLUMNS)
        hidden, expression = blind_sort(order_by, flt, params)
        sql += f" ORDER BY {order_sql(hidden, expression, direction)} LIMIT :limit OFFSET :offset"
        params.update(limit=int(limit), offset=int(offset))
        with self._store.read_session() as session:
            return [workspace_rule(r) for r in session.execute(text(sql), params).mappings().all()]

    def rule_row(self, scope: WorkspaceScope, rule_id: int, reviewer: str | None = None) -> WorkspaceRule | None:
        sql, params = self._query(scope, WorkspaceFilter(), reviewer, ROW_COLUMNS, ["w.rule_id = :one_rule"])
        params["one_rule"] = rule_id
        with self._store.read_session() as session:
            row = session.execute(text(sql), params).mappings().first()
            return workspace_rule(row) if row is not None else None

    def filter_options(self, scope: WorkspaceScope, hidden: frozenset[str] = frozenset()) -> dict[str, list[str]]:
        """Distinct values present in the scope, for the filter combos. A verdict or reason only
        ``hidden`` rules have (``WorkspaceFilter.hidden``) is not offered: choosing it would show
        no row, and so tell the hidden rules' answer."""
        params: dict[str, Any] = {}
        cte = results_cte(scope, params)
        blind = hidden_sql(WorkspaceFilter(hidden=hidden), params)
        # One pass over the scope (a row per rule), not one per combo: the scope's query is most
        # of the cost, and at 10^5 trajectories it read the runs four times (378 ms, 18 runs kept).
        with self._store.read_session() as session:
            rows = session.execute(
                text(f"WITH w AS ({cte}) SELECT DISTINCT verdict, reason, rule_domain, rule_corpus, {blind} FROM w"),
                params,
            ).all()
        found: dict[str, set[str]] = {"verdict": set(), "reason": set(), "domain": set(), "corpus": set()}
        for verdict, reason, domain, corpus, masked in rows:
            shown: list[tuple[str, Any]] = [("domain", domain), ("corpus", corpus)]
            if not masked:
                shown += [("verdict", verdict), ("reason", reason)]
            for key, value in shown:
                if value is not None:
                    found[key].add(str(value))
        return {key: sorted(values) for key, values in found.items()}

    def has_results(self) -> bool:
        with self._store.read_session() as session:
            return session.execute(text("SELECT 1 FROM replay_result LIMIT 1")).first() is not None

    # -- one result and its evidence ---------------------------------------------------
    def result(self, result_id: int) -> StoredResult | None:
        with self._store.read_session() as session:
            row = session.execute(text(RESULT_WITH_RULE_SQL + " WHERE rr.id = :id"), {"id": result_id}).mappings().first()
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

    # -- what if: bucket moves between two results ----------------------------------------
    def bucket_moves(self, before_result_id: int, after_result_id: int) -> list[BucketMove]:
        """Trajectories whose bucket differs between two results (absent = no effect)."""
        with self._store.read_session() as session:
            before = bucket_of(result_block(session, before_result_id))
            after = bucket_of(result_block(session, after_result_id))
            moved = [pk for pk in before.keys() | after.keys()
                     if before.get(pk, "no_effect") != after.get(pk, "no_effect")]
            meta = trajectory_meta(session, moved)
            rows = sorted(((pk, meta[pk].trajectory_id, meta[pk].corpus, before.get(pk, "no_effect"),
                            after.get(pk, "no_effect")) for pk in moved if pk in meta), key=lambda r: (r[1], r[0]))
            return [BucketMove(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4])) for r in rows]
