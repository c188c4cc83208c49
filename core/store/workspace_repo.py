"""Queries for the review workspace: the rules table, evidence flags, marks, bucket moves.

The rules table shows one row per rule: either every result of one chosen run, or (the
default) each rule's newest result from a complete run, plus any run the caller is
watching live. Filtering, sorting and paging happen here, in SQL, so the window holds only
the rows it shows. Review status is the rule's effective decision (undone decisions do not
count), computed in the same query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import text

from core.store.dto import RuleVersionInfo
from core.store.engine import Store
from core.store.evidence_pages import PagedOutcomes, evidence_counts, evidence_page
from core.store.replay_repo import StoredOutcome, StoredResult, _stored_result
from core.store.review_repo import append_audit
from core.store.rule_repo import RuleText, _add_version, _latest_version_row, _version_info
from core.timeutil import utc_now

REVIEW_STATUSES = ("unreviewed", "approve", "reject", "defer")
BUCKETS = ("prevented", "broken", "near_miss", "missed")


@dataclass(frozen=True)
class WorkspaceFilter:
    verdict: str | None = None
    reason: str | None = None
    domain: str | None = None
    corpus: str | None = None
    status: str | None = None  # one of REVIEW_STATUSES
    text: str = ""


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


@dataclass(frozen=True)
class RulePage:
    total: int
    unreviewed: int
    rows: list[WorkspaceRule]


@dataclass(frozen=True)
class EvidenceBundle:
    """Everything the evidence board shows for one result, read in one session."""

    result: StoredResult | None
    outcomes: dict[str, Sequence[StoredOutcome]]  # PagedOutcomes from evidence_bundle
    viewed: frozenset[int]
    waived: dict[int, str]
    marks: dict[int | None, str]


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

_EFFECTIVE_DECISIONS = """
    SELECT rule_id, action, reviewer, reason, rule_version_id FROM (
        SELECT d.rule_id, d.action, d.reviewer, d.reason, d.rule_version_id,
               ROW_NUMBER() OVER (PARTITION BY d.rule_id ORDER BY d.id DESC) AS rn
        FROM decision d
        WHERE d.action IN ('approve', 'reject', 'defer')
          AND NOT EXISTS (SELECT 1 FROM decision u WHERE u.undoes_id = d.id)
    ) WHERE rn = 1
"""

# The reviewer's newest mark on each result's verdict (trajectory_pk NULL).
_VERDICT_MARKS = """
    SELECT result_id, mark FROM (
        SELECT result_id, mark, ROW_NUMBER() OVER (PARTITION BY result_id ORDER BY id DESC) AS rn
        FROM agreement_mark WHERE reviewer = :reviewer AND trajectory_pk IS NULL
    ) WHERE rn = 1
"""


_ROW_COLUMNS = (
    "w.*, d.action AS d_action, d.reviewer AS d_reviewer, d.reason AS d_reason, "
    "d.rule_version_id AS d_version, m.mark AS m_mark"
)


def _results_cte(scope: WorkspaceScope, params: dict[str, Any]) -> str:
    base = """
        SELECT rr.*, rv.rule_id, rv.version, rv.trigger, rv.directive, r.origin, r.kind,
               r.domain AS rule_domain, r.source_trajectory, c.name AS rule_corpus,
               run.status AS run_status, run.profile,
               (SELECT max(v2.version) FROM rule_version v2 WHERE v2.rule_id = rv.rule_id) AS latest_version
        FROM replay_result rr
        JOIN rule_version rv ON rv.id = rr.rule_version_id
        JOIN rule r ON r.id = rv.rule_id
        JOIN replay_run run ON run.id = rr.run_id
        LEFT JOIN corpus c ON c.id = r.corpus_id
    """
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
        ) WHERE newest = 1
    """


def _where(flt: WorkspaceFilter, params: dict[str, Any], extra: Sequence[str] = ()) -> str:
    clauses: list[str] = list(extra)
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
        params["f_text"] = f"%{_escape_like(needle)}%"
        clauses.append(
            "(lower(w.trigger) LIKE :f_text ESCAPE '\\' OR lower(w.directive) LIKE :f_text ESCAPE '\\' "
            "OR lower(w.origin) LIKE :f_text ESCAPE '\\' "
            "OR lower(coalesce(w.source_trajectory, '')) LIKE :f_text ESCAPE '\\')"
        )
    return (" WHERE " + " AND ".join(clauses)) if clauses else ""


