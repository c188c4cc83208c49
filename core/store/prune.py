"""Keeping the store bounded: ``store prune`` deletes old replay runs that nothing cites.

A run is most of a store's size (its outcome blocks: ``store stats``), and every replay adds
one. ``plan_prune`` keeps the newest ``keep`` runs and every run something rests on, and
lists the others with what deleting them frees; ``prune`` deletes those, one run at a time.

Kept, whatever their age (``Cite``): a run still running; a run a decision names (its
``run_id`` or its evidence), a promotion's evidence names, an agreement session samples, an
agreement item, waiver, agreement mark or opened evidence points into; and a run holding a
rule's newest complete result (what the window shows for that rule). Nothing a reviewer did,
nor what it rests on, is deleted: the store's keys refuse it anyway (revisions
``0011_team_guard`` and ``0015_store_prune``), so a citation added after the plan only stops
that run.

Deleting one run, in bounded transactions so a kill at any point leaves a consistent store:

1. one transaction checks again that nothing cites the run, sets its status to ``pruning``
   (the window shows complete runs only, so the run leaves it at once, whole) and writes the
   audit event;
2. its results are deleted ``batch`` at a time (their outcome blocks and pools go with them:
   ``ON DELETE CASCADE``), each batch one transaction;
3. the last transaction deletes the run row (its owner row goes with it).

A run left ``pruning`` by a kill is finished by the next prune, whatever ``keep`` says. On a
team store only a lead prunes: each step is the server function ``workbench_prune_run``
(``core.team.prune_function``), which checks the login and the citations itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import text
from sqlmodel import Session

from core.store.engine import Store
from core.store.review_repo import append_audit
from core.store.tables import SettingRow

PRUNING = "pruning"
KEEP_SETTING = "store.prune.keep_runs"
DEFAULT_KEEP = 10
BATCH_RESULTS = 200  # results (and their outcome blocks) per delete transaction
PRUNE_ACTION = "prune_run"

# Runs the store's rows point at, with what points (one query per kind; all small tables but results).
_CITED_SQL = {
    "a decision": "SELECT DISTINCT run_id FROM decision WHERE run_id IS NOT NULL",
    "an agreement session": "SELECT DISTINCT run_id FROM agreement_session WHERE run_id IS NOT NULL",
    "an agreement item": "SELECT DISTINCT rr.run_id FROM agreement_item x JOIN replay_result rr ON rr.id = x.result_id",
    "a waiver": "SELECT DISTINCT rr.run_id FROM waiver x JOIN replay_result rr ON rr.id = x.result_id",
    "an agreement mark": "SELECT DISTINCT rr.run_id FROM agreement_mark x JOIN replay_result rr ON rr.id = x.result_id",
    "opened evidence": "SELECT DISTINCT rr.run_id FROM evidence_view x JOIN replay_result rr ON rr.id = x.result_id",
    "a running replay": "SELECT id FROM replay_run WHERE status = 'running'",
    # The run of each rule's newest complete result: what the window shows for that rule.
    "a rule's current result": """
        SELECT DISTINCT run_id FROM (
            SELECT rr.run_id, ROW_NUMBER() OVER (PARTITION BY rv.rule_id ORDER BY rr.run_id DESC, rr.id DESC) AS n
            FROM replay_result rr JOIN rule_version rv ON rv.id = rr.rule_version_id
            JOIN replay_run run ON run.id = rr.run_id WHERE run.status = 'complete') ranked
        WHERE n = 1""",
}


@dataclass(frozen=True)
class RunCost:
    """One run and what it occupies: its results, stored pairs and bytes (outcome blocks exact,
    result rows approximate)."""

    run_id: int
    status: str
    profile: str
    started_at: str
    scope: str | None
    results: int
    stored_pairs: int
    block_bytes: int
    result_bytes: int

    @property
    def bytes(self) -> int:
        return self.block_bytes + self.result_bytes


@dataclass(frozen=True)
class PrunePlan:
    keep: int
    kept: dict[int, tuple[str, ...]]  # run id -> why it stays
    prune: tuple[RunCost, ...]  # oldest first

    @property
    def results(self) -> int:
        return sum(r.results for r in self.prune)

    @property
    def bytes(self) -> int:
        return sum(r.bytes for r in self.prune)


@dataclass(frozen=True)
class PruneOutcome:
    runs: tuple[int, ...]  # deleted
    skipped: dict[int, str] = field(default_factory=dict)  # run id -> why it was not deleted after all
    results: int = 0
    bytes: int = 0  # what the plan counted for the deleted runs
    cancelled: bool = False


class PruneRefused(RuntimeError):
    """The store refuses the prune (one line: who may, or what still cites a run)."""


def keep_setting(store: Store) -> int:
    """How many newest runs a prune keeps when ``--keep`` is not given (the store's setting)."""
    with store.read_session() as session:
        row = session.get(SettingRow, KEEP_SETTING)
    try:
        value = int(json.loads(row.value_json)) if row is not None else DEFAULT_KEEP
    except (TypeError, ValueError):
        return DEFAULT_KEEP
    return value if value >= 1 else DEFAULT_KEEP


def save_keep_setting(store: Store, keep: int) -> None:
    with store.session() as session:
        row = session.get(SettingRow, KEEP_SETTING)
        if row is None:
            session.add(SettingRow(key=KEEP_SETTING, value_json=json.dumps(keep)))
        else:
            row.value_json = json.dumps(keep)
            session.add(row)


def citations(session: Session, only_run: int | None = None) -> dict[int, set[str]]:
    """Every cited run id -> what cites it (see the module doc)."""
    cited: dict[int, set[str]] = {}
    for reason, sql in _CITED_SQL.items():
        for (run_id,) in session.execute(text(sql)).all():
            if run_id is not None:
                cited.setdefault(int(run_id), set()).add(reason)
    for reason, table in (("a decision's evidence", "decision"), ("a promotion's evidence", "promotion")):
        for run_id in _evidence_runs(session, table):
            cited.setdefault(run_id, set()).add(reason)
    if only_run is not None:
        return {only_run: cited[only_run]} if only_run in cited else {}
    return cited


def _evidence_runs(session: Session, table: str) -> set[int]:
    """Runs named by the ``run_id`` / ``result_id`` of a table's evidence JSON."""
    runs: set[int] = set()
    results: set[int] = set()
    for (raw,) in session.execute(text(f"SELECT evidence_json FROM {table} WHERE evidence_json IS NOT NULL")).all():
        try:
            evidence = json.loads(raw)
        except ValueError:
            continue
        if isinstance(evidence, dict):
            runs.update(_ints([evidence.get("run_id")]))
            results.update(_ints([evidence.get("result_id")]))
    for chunk in _chunks(sorted(results), 500):
        marks = ", ".join(str(r) for r in chunk)  # integers only (_ints)
        runs.update(int(r[0]) for r in session.execute(
            text(f"SELECT DISTINCT run_id FROM replay_result WHERE id IN ({marks})")).all())
    return runs


def _ints(values: Iterable[Any]) -> set[int]:
    return {v for v in values if isinstance(v, int) and not isinstance(v, bool)}


def _chunks(values: list[int], size: int) -> Iterable[list[int]]:
    for start in range(0, len(values), size):
        yield values[start:start + size]


def run_costs(session: Session) -> list[RunCost]:
    """Every run with its results, stored pairs and bytes, oldest first."""
    length = "octet_length" if session.get_bind().dialect.name == "postgresql" else "length"
    rows = session.execute(text(f"""
        SELECT run.id, run.status, run.profile, run.started_at, run.scope,
               (SELECT count(*) FROM replay_result rr WHERE rr.run_id = run.id),
               (SELECT coalesce(sum(b.n), 0) FROM replay_result rr JOIN replay_outcome_block b ON b.result_id = rr.id
                WHERE rr.run_id = run.id),
               (SELECT coalesce(sum({length}(b.data)), 0) FROM replay_result rr
                JOIN replay_outcome_block b ON b.result_id = rr.id WHERE rr.run_id = run.id),
               (SELECT coalesce(sum({length}(rr.reason) + {length}(rr.recall_pool_json)
                                    + {length}(rr.precision_pool_json) + 120), 0)
                FROM replay_result rr WHERE rr.run_id = run.id)
        FROM replay_run run ORDER BY run.id""")).all()
    return [RunCost(int(r[0]), str(r[1]), str(r[2]), str(r[3]), r[4], int(r[5]), int(r[6]), int(r[7]), int(r[8]))
            for r in rows]


def plan_prune(store: Store, keep: int) -> PrunePlan:
    """Which runs a prune keeping the newest ``keep`` would delete, and why the others stay."""
    if keep < 1:
        raise ValueError("keep at least one run (--keep 1 or more)")
    with store.read_session() as session:
        costs = run_costs(session)
        cited = citations(session)
    kept: dict[int, tuple[str, ...]] = {}
    newest = {c.run_id for c in costs if c.status != PRUNING}
    newest = set(sorted(newest)[-keep:])
    prune: list[RunCost] = []
    for cost in costs:
        if cost.status == PRUNING:  # a prune killed midway: finish it
            prune.append(cost)
            continue
        reasons = sorted(cited.get(cost.run_id, set()))
        if cost.run_id in newest:
            reasons.insert(0, f"one of the newest {keep}")
        if reasons:
            kept[cost.run_id] = tuple(reasons)
        else:
            prune.append(cost)
    return PrunePlan(keep, kept, tuple(prune))


def _server_prunes(session: Session) -> bool:
    """A team store: the server's ``workbench_prune_run`` does each step (and checks the login)."""
    if session.get_bind().dialect.name != "postgresql":
        return False
    return bool(session.execute(text(
        "SELECT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
        "WHERE n.nspname = 'public' AND p.proname = 'workbench_prune_run')")).scalar_one())


def prune(store: Store, plan: PrunePlan, actor: str, batch: int = BATCH_RESULTS,
          cancel: Callable[[], bool] | None = None,
          progress: Callable[[RunCost, int], None] | None = None) -> PruneOutcome:
    """Delete the plan's runs, oldest first, each in bounded transactions (module doc).

    ``cancel`` is asked between transactions: a cancelled prune stops there, its current run
    left ``pruning`` (hidden, finished by the next prune). ``progress(run, results_left)``
    after each transaction."""
    with store.read_session() as session:
        server = _server_prunes(session)
    done: list[int] = []
    skipped: dict[int, str] = {}
    results = freed = 0
    for cost in plan.prune:
        if cancel is not None and cancel():
            return PruneOutcome(tuple(done), skipped, results, freed, cancelled=True)
        step = _server_step if server else _local_step
        while True:
            with store.session() as session:
                left = step(session, cost, actor, batch)
            if left is None:  # cited since the plan, or gone
                skipped[cost.run_id] = "cited since the plan, or no longer in the store"
                break
            if progress is not None:
                progress(cost, left)
            if left == 0:
                done.append(cost.run_id)
                results += cost.results
                freed += cost.bytes
                break
            if cancel is not None and cancel():
                return PruneOutcome(tuple(done), skipped, results, freed, cancelled=True)
    return PruneOutcome(tuple(done), skipped, results, freed)


def _server_step(session: Session, cost: RunCost, actor: str, batch: int) -> int | None:
    # The server writes the audit event in the login's name (session_user), not ``actor``.
    left = session.execute(text("SELECT public.workbench_prune_run(:run, :batch)"),
                           {"run": cost.run_id, "batch": batch}).scalar_one()
    return None if left is None or int(left) < 0 else int(left)


def _local_step(session: Session, cost: RunCost, actor: str, batch: int) -> int | None:
    """One transaction of a SQLite (or single-user PostgreSQL) prune; the results left, or None
    when the run must stay after all."""
    status = session.execute(text("SELECT status FROM replay_run WHERE id = :run"), {"run": cost.run_id}).scalar()
    if status is None or status == "running":
        return None
    if status != PRUNING:
        if citations(session, cost.run_id):
            return None
        session.execute(text("UPDATE replay_run SET status = :pruning WHERE id = :run"),
                        {"pruning": PRUNING, "run": cost.run_id})
        append_audit(session, actor, PRUNE_ACTION, "replay_run", cost.run_id, "store prune",
                     before={"status": status, "profile": cost.profile, "started_at": cost.started_at,
                             "results": cost.results, "stored_pairs": cost.stored_pairs, "bytes": cost.bytes},
                     after={"status": PRUNING})
        return cost.results or 1  # the deletes start in the next transaction
    session.execute(text("DELETE FROM replay_result WHERE id IN (SELECT id FROM replay_result WHERE run_id = :run "
                         "ORDER BY id LIMIT :batch)"), {"run": cost.run_id, "batch": batch})
    left = int(session.execute(text("SELECT count(*) FROM replay_result WHERE run_id = :run"),
                               {"run": cost.run_id}).scalar_one())
    if left == 0:
        session.execute(text("DELETE FROM replay_run WHERE id = :run"), {"run": cost.run_id})
    return left
