"""The rules table with duplicates grouped: one row per group of rules that say the same thing.

Rules whose replayed version has the same trigger and directive (``rule_version.dup_key``,
see ``core.store.duplicate_key``) share a row. Grouping happens after the filter and
inside the paging, in SQL: the filtered rows are partitioned by key, each group is
represented by its first member in the table's order (so a group sorts where its best
member would), and the count and the page are taken over those representatives. A page
holds the group rows only; ``members_sql`` reads the members of given groups (the table
asks when a group expands), ``rule_group_sql`` the group a rule belongs to. A rule with no
duplicate is a group of one. A filter matching some members of a group shows the group
with those members only (its row is the first of them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.store.workspace_query import (
    DECISION_AND_MARK_JOINS,
    RESULT_ROWS_SQL,
    ROW_COLUMNS,
    WorkspaceFilter,
    WorkspaceScope,
    results_cte,
    where_sql,
)

# A version written before dup_key existed has it filled by revision 0002; the fallback keeps
# a NULL key from merging unrelated rules.
GROUP_KEY_SQL = "coalesce(w.dup_key, 'rule:' || CAST(w.rule_id AS VARCHAR))"


def filtered_cte(scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None, sort_expression: str,
                 params: dict[str, Any], hidden_flag: str = "0") -> str:
    """``WITH w, f``: f holds the filtered rows with their group key, sort value and status, and
    ``g_hidden`` (``workspace_query.blind_sort``: 1 puts a row after the others whatever the
    direction)."""
    params["reviewer"] = reviewer or ""
    return f"""
        WITH w AS ({results_cte(scope, params)}),
             f AS (
                SELECT {ROW_COLUMNS}, {GROUP_KEY_SQL} AS g_key, {sort_expression} AS g_sort,
                       {hidden_flag} AS g_hidden,
                       coalesce(d.action, 'unreviewed') AS g_status
                FROM w {DECISION_AND_MARK_JOINS}
                {where_sql(flt, params)}
             )
    """


def page_sql(cte: str, direction: str) -> str:
    """One page of groups (LIMIT :limit OFFSET :offset): the group rows only, never their members.

    Each row is its group's first member in the table's order and carries the group's size
    and unreviewed count (``g_size``, ``g_unreviewed``), its position on the page (``h_pos``)
    and, computed before the page is cut, the number of groups (``h_total``) and of rules and
    unreviewed rules (``all_rules``, ``all_unreviewed``) in the filtered set. Members are read
    when a group expands (``members_sql``): a page with every member was ~1,000 wide rows for
    123 groups at 10^3 rules, the page's largest cost.

    The window functions run over narrow rows (``k``: result id, key, sort value, status),
    and the page's wide rows are read back by primary key (``RESULT_ROWS_SQL`` joined on the
    page's result ids): window functions over the wide rows of ``f``, or a join back to
    ``f`` (a CTE has no index), cost several times the query that found the rows.
    """
    return f"""{cte},
        k AS (SELECT id AS k_id, rule_id AS k_rule, g_key AS k_key, g_sort AS k_sort, g_hidden AS k_hidden,
                     g_status AS k_status FROM f),
        g AS (
            SELECT k_id, k_key, k_sort, k_hidden, k_rule, count(*) OVER (PARTITION BY k_key) AS g_size,
                   sum(CASE WHEN k_status = 'unreviewed' THEN 1 ELSE 0 END) OVER (PARTITION BY k_key) AS g_unreviewed,
                   ROW_NUMBER() OVER (PARTITION BY k_key ORDER BY k_hidden ASC, k_sort {direction}, k_rule ASC) AS g_rank,
                   count(*) OVER () AS all_rules,
                   sum(CASE WHEN k_status = 'unreviewed' THEN 1 ELSE 0 END) OVER () AS all_unreviewed
            FROM k
        ),
        page AS (
            SELECT k_id, k_key AS g_key, g_size, g_unreviewed, g_rank, all_rules, all_unreviewed,
                   ROW_NUMBER() OVER (ORDER BY k_hidden ASC, k_sort {direction}, k_rule ASC) AS h_pos,
                   count(*) OVER () AS h_total
            FROM g WHERE g_rank = 1
            ORDER BY k_hidden ASC, k_sort {direction}, k_rule ASC LIMIT :limit OFFSET :offset
        )
        SELECT {ROW_COLUMNS}, page.*
        FROM page JOIN ({RESULT_ROWS_SQL}) AS w ON w.id = page.k_id
        {DECISION_AND_MARK_JOINS}
        ORDER BY page.h_pos
    """


def members_sql(cte: str, keys: Sequence[str], params: dict[str, Any], direction: str) -> str:
    """Every filtered row of the given groups, in the table's order."""
    names = []
    for i, key in enumerate(keys):
        params[f"gk{i}"] = key
        names.append(f":gk{i}")
    return (f"{cte} SELECT * FROM f WHERE g_key IN ({', '.join(names)}) "
            f"ORDER BY g_hidden ASC, g_sort {direction}, rule_id ASC")


def rule_group_sql(cte: str, rule_id: int, params: dict[str, Any], direction: str) -> str:
    """Every filtered row of the group the rule belongs to (none when the filter hides the rule)."""
    params["g_rule"] = int(rule_id)
    return (f"{cte} SELECT * FROM f WHERE g_key = (SELECT g_key FROM f WHERE rule_id = :g_rule LIMIT 1) "
            f"ORDER BY g_hidden ASC, g_sort {direction}, rule_id ASC")
