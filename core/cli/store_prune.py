"""``store prune``: what it prints and how it ends (``core.store.prune`` does the work).

``--dry-run`` prints the plan: the runs that would go (results, stored pairs, approximate bytes)
and why each other run stays. A real prune deletes the same runs, one bounded transaction at a
time, and reports what it freed. Ctrl-C stops between transactions: every step done is whole,
a run half deleted stays hidden (``pruning``) and the next prune finishes it.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import Any

from core.cli.output import json_text
from core.plain import terminal_safe
from core.store.engine import Store
from core.store.prune import PruneOutcome, PrunePlan, keep_setting, plan_prune, prune, save_keep_setting


def _mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def _file_bytes(store: Store) -> int:
    path = Path(str(store.path))
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def _print_plan(plan: PrunePlan, verb: str) -> None:
    print(f"{verb} {len(plan.prune)} run(s), {plan.results:,} results, ~{_mb(plan.bytes)}; "
          f"keeping {len(plan.kept)} run(s) (the newest {plan.keep} and every run something cites)")
    for r in plan.prune:
        print(f"  - run #{r.run_id}  {terminal_safe(r.status)}  {terminal_safe(r.profile)}  "
              f"{terminal_safe(r.started_at)}  {r.results:,} results  {r.stored_pairs:,} stored pairs  ~{_mb(r.bytes)}")
    for run_id, reasons in sorted(plan.kept.items()):
        print(f"  = run #{run_id} kept: {terminal_safe('; '.join(reasons))}")


def _plan_json(plan: PrunePlan) -> dict[str, Any]:
    return {"keep": plan.keep,
            "prune": [{"run": r.run_id, "status": r.status, "profile": r.profile, "started_at": r.started_at,
                       "results": r.results, "stored_pairs": r.stored_pairs, "bytes": r.bytes} for r in plan.prune],
            "kept": [{"run": run_id, "why": list(reasons)} for run_id, reasons in sorted(plan.kept.items())],
            "results": plan.results, "bytes": plan.bytes}


def _vacuum(path: Path) -> str | None:
    """Rewrite the SQLite file to return freed pages to the disk (its own connection, outside any
    transaction: VACUUM cannot run inside one). Why it could not, or None."""
    import sqlite3

    try:
        connection = sqlite3.connect(path, timeout=30, isolation_level=None)
        try:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.execute("VACUUM")
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()
    except sqlite3.Error as error:
        return str(error).splitlines()[0] if str(error) else type(error).__name__
    return None


def _may_prune(store: Store) -> bool:
    """Asked before the first step, for a clear line (the server refuses a reviewer anyway)."""
    from core.team.roles import may_export

    with store.engine.connect() as connection:
        return may_export(connection)  # the same rule: a lead, a superuser, or a store without a team


def run_prune(args: argparse.Namespace, store: Store) -> int:
    keep = args.keep if args.keep is not None else keep_setting(store)
    plan = plan_prune(store, keep)
    if args.dry_run:
        if args.json:
            print(json_text({"dry_run": True, **_plan_json(plan)}))
        else:
            _print_plan(plan, "would delete")
        return 0
    if store.is_postgres and not _may_prune(store):
        print("error: only a lead prunes a team store (nothing was deleted)", file=sys.stderr)
        return 1
    if args.remember and args.keep is not None:
        save_keep_setting(store, keep)
    actor = args.by or store.login() or getpass.getuser()
    before = None if store.is_postgres else _file_bytes(store)
    interrupted = False
    try:
        outcome = prune(store, plan, actor)
    except KeyboardInterrupt:
        interrupted = True
        outcome = PruneOutcome(())
    if interrupted:
        print("interrupted: every step done is whole; a run being deleted stays hidden and the next "
              "`store prune` finishes it", file=sys.stderr)
        return 130
    vacuumed, vacuum_problem = False, None
    if args.vacuum and not store.is_postgres and outcome.runs:
        vacuum_problem = _vacuum(Path(str(store.path)))
        vacuumed = vacuum_problem is None
    after = None if store.is_postgres else _file_bytes(store)
    if args.json:
        print(json_text({"dry_run": False, "vacuum_error": vacuum_problem, **_plan_json(plan), "deleted": list(outcome.runs),
                         "skipped": {str(k): v for k, v in outcome.skipped.items()}, "freed_bytes": outcome.bytes,
                         "file_bytes_before": before, "file_bytes_after": after, "vacuumed": vacuumed}))
        return 0
    print(f"deleted {len(outcome.runs)} run(s), {outcome.results:,} results, ~{_mb(outcome.bytes)} of data")
    for run_id, why in sorted(outcome.skipped.items()):
        print(f"  = run #{run_id} kept: {terminal_safe(why)}")
    if store.is_postgres:
        print("PostgreSQL: the server reuses the space after its (auto)VACUUM; returning it to the "
              "operating system (VACUUM FULL) is the server administrator's call")
    elif vacuum_problem is not None:
        print(f"error: the prune is done, but VACUUM could not run ({terminal_safe(vacuum_problem)}); "
              "the freed pages are reused by the next runs", file=sys.stderr)
        return 1
    elif vacuumed:
        print(f"file {_mb(before or 0)} -> {_mb(after or 0)} after VACUUM")
    else:
        print(f"file {_mb(after or 0)}: the freed pages are reused by the next runs "
              "(--vacuum rewrites the file to return them to the disk)")
    return 0
