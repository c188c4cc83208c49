"""The review workspace's rows and the SQL that selects them: the filter, scope and row types, the
newest-result CTE, the effective decision and verdict marks, and the WHERE clause of a filter."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

BUCKETS = ("prevented", "broken", "near_miss", "missed")


@dataclass(frozen=True)
class WorkspaceFilter:
    verdict: str | None = None
    reason: str | None = None
    domain: str | None = None
    corpus: str | None = None
    status: str | None = None  # "unreviewed", "approve", "reject" or "defer"
    text: str = ""
    # Rules (by origin) whose replay answers the reviewer must not see (their unfinished blind
    # agreement session, ``core.agreement.early_reveal.hidden_rules``): they never match a
    # verdict or reason filter, and sorting by a replay column puts them after the others, by
    # rule id, so their place in the order says nothing about their hidden values.
    hidden: frozenset[str] = frozenset()


@dataclass(frozen=True)
class WorkspaceScope:
    """Which results the table shows: one run (``run_id``) or the newest per rule."""

    run_id: int | None = None
    live_run_ids: tuple[int, ...] = ()  # running runs whose results count as "newest" too


@dataclass(frozen=True)
class WorkspaceRule:
    """One row of the rules table (frozen: crosses threads safely)."""

    result_id: int
    run_id: int
    run_status: str
    profile: str
    rule_id: int
    rule_version_id: int
    version: int
    latest_version: int
    kind: str
    origin: str
    trigger: str
    directive: str
    domain: str | None
    corpus: str | None
    source_trajectory: str | None
    verdict: str
    reason: str
    threshold: float
    prevented_n: int
    broken_n: int
    near_miss_n: int
    missed_n: int
    precision: float | None
    precision_ci: tuple[float, float] | None
    recall: float | None
    recall_ci: tuple[float, float] | None
    status: str  # unreviewed | approve | reject | defer
    reviewer: str | None
    decision_reason: str | None
    decided_version_id: int | None
    verdict_mark: str | None  # this reviewer's mark on the verdict (right | wrong | cant_tell)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    # Duplicates (same trigger and directive): the key, and on a group's row (RulePage from
    # page_groups) how many rules of the filtered set share it and how many are unreviewed.
    group_key: str | None = None
    group_size: int = 1
    group_unreviewed: int = 0
    # The rule's row version read with the row (core.store.row_versions): a decision or edit made
    # from this row names it, so another reviewer's change since is a conflict, never overwritten.
    row_version: int | None = None


@dataclass(frozen=True)
class RulePage:
    total: int  # rows of the table: rules, or duplicate groups (page_groups)
    unreviewed: int  # unreviewed rules
    rows: list[WorkspaceRule]
    rules: int = -1  # rules behind the rows; -1: the same as total (page_groups: members are
    # not in the page, ResultRepository.group_members reads them)


@dataclass(frozen=True)
class BucketMove:
    trajectory_pk: int
    trajectory_id: str
    corpus: str
    before: str  # a bucket or "no_effect"
    after: str


# Sort keys the table may ask for -> SQL expressions (never user text in ORDER BY).
SORT_KEYS: dict[str, str] = {
    "trigger": "lower(w.trigger)",
    "directive": "lower(w.directive)",
    "domain": "lower(coalesce(w.rule_domain, ''))",
    "verdict": "w.verdict",
    "reason": "w.reason",
    "prevented": "w.prevented_n",
    "broken": "w.broken_n",
    "near_miss": "w.near_miss_n",
    "missed": "w.missed_n",
    "precision": "coalesce(w.precision, -1)",
    "recall": "coalesce(w.recall, -1)",
    "status": "coalesce(d.action, 'unreviewed')",
    "reviewer": "lower(coalesce(d.reviewer, ''))",
    "origin": "lower(w.origin)",
    "run": "w.run_id",
    "mark": "coalesce(m.mark, '')",
    "rule": "w.rule_id",
}

# Sort keys that carry replay's answer: a hidden rule (``WorkspaceFilter.hidden``) is not ordered by them.
BLIND_SORT_KEYS = frozenset({"verdict", "reason", "prevented", "broken", "near_miss", "missed", "precision", "recall"})


def hidden_sql(flt: WorkspaceFilter, params: dict[str, Any]) -> str:
    """1 for a row whose replay answer is hidden (``WorkspaceFilter.hidden``), else 0."""
    if not flt.hidden:
        return "0"
    names = []
    for i, origin in enumerate(sorted(flt.hidden)):
        params[f"hid{i}"] = origin
        names.append(f":hid{i}")
    return f"(CASE WHEN w.origin IN ({', '.join(names)}) THEN 1 ELSE 0 END)"


def blind_sort(order_by: str, flt: WorkspaceFilter, params: dict[str, Any]) -> tuple[str, str]:
    """(hidden flag, sort value) for ordering: sorting by a replay column puts the hidden rows
    after the others (flag 1, always ascending) with no sort value (NULL: they fall back on the
    rule id), so neither their place nor their neighbours tell their hidden values."""
    expression = SORT_KEYS.get(order_by, SORT_KEYS["rule"])
    if order_by not in BLIND_SORT_KEYS or not flt.hidden:
        return "0", expression
    flag = hidden_sql(flt, params)
    return flag, f"(CASE WHEN {flag} = 1 THEN NULL ELSE {expression} END)"


def order_sql(hidden: str, expression: str, direction: str) -> str:
    """The ORDER BY terms for ``blind_sort``'s pair (a bare ``0`` would be read as a column number)."""
    first = "" if hidden == "0" else f"{hidden} ASC, "
    return f"{first}{expression} {direction}, w.rule_id ASC"