def _escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _ci(lo: Any, hi: Any) -> tuple[float, float] | None:
    return (float(lo), float(hi)) if lo is not None and hi is not None else None


def _workspace_rule(r: Any) -> WorkspaceRule:
    return WorkspaceRule(
        result_id=r["id"], run_id=r["run_id"], run_status=r["run_status"], profile=r["profile"],
        rule_id=r["rule_id"], rule_version_id=r["rule_version_id"], version=r["version"],
        latest_version=r["latest_version"] or r["version"], kind=r["kind"], origin=r["origin"],
        trigger=r["trigger"], directive=r["directive"], domain=r["rule_domain"], corpus=r["rule_corpus"],
        source_trajectory=r["source_trajectory"], verdict=r["verdict"], reason=r["reason"],
        threshold=r["threshold"], prevented_n=r["prevented_n"], broken_n=r["broken_n"],
        near_miss_n=r["near_miss_n"], missed_n=r["missed_n"], precision=r["precision"],
        precision_ci=_ci(r["precision_lo"], r["precision_hi"]), recall=r["recall"],
        recall_ci=_ci(r["recall_lo"], r["recall_hi"]), status=r["d_action"] or "unreviewed",
        reviewer=r["d_reviewer"], decision_reason=r["d_reason"], decided_version_id=r["d_version"],
        verdict_mark=r["m_mark"],
    )


class WorkspaceRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    # -- the rules table ---------------------------------------------------------------
    def _query(self, scope: WorkspaceScope, flt: WorkspaceFilter, reviewer: str | None,
               select: str, extra: Sequence[str] = ()) -> tuple[str, dict[str, Any]]:
        params: dict[str, Any] = {"reviewer": reviewer or ""}
        sql = f"""
            WITH w AS ({_results_cte(scope, params)}),
                 d AS ({_EFFECTIVE_DECISIONS}),
                 m AS ({_VERDICT_MARKS})
            SELECT {select}
            FROM w LEFT JOIN d ON d.rule_id = w.rule_id LEFT JOIN m ON m.result_id = w.id
            {_where(flt, params, extra)}
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
            scope, flt, reviewer, "count(*), coalesce(sum(coalesce(d.action, 'unreviewed') = 'unreviewed'), 0)")
        rows_sql, rows_params = self._query(scope, flt, reviewer, _ROW_COLUMNS)
        rows_sql += f" ORDER BY {expression} {direction}, w.rule_id ASC LIMIT :limit OFFSET :offset"
        rows_params.update(limit=int(limit), offset=int(offset))
        with self._store.read_session() as session:
            total, unreviewed = session.execute(text(count_sql), count_params).one()
            rows = [_workspace_rule(r) for r in session.execute(text(rows_sql), rows_params).mappings().all()]
        return RulePage(int(total), int(unreviewed) if flt.status in (None, "unreviewed") else 0, rows)

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
        sql, params = self._query(scope, flt, reviewer, _ROW_COLUMNS)
        sql += f" ORDER BY {expression} {direction}, w.rule_id ASC LIMIT :limit OFFSET :offset"
        params.update(limit=int(limit), offset=int(offset))
        with self._store.read_session() as session:
            return [_workspace_rule(r) for r in session.execute(text(sql), params).mappings().all()]

    def rule_row(self, scope: WorkspaceScope, rule_id: int, reviewer: str | None = None) -> WorkspaceRule | None:
        sql, params = self._query(scope, WorkspaceFilter(), reviewer, _ROW_COLUMNS, ["w.rule_id = :one_rule"])
        params["one_rule"] = rule_id
        with self._store.read_session() as session:
            row = session.execute(text(sql), params).mappings().first()
            return _workspace_rule(row) if row is not None else None

    def filter_options(self, scope: WorkspaceScope) -> dict[str, list[str]]:
        """Distinct values present in the scope, for the filter combos."""
        params: dict[str, Any] = {}
        cte = _results_cte(scope, params)
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

    def run_id_for_scope(self, scope_label: str) -> int | None:
        """The newest run started with this scope label (the window labels its runs uniquely)."""
        with self._store.read_session() as session:
            row = session.execute(
                text("SELECT id FROM replay_run WHERE scope = :s ORDER BY id DESC LIMIT 1"), {"s": scope_label}
            ).first()
            return int(row[0]) if row else None

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
        with self._store.read_session() as session:
            row = session.execute(
                text(
                    """SELECT rr.*, rv.rule_id, rv.version, rv.trigger, rv.directive,
                              r.origin, r.kind, r.domain AS rule_domain, r.source_trajectory
                       FROM replay_result rr JOIN rule_version rv ON rv.id = rr.rule_version_id
                       JOIN rule r ON r.id = rv.rule_id WHERE rr.id = :id"""
                ),
                {"id": result_id},
            ).mappings().first()
            flags: dict[str, Any] = {"viewed": [], "waived": [], "marks": []}
            if reviewer:
                params = {"r": reviewer, "res": result_id}
                flags["viewed"] = session.execute(
                    text("SELECT trajectory_pk FROM evidence_view WHERE reviewer = :r AND result_id = :res"), params
                ).all()
                flags["waived"] = session.execute(
                    text("SELECT trajectory_pk, reason FROM waiver WHERE reviewer = :r AND result_id = :res "
                         "ORDER BY id"), params
                ).all()
                flags["marks"] = session.execute(
                    text("SELECT trajectory_pk, mark FROM agreement_mark WHERE reviewer = :r AND result_id = :res "
                         "ORDER BY id"), params
                ).all()
        # Each bucket reads its rows a page at a time as the table scrolls: a result with
        # 10^4 evidence rows opens by reading one page, not all of them.
        counts = evidence_counts(self._store, result_id)
        buckets = (*BUCKETS, *sorted(set(counts) - set(BUCKETS)))
        outcomes: dict[str, Sequence[StoredOutcome]] = {
            b: PagedOutcomes(self._store, result_id, b, counts.get(b, 0)) for b in buckets
        }
        return EvidenceBundle(
            result=_stored_result(row) if row is not None else None, outcomes=outcomes,
            viewed=frozenset(int(v[0]) for v in flags["viewed"]),
            waived={int(w[0]): str(w[1]) for w in flags["waived"]},
            marks={(None if m[0] is None else int(m[0])): str(m[1]) for m in flags["marks"]},
        )

    def evidence_counts(self, result_id: int) -> dict[str, int]:
        """Rows per bucket of one result (what the bucket tabs show before any row is read)."""
        return evidence_counts(self._store, result_id)

    def evidence_page(self, result_id: int, bucket: str, offset: int = 0, limit: int = 200) -> list[StoredOutcome]:
        """One page of a bucket's evidence in the evidence table's order (score, then id)."""
        return evidence_page(self._store, result_id, bucket, offset, limit)

    def waivers(self, reviewer: str, result_id: int) -> dict[int, str]:
        """trajectory pk -> waiver reason, for this reviewer's waivers on a result."""
        with self._store.read_session() as session:
            rows = session.execute(
                text("SELECT trajectory_pk, reason FROM waiver WHERE reviewer = :r AND result_id = :res ORDER BY id"),
                {"r": reviewer, "res": result_id},
            ).all()
            return {int(r[0]): str(r[1]) for r in rows}

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
    def previous_version_result(self, rule_id: int, before_version: int) -> int | None:
        """The newest complete result of the rule's newest version older than ``before_version``."""
        with self._store.read_session() as session:
            row = session.execute(
                text(
                    """SELECT rr.id FROM replay_result rr
                       JOIN rule_version rv ON rv.id = rr.rule_version_id
                       JOIN replay_run run ON run.id = rr.run_id
                       WHERE rv.rule_id = :rule AND rv.version < :v AND run.status = 'complete'
                       ORDER BY rv.version DESC, rr.run_id DESC LIMIT 1"""
                ),
                {"rule": rule_id, "v": before_version},
            ).first()
            return int(row[0]) if row else None

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
                    "INSERT OR IGNORE INTO evidence_view (reviewer, result_id, trajectory_pk, viewed_at) "
                    "VALUES (:r, :res, :t, :at)"
                ),
                {"r": reviewer, "res": result_id, "t": trajectory_pk, "at": utc_now()},
            ).rowcount
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


def status_counts(rows: Sequence[WorkspaceRule]) -> dict[str, int]:
    counts = {s: 0 for s in REVIEW_STATUSES}
    for row in rows:
        counts[row.status] = counts.get(row.status, 0) + 1
    return counts
