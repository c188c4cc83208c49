"""CLI for the rest of the loop: ``gate``, ``taint``, ``injection``, ``cross-session`` and
``new-candidate``. Registered by ``core/cli.py``; every command shares the GUI's core."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from core.cli.output import json_text
from core.store.engine import Store

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def _store_arg(p: argparse.ArgumentParser) -> None:
    from core.store.engine import default_store_path, store_location

    p.add_argument("--store", type=store_location, default=None, help=f"store file or URL (default: {default_store_path()})")


def _json(value: Any) -> None:
    print(json_text(value))


def cmd_gate(args: argparse.Namespace, store: Store) -> int:
    from core.loop.views import gate_summaries

    modes = ("strict", "relaxed") if args.mode == "both" else (args.mode,)
    summaries = [s for s in gate_summaries(store, modes) if args.corpus is None or s.corpus == args.corpus]  # type: ignore[arg-type]
    if args.corpus is not None and not summaries:
        print(f"error: no corpus named {args.corpus!r} with trajectories in this store", file=sys.stderr)
        return EXIT_ERROR
    if not summaries and not args.json:
        print("no trajectories in this store: nothing to gate (import a corpus first)")
        return EXIT_OK
    if args.json:
        _json([s.to_dict() for s in summaries])
        return EXIT_OK
    for s in summaries:
        expected = ", ".join(f"{k} {v}" for k, v in s.expected.items())
        print(f"{s.corpus} [{s.mode}]: silenced {s.silenced.label()}; labels: {expected}; "
              f"reasons: {', '.join(f'{k} {v}' for k, v in s.reasons.items())}; disagreements {len(s.disagreements)}")
        if args.disagreements:
            for row in s.disagreements:
                print(f"  {row.trajectory_id}: expected {row.expected_outcome}, gate "
                      f"{'silences' if row.verdict.silenced else 'extracts'} ({row.verdict.why})")
    return EXIT_OK


def cmd_taint(args: argparse.Namespace, store: Store) -> int:
    from core.loop.views import taint_summary

    summary = taint_summary(store)
    if args.json:
        _json(summary)
        return EXIT_OK
    print(f"{summary['tainted_trajectories']} of {summary['trajectories']} trajectories tainted "
          f"({summary['reference_tainted_trajectories']} by the 0.3.1 scan); {len(summary['tainted_candidates'])} of "
          f"{summary['candidates']} candidates have a tainted source; approved {summary['tainted_approved']} "
          f"({summary['tainted_approved_with_justification']} with a recorded justification)")
    for c in summary["tainted_candidates"]:
        print(f"  rule {c['rule_id']} {c['origin']} <- {c['source']}: {c['why']}"
              + (" [approved]" if c["approved"] else ""))
    return EXIT_OK


def cmd_injection(args: argparse.Namespace, store: Store) -> int:
    from core.loop.views import injection_for_run
    from core.store.replay_repo import ReplayRepository

    repo = ReplayRepository(store)
    run = repo.get_run(args.run) if args.run is not None else repo.latest_complete_run()
    if run is None:
        print("error: " + (f"no replay run #{args.run} in this store" if args.run is not None
                          else "no complete replay run in this store"),
              file=sys.stderr)
        return EXIT_ERROR
    overlaps = injection_for_run(store, run.id, args.rule)
    missing = [rule_id for rule_id in dict.fromkeys(args.rule or []) if rule_id not in overlaps]
    if missing:
        print(f"error: no rule {', '.join(map(str, missing))} in replay run #{run.id}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        _json({"run": run.id, "rules": {str(k): v.to_dict() for k, v in overlaps.items()}})
        return EXIT_OK
    for rule_id, o in overlaps.items():
        print(f"rule {rule_id}: fires on {len(o.fired)} ({o.fired_failures} failures, {o.fired_successes} successes), "
              f"precision {o.precision.label()}; also prevented {len(o.also_prevented)}, also broken "
              f"{len(o.also_broken)}, injection only {len(o.fired_only)}, prevented but not fired "
              f"{len(o.prevented_not_fired)}")
    return EXIT_OK


def cmd_cross_session(args: argparse.Namespace, store: Store) -> int:
    from core.loop.cross_session import SessionFileError, compare, parse_window, read_sessions
    from core.loop.saved import save_cross_session

    try:
        window = parse_window(args.window)
        base, inter = read_sessions(args.baseline), read_sessions(args.intervention)
    except SessionFileError as error:
        for issue in error.issues:
            print(f"error: {issue}", file=sys.stderr)
        return EXIT_ERROR
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    result = compare(base, inter, window, carry_history=args.carry_history)
    data = result.to_dict() | {"baseline_file": str(args.baseline), "intervention_file": str(args.intervention)}
    if args.save:
        save_cross_session(store, data)
    if args.json:
        _json(data)
        return EXIT_OK
    for name, arm in (("baseline", result.baseline), ("intervention", result.intervention)):
        per = ", ".join(f"s{k}: {v}" for k, v in arm.per_session.items())
        print(f"{name}: repeats {arm.rate.label()}; failures per session {per}")
    print(f"reduction {result.reduction:.3f} (target {0.5:.2f}: {'met' if result.meets_target else 'not met'}); "
          f"window {list(result.window) if result.window else 'all'}; history carried: {result.carry_history}")
    for row in result.per_class():
        print(f"  {row['failure_class']}: baseline {row['baseline_repeats']}/{row['baseline_failures']}, "
              f"intervention {row['intervention_repeats']}/{row['intervention_failures']}")
    return EXIT_OK


def cmd_new_candidate(args: argparse.Namespace, store: Store) -> int:
    from core.loop.candidates import CandidateError, create_candidate, find_trajectory

    try:
        pk = find_trajectory(store, args.trajectory, args.corpus)
        created = create_candidate(store, pk, args.trigger, args.directive, args.author, because=args.because)
    except CandidateError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    print(f"rule {created.rule_id} v{created.version}: {created.origin}")
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("gate", help="would CauterRule's pre-extraction gate silence each trajectory (and why)")
    _store_arg(p)
    p.add_argument("--mode", choices=["strict", "relaxed", "both"], default="both")
    p.add_argument("--corpus", default=None)
    p.add_argument("--disagreements", action="store_true", help="list records where the gate and the label disagree")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_gate, reads_only=True)

    p = sub.add_parser("taint", help="candidates whose source trajectory is tainted (source trust, §6.7)")
    _store_arg(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_taint, reads_only=True)

    p = sub.add_parser("injection", help="where each rule fires at injection vs its replay evidence")
    _store_arg(p)
    p.add_argument("--run", type=int, default=None, help="replay run id (default: the latest complete run)")
    p.add_argument("--rule", type=int, action="append", default=None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_injection, reads_only=True)

    p = sub.add_parser("cross-session", help="repeat failures across sessions, baseline vs intervention (§9.2)")
    _store_arg(p)
    p.add_argument("--baseline", type=Path, required=True, help="JSONL of {session, failure_class, success}")
    p.add_argument("--intervention", type=Path, required=True)
    p.add_argument("--window", default="4-5", help="sessions to measure, e.g. 4-5 or 4,5; empty: all (default 4-5)")
    p.add_argument("--carry-history", action="store_true",
                   help="classes seen before the window count as seen (0.3.1 restarts at the window)")
    p.add_argument("--save", action="store_true", help="keep the result in the store for `report`")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_cross_session, reads_only=True)

    p = sub.add_parser("new-candidate", help="write a candidate rule from a trajectory (provenance: the trajectory)")
    _store_arg(p)
    p.add_argument("--trajectory", required=True, help="trajectory id (or #pk)")
    p.add_argument("--corpus", default=None, help="corpus, when the id repeats across corpora")
    p.add_argument("--trigger", required=True)
    p.add_argument("--directive", required=True)
    p.add_argument("--because", default=None)
    p.add_argument("--author", required=True, help="reviewer name recorded as the version's author")
    p.set_defaults(func=cmd_new_candidate)