# Each row's effective decision (the rule's newest approve / reject / defer that no undo
# undid) and this reviewer's newest mark on the result's verdict (trajectory_pk NULL), each
# found through its index (ix_decision_rule_id, ix_mark_result) per row. As CTEs joined on
# rule_id, SQLite scanned the whole decision CTE for every row (no index on a CTE): 10^6 row
# visits for 10^3 reviewed rules, ~250 ms.
DECISION_AND_MARK_JOINS = """
    LEFT JOIN decision d ON d.id = (
        SELECT max(x.id) FROM decision x
        WHERE x.rule_id = w.rule_id AND x.action IN ('approve', 'reject', 'defer')
          AND NOT EXISTS (SELECT 1 FROM decision u WHERE u.undoes_id = x.id))
    LEFT JOIN agreement_mark m ON m.id = (
        SELECT max(y.id) FROM agreement_mark y
        WHERE y.result_id = w.id AND y.reviewer = :reviewer AND y.trajectory_pk IS NULL)
"""


ROW_COLUMNS = (
    "w.*, d.action AS d_action, d.reviewer AS d_reviewer, d.reason AS d_reason, "
    "d.rule_version_id AS d_version, m.mark AS m_mark"
)


# A result with its rule version, rule, run and corpus: the columns of one table row.
RESULT_ROWS_SQL = """
        SELECT rr.*, rv.rule_id, rv.version, rv.trigger, rv.directive, rv.dup_key, r.origin, r.kind,
               r.domain AS rule_domain, r.source_trajectory, r.row_version, c.name AS rule_corpus,
               run.status AS run_status, run.profile,
               (SELECT max(v2.version) FROM rule_version v2 WHERE v2.rule_id = rv.rule_id) AS latest_version
        FROM replay_result rr
        JOIN rule_version rv ON rv.id = rr.rule_version_id
        JOIN rule r ON r.id = rv.rule_id
        JOIN replay_run run ON run.id = rr.run_id
        LEFT JOIN corpus c ON c.id = r.corpus_id
    """


