"""``whatif``: replay a draft of a rule's text and print what would change (a dry run).

The same draft replay as the window's What-if dialog (``core.decisions.whatif_draft``): the
rule as if its latest version said ``--trigger`` / ``--directive``, against every trajectory of
the store, with the profile named. The store is opened read-only: nothing is saved (no
version, no run, no vector-cache row). The draft is compared with the rule's newest result of
a complete run (the one the Review tab shows).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from core.store.engine import Store

BUCKET_WORDS = {"prevented": "prevented", "broken": "broken", "near_miss": "near miss", "missed": "missed",
                "no_effect": "no effect"}


def register(sub: Any) -> None:
    from core.cli.commands import _add_store

    p = sub.add_parser("whatif", help="replay a draft of a rule's trigger / directive; nothing is saved")
    _add_store(p)
    p.add_argument("--rule", type=int, required=True, help="the rule id")
    p.add_argument("--trigger", required=True, help="the draft trigger (when …)")
    p.add_argument("--directive", default=None, help="the draft directive (default: the rule's current one)")
    p.add_argument("--profile", default="workbench", choices=["lab-2026-12", "workbench", "reference-0.3.1"])
    p.add_argument("--semantic", dest="semantic", action="store_true", default=None,
                   help="semantic matching on (default: on for workbench, off for reference-0.3.1)")
    p.add_argument("--no-semantic", dest="semantic", action="store_false")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_whatif, reads_only=True)


def cmd_whatif(args: argparse.Namespace, store: Store) -> int:
    from core.cli.commands import EXIT_ERROR, EXIT_OK, _print_json, _say
    from core.decisions import WhatIfRefused
    from core.decisions.whatif_draft import ReadOnlyVectorCache, replay_draft
    from core.replay.profiles import profile_by_name
    from core.replaying import make_embedder
    from core.store.result_repo import ResultRepository
    from core.store.rule_repo import RuleRepository
    from core.store.workspace_query import WorkspaceScope

    info = RuleRepository(store).get(args.rule)
    if info is None:
        print(f"error: no rule {args.rule} in this store", file=sys.stderr)
        return EXIT_ERROR
    profile = profile_by_name(args.profile)
    if args.semantic is not None:
        profile = profile.with_(semantic=args.semantic)
    embedder = None
    if profile.semantic:
        embedder, note = make_embedder(store)
        if embedder is None:
            print(f"warning: semantic matching unavailable: {note}", file=sys.stderr)
        elif embedder.cache is not None:
            embedder.cache = ReadOnlyVectorCache(embedder.cache)  # a draft adds no cache row
    shown = ResultRepository(store).rule_row(WorkspaceScope(), args.rule)
    directive = args.directive if args.directive is not None else info.latest.directive
    try:
        draft = replay_draft(store, args.rule, args.trigger, directive, profile, embed=embedder,
                             before_result_id=None if shown is None else shown.result_id)
    except WhatIfRefused as error:
        _say(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    summary = draft.summary(store)
    if args.json:
        _print_json(json.loads(summary.to_json()))
        return EXIT_OK
    for line in summary_lines(summary, info.origin):
        _say(line)
    return EXIT_OK


def _counts(counts: dict[str, int] | None) -> str:
    if counts is None:
        return "—"
    return " / ".join(str(counts.get(b, 0)) for b in ("prevented", "broken", "near_miss", "missed"))


def summary_lines(summary: Any, origin: str) -> list[str]:
    """The dry run in words: before → after, then one line per trajectory that changes bucket."""
    before = (f"{summary.before_verdict} ({summary.before_reason})" if summary.before_verdict is not None
              else "— (no stored result to compare with)")
    against = f" against {summary.before_run}" if summary.before_run else ""
    lines = [
        f"rule {summary.rule_id} {origin}: v{summary.before_version or summary.base_version}{against} → draft "
        f"(not saved), profile {summary.profile}, semantic {summary.semantic_state}",
        f"when: {summary.trigger}",
        f"do: {summary.directive}",
        f"verdict: {before} → {summary.verdict} ({summary.reason})",
        f"prevented / broken / near miss / missed: {_counts(summary.before_counts)} → {_counts(summary.counts)}",
        f"{len(summary.moves)} trajector{'y' if len(summary.moves) == 1 else 'ies'} would change bucket"
        + (":" if summary.moves else ""),
    ]
    lines += [f"  {m.trajectory_id}  {BUCKET_WORDS.get(m.before, m.before)} → {BUCKET_WORDS.get(m.after, m.after)}  "
              f"({m.corpus})" for m in summary.moves]
    lines.append("nothing was saved (the What-if dialog's Apply saves a new version)")
    return lines  # printed through the terminal-safe path (_say)
