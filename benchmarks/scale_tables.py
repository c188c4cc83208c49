"""The table figures of ``benchmarks/scale.py``: every sort and filter the window offers, timed.

Each line gives the worst wall time and, in brackets, the worst CPU time of the process
(``time.process_time``: on a shared machine the wall clock also counts other processes) and
the median CPU and wall times.
The rules table is timed as the window shows it (duplicates grouped, a page of group rows:
``page_groups``; the largest group's members as expanding it reads them) and one row per
rule (``page``), for every sort key in both directions and for each filter; the trajectories table as count + first page for every
sort, unfiltered and under each filter; the evidence table as counts, first and last page
of each bucket of the largest result, and the whole bundle.

``review_everything`` (``scale.py --reviewed``) gives every rule a decision (a fifth of them
undone and decided again) and a verdict mark, once: the table as a team sees it mid-review.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from core.store.corpus_repo import CorpusRepository, TrajectoryFilter
from core.store.engine import Store
from core.store.replay_repo import ReplayRepository
from core.store.result_repo import ResultRepository
from core.store.workspace_query import BUCKETS, SORT_KEYS, WorkspaceFilter, WorkspaceScope

REVIEWER = "bench"
TRAJECTORY_SORTS = ("id", "trajectory_id", "corpus", "domain", "success", "failure_class", "expected_rule")


class Worst:
    """The worst wall and CPU time over the operations it timed, and the median CPU time."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0
        self.cpus: list[float] = []
        self.walls: list[float] = []

    def time(self, fn: Callable[[], Any]) -> Any:
        c0, t0 = time.process_time(), time.perf_counter()
        value = fn()
        self.walls.append(time.perf_counter() - t0)
        self.cpus.append(time.process_time() - c0)
        self.wall, self.cpu = max(self.walls), max(self.cpus)
        return value

    def __str__(self) -> str:
        median = statistics.median(self.cpus) if self.cpus else 0.0
        wall = statistics.median(self.walls) if self.walls else 0.0
        return (f"{self.wall * 1000:8.1f} ms ({self.cpu * 1000:.0f} ms CPU; median {median * 1000:.0f} ms CPU, "
                f"{wall * 1000:.0f} ms wall)")