def results_cte(scope: WorkspaceScope, params: dict[str, Any]) -> str:
    base = RESULT_ROWS_SQL
    if scope.run_id is not None:
        params["scope_run"] = scope.run_id
        return base + " WHERE rr.run_id = :scope_run"
    live = ", ".join(f":live{i}" for i in range(len(scope.live_run_ids)))
    for i, run_id in enumerate(scope.live_run_ids):
        params[f"live{i}"] = run_id
    eligible = "run.status = 'complete'" + (f" OR run.id IN ({live})" if live else "")
    return f"""
        SELECT * FROM (
            SELECT x.*, ROW_NUMBER() OVER (PARTITION BY x.rule_id ORDER BY x.run_id DESC, x.id DESC) AS newest
            FROM ({base} WHERE {eligible}) x
        ) AS ranked WHERE newest = 1
    """


def where_sql(flt: WorkspaceFilter, params: dict[str, Any], extra: Sequence[str] = ()) -> str:
    clauses: list[str] = list(extra)
    if (flt.verdict or flt.reason) and flt.hidden:
        clauses.append(f"{hidden_sql(flt, params)} = 0")  # a hidden verdict matches no verdict filter
    if flt.verdict:
        clauses.append("w.verdict = :f_verdict")
        params["f_verdict"] = flt.verdict
    if flt.reason:
        clauses.append("w.reason = :f_reason")
        params["f_reason"] = flt.reason
    if flt.domain:
        clauses.append("w.rule_domain = :f_domain")
        params["f_domain"] = flt.domain
    if flt.corpus:
        clauses.append("w.rule_corpus = :f_corpus")
        params["f_corpus"] = flt.corpus
    if flt.status:
        clauses.append("coalesce(d.action, 'unreviewed') = :f_status")
        params["f_status"] = flt.status
    needle = flt.text.strip().lower()
    if needle:
        params["f_text"] = f"%{escape_like(needle)}%"
        clauses.append(
            "(lower(w.trigger) LIKE :f_text ESCAPE '\\' OR lower(w.directive) LIKE :f_text ESCAPE '\\' "
            "OR lower(w.origin) LIKE :f_text ESCAPE '\\' "
            "OR lower(coalesce(w.source_trajectory, '')) LIKE :f_text ESCAPE '\\')"
        )
    return (" WHERE " + " AND ".join(clauses)) if clauses else ""


def escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def ci_pair(lo: Any, hi: Any) -> tuple[float, float] | None:
    return (float(lo), float(hi)) if lo is not None and hi is not None else None


def plain_rows(result: Any) -> list[dict[str, Any]]:
    """A statement's rows as plain dicts: the keys are read once, not once a row."""
    keys = list(result.keys())
    return [dict(zip(keys, row)) for row in result.all()]


def workspace_rule(found: Any) -> WorkspaceRule:
    # A plain dict: a SQLAlchemy mapping's get() of an absent key (g_key on a plain page)
    # goes through an exception, a tenth of the page's time.
    r = found if isinstance(found, dict) else dict(found)
    return WorkspaceRule(
        result_id=r["id"], run_id=r["run_id"], run_status=r["run_status"], profile=r["profile"],
        rule_id=r["rule_id"], rule_version_id=r["rule_version_id"], version=r["version"],
        latest_version=r["latest_version"] or r["version"], kind=r["kind"], origin=r["origin"],
        trigger=r["trigger"], directive=r["directive"], domain=r["rule_domain"], corpus=r["rule_corpus"],
        source_trajectory=r["source_trajectory"], verdict=r["verdict"], reason=r["reason"],
        threshold=r["threshold"], prevented_n=r["prevented_n"], broken_n=r["broken_n"],
        near_miss_n=r["near_miss_n"], missed_n=r["missed_n"], precision=r["precision"],
        precision_ci=ci_pair(r["precision_lo"], r["precision_hi"]), recall=r["recall"],
        recall_ci=ci_pair(r["recall_lo"], r["recall_hi"]), status=r["d_action"] or "unreviewed",
        reviewer=r["d_reviewer"], decision_reason=r["d_reason"], decided_version_id=r["d_version"],
        verdict_mark=r["m_mark"], group_key=r.get("g_key") or r.get("dup_key"),
        group_size=int(r.get("g_size") or 1), group_unreviewed=int(r.get("g_unreviewed") or 0),
        row_version=None if r.get("row_version") is None else int(r["row_version"]),
    )