def review_everything(store: Store) -> int:
    """A decision and a verdict mark for every rule of the newest results (benchmark data)."""
    with store.session() as session:
        connection = session.connection()
        if connection.exec_driver_sql("SELECT 1 FROM decision WHERE reviewer = ? LIMIT 1", (REVIEWER,)).first():
            return 0
        rows = connection.exec_driver_sql(
            "SELECT rr.id, rv.rule_id, rv.id, rr.run_id, rr.verdict FROM replay_result rr "
            "JOIN rule_version rv ON rv.id = rr.rule_version_id").all()
        at = "2026-12-01T00:00:00Z"
        for i, (result_id, rule_id, version_id, run_id, verdict) in enumerate(rows):
            decide = ("INSERT INTO decision (rule_id, rule_version_id, run_id, reviewer, action, reason, undoes_id, "
                      "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
            if i % 5 == 0:  # decided, undone, decided again
                first = connection.exec_driver_sql(
                    decide, (rule_id, version_id, run_id, REVIEWER, "reject", "bench", None, at)).lastrowid
                connection.exec_driver_sql(decide, (rule_id, version_id, run_id, REVIEWER, "undo", None, first, at))
            connection.exec_driver_sql(decide, (rule_id, version_id, run_id, REVIEWER, ("approve", "reject", "defer")[i % 3],
                                                "bench", None, at))
            connection.exec_driver_sql(
                "INSERT INTO agreement_mark (reviewer, result_id, trajectory_pk, replay_answer, mark, blinded, "
                "created_at) VALUES (?, ?, NULL, ?, ?, 0, ?)",
                (REVIEWER, result_id, verdict, ("right", "wrong", "cant_tell")[i % 3], at))
        return len(rows)


def groups_expanding(results: ResultRepository, scope: WorkspaceScope, say: Callable[[str, str], None]) -> None:
    """The largest duplicate group: its members read (what expanding it asks) for every sort, the
    group of its last member found (selecting a rule of a collapsed group), and a refresh with
    the group open (the page, then the open group's members, as the window reads them)."""
    heads = results.page_groups(scope, WorkspaceFilter(), REVIEWER, limit=100_000).rows
    if not heads:
        return
    largest = max(heads, key=lambda r: r.group_size)
    key = largest.group_key or ""
    expand, locate, refresh = Worst(), Worst(), Worst()
    members: list[Any] = []
    for order in SORT_KEYS:
        for descending in (False, True):
            members = expand.time(lambda: results.group_members(scope, WorkspaceFilter(), [key], REVIEWER,
                                                                order_by=order, descending=descending))[key]
    locate.time(lambda: results.rule_group(scope, WorkspaceFilter(), members[-1].rule_id, REVIEWER))
    for order in ("rule", "status", "trigger"):
        refresh.time(lambda: (results.page_groups(scope, WorkspaceFilter(), REVIEWER, order_by=order, limit=200),
                              results.group_members(scope, WorkspaceFilter(), [key], REVIEWER, order_by=order)))
    say(f"rules table: expand the largest group ({largest.group_size} rules), worst of {2 * len(SORT_KEYS)} sorts",
        f"{expand}; find a member's group {locate}; refresh with it open, worst of 3 sorts {refresh}")


def tables(store: Store, say: Callable[[str, str], None]) -> None:
    results, corpora = ResultRepository(store), CorpusRepository(store)
    scope = WorkspaceScope()
    options = results.filter_options(scope)
    rule_filters = [WorkspaceFilter(verdict=v) for v in options["verdict"][:3]]
    rule_filters += [WorkspaceFilter(reason=options["reason"][0])] if options["reason"] else []
    rule_filters += [WorkspaceFilter(domain=options["domain"][0])] if options["domain"] else []
    rule_filters += [WorkspaceFilter(corpus=options["corpus"][0])] if options["corpus"] else []
    rule_filters += [WorkspaceFilter(status=s) for s in ("unreviewed", "approve")]
    rule_filters += [WorkspaceFilter(text="git"), WorkspaceFilter(verdict="fail", text="git")]
    for name, read in (("rules table as shown (duplicates grouped, group rows only)", results.page_groups),
                       ("rules table, one row per rule", results.page)):
        sorts, filters = Worst(), Worst()
        page = None
        for key in SORT_KEYS:
            for descending in (False, True):
                page = sorts.time(lambda: read(scope, WorkspaceFilter(), REVIEWER, order_by=key,
                                               descending=descending, limit=200))
        for flt in rule_filters:
            filters.time(lambda: read(scope, flt, REVIEWER, order_by="trigger", limit=200))
        assert page is not None
        say(f"{name}: worst of {2 * len(SORT_KEYS)} sorts", f"{sorts}; worst of {len(rule_filters)} filters {filters}"
            f" ({page.total:,} rows for {page.rules if page.rules >= 0 else page.total:,} rules)")
    groups_expanding(results, scope, say)
    worst = Worst()
    worst.time(lambda: results.filter_options(scope))
    say("rules table: filter choices", str(worst))

    corpus_names = [c.name for c in corpora.list_corpora()]
    domains = corpora.domains()
    trajectory_filters = {
        "none": TrajectoryFilter(), "text 'docker'": TrajectoryFilter(text="docker"),
        "text 'docker' + failures": TrajectoryFilter(text="docker", success=False),
        "text matching nothing": TrajectoryFilter(text="no such text"),
        "one corpus": TrajectoryFilter(corpus=corpus_names[0] if corpus_names else None),
        "one domain": TrajectoryFilter(domain=domains[0] if domains else None),
        "with expected_rule": TrajectoryFilter(has_expected_rule=True),
    }
    for name, flt in trajectory_filters.items():
        worst = Worst()
        for key in TRAJECTORY_SORTS:
            for descending in (False, True):
                worst.time(lambda: (corpora.count_trajectories(flt),
                                    corpora.list_trajectories(flt, 0, 200, key, descending)))
        say(f"trajectories table, filter {name}: worst count + page of {2 * len(TRAJECTORY_SORTS)} sorts", str(worst))

    trajectory_filters_as_offered(corpora, say)

    run = ReplayRepository(store).latest_complete_run()
    if run is None:
        return
    with store.read_session() as session:
        # The result's own counts (counting the view would derive every missed row of the run).
        row = session.connection().exec_driver_sql(
            "SELECT id, prevented_n + broken_n + near_miss_n + missed_n FROM replay_result WHERE run_id = ? "
            "ORDER BY 2 DESC, id LIMIT 1", (run.id,)).first()
    if row is None:
        return
    result_id, rows = int(row[0]), int(row[1])
    counts_time, pages, bundle = Worst(), Worst(), Worst()
    counts = counts_time.time(lambda: results.evidence_counts(result_id))
    for bucket in BUCKETS:
        n = counts.get(bucket, 0)
        pages.time(lambda: results.evidence_page(result_id, bucket, offset=0, limit=200))
        pages.time(lambda: results.evidence_page(result_id, bucket, offset=max(0, n - 200), limit=200))
    bundle.time(lambda: results.evidence_bundle(result_id, REVIEWER))
    say("evidence: largest result", f"{rows:,} rows ({', '.join(f'{b} {counts.get(b, 0):,}' for b in BUCKETS)})")
    say("  counts / worst first or last page of a bucket / bundle", f"{counts_time} / {pages} / {bundle}")


def trajectory_filters_as_offered(corpora: CorpusRepository, say: Callable[[str, str], None]) -> None:
    """Every combination of the filters the window's trajectories table offers (the text box,
    the corpus picked in the navigator, the loop's gate filter: a set of primary keys) with
    every sort in both directions, each timed as the window reads it (count + first page);
    prints the slowest (issue 27: no slow corner)."""
    names = [c.name for c in corpora.list_corpora()]
    with corpora._store.read_session() as session:  # noqa: SLF001 - benchmark: the gate's pks as a scan finds them
        every_pk = [int(r[0]) for r in session.connection().exec_driver_sql("SELECT id FROM trajectory ORDER BY id")]
    gates = {"": None, "gate (a third of the trajectories)": tuple(every_pk[::3]),
             "gate (200 trajectories)": tuple(every_pk[::max(1, len(every_pk) // 200)])}
    texts = ("", "docker", "no such text", "e")
    worst_name, worst_cpu, overall = "", 0.0, Worst()
    for text in texts:
        for corpus in (None, *names[:2]):
            for gate_name, pks in gates.items():
                flt = TrajectoryFilter(text=text, corpus=corpus, pks=pks)
                for key in TRAJECTORY_SORTS:
                    for descending in (False, True):
                        before = overall.cpu if overall.cpus else -1.0
                        overall.time(lambda: (corpora.count_trajectories(flt),
                                              corpora.list_trajectories(flt, 0, 200, key, descending)))
                        if overall.cpus[-1] > worst_cpu or before < 0:
                            worst_cpu = overall.cpus[-1]
                            worst_name = (f"text {text!r}, corpus {corpus or 'all'}, {gate_name or 'no gate'}, "
                                          f"sort {key}{' desc' if descending else ''}")
    say(f"trajectories table, every offered filter x sort ({len(overall.cpus)} reads)",
        f"{overall}; slowest by CPU: {worst_name}")
