"""CLI commands of the promotion work: ``export-rules`` and ``promotions``.

``register(subparsers)`` adds them to ``cauterule-workbench``'s parser; like every command
there, each takes ``--store PATH`` (default: the per-user store) and is called as
``func(args, store) -> exit code``. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from core.cli.output import export_failure, json_text
from core.domain.errors import ConcurrentChangeError
from core.store.engine import Store, default_store_path, store_location

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_CONFLICT = 3  # someone changed the rule since the caller read it: nothing saved (scripts retry on this)

_MARK = {"pass": "ok", "fail": "FAIL", "warn": "warn", "not_measured": "n/m"}


def _add_store(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=store_location, default=None, help=f"store file or URL (default: {default_store_path()})")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("export-rules", help="write the approved standing rules as a CauterRule rule store")
    _add_store(p)
    p.add_argument("--out", required=True, help="folder to write (new, empty, or a previous export)")
    p.add_argument("--all", dest="include_imported", action="store_true",
                   help="the complete set: imported standing rules too, not only the Workbench's promotions")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_export_rules, reads_only=True)

    p = subparsers.add_parser("promotions", help="the promotion queue with its gates and stale approvals")
    _add_store(p)
    p.add_argument("--reviewer", default=None, help="judge the broken-evidence gate for this reviewer")
    p.add_argument("--semantic", dest="semantic", action="store_true", default=None,
                   help="semantic trigger similarity (default: on when a model is available)")
    p.add_argument("--no-semantic", dest="semantic", action="store_false", help="lexical token F1 only")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_promotions, reads_only=True)

    p = subparsers.add_parser(
        "decide", help="approve / reject / defer / retire / supersede a rule (the same rules as the GUI)")
    _add_store(p)
    p.add_argument("action", choices=("approve", "reject", "defer", "retire", "supersede"))
    p.add_argument("--rule", type=int, default=None, help="rule id (approve / reject / defer; or the standing rule's)")
    p.add_argument("--standing", default=None, help="standing rule id R-NNN (retire / supersede)")
    p.add_argument("--by", dest="successor", default=None, help="supersede: the successor's standing id")
    p.add_argument("--run", type=int, default=None, help="replay run the decision rests on (default: newest complete)")
    p.add_argument("--reviewer", required=True)
    p.add_argument("--reason", default=None,
                   help="required to reject, retire, supersede, and with --override-verdict or --acknowledge-gate; "
                        "optional to approve a passing rule or defer (docs/promotion.md)")
    p.add_argument("--override-verdict", action="store_true",
                   help="approve against replay's verdict (needs --reason)")
    p.add_argument("--acknowledge-gate", action="store_true",
                   help="approve although the blind agreement gate failed (needs --reason; recorded in the audit log)")
    p.add_argument("--acknowledge-no-task", action="store_true",
                   help="approve a one-sentence rule (trigger = directive) unsplit, although it fires at injection "
                        "on no task (recorded in the audit log); see `split-rule`")
    p.add_argument("--waive", action="append", default=[], metavar="TRAJECTORY_ID=REASON",
                   help="waive one broken trajectory with a reason (repeatable)")
    p.add_argument("--expected-version", type=_row_version, default=None, metavar="N",
                   help="the rule's row_version you saw (`promotions --json`); refused if it changed since "
                        "(every action: retire / supersede name the version of the standing rule's rule)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_decide)
    _register_split(subparsers)


def _register_split(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "split-rule", help="split a one-sentence rule (an expected_rule copy) into trigger and directive")
    _add_store(p)
    p.add_argument("--rule", type=int, required=True)
    p.add_argument("--reviewer", required=True)
    p.add_argument("--trigger", default=None, help="the trigger to save (default: the proposed one)")
    p.add_argument("--directive", default=None, help="the directive to save (default: the proposed one)")
    p.add_argument("--dry-run", action="store_true", help="show the proposed split; save nothing")
    p.set_defaults(func=cmd_split_rule)


def cmd_split_rule(args: argparse.Namespace, store: Store) -> int:
    from core.decisions import WhatIfRefused, propose_split, save_whatif_edit
    from core.plain import terminal_safe
    from core.store.rule_repo import RuleRepository

    rule = RuleRepository(store).get(args.rule)
    if rule is None:
        print(f"error: no rule {args.rule} in this store", file=sys.stderr)
        return EXIT_ERROR
    proposal = propose_split(rule.latest.trigger, rule.latest.directive)
    if proposal is None and (args.trigger is None or args.directive is None):
        print(f"error: rule {args.rule} already has a separate trigger and directive; give both to change them",
              file=sys.stderr)
        return EXIT_ERROR
    trigger = args.trigger if args.trigger is not None else proposal.trigger  # type: ignore[union-attr]
    directive = args.directive if args.directive is not None else proposal.directive  # type: ignore[union-attr]
    print(terminal_safe(f"trigger: {trigger}"))
    print(terminal_safe(f"directive: {directive}"))
    if args.dry_run:
        return EXIT_OK
    try:
        edit = save_whatif_edit(store, args.rule, trigger, directive, args.reviewer, note="split of a one-sentence rule")
    except WhatIfRefused as refusal:
        print(f"refused: {terminal_safe(str(refusal))}", file=sys.stderr)
        return EXIT_ERROR
    print(f"saved as version {edit.version} of rule {args.rule}: replay it (`replay`) to see what the split moves, "
          "then approve it")
    return EXIT_OK


def _row_version(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a row version (an integer ≥ 0), got {text!r}")
    return value


def cmd_export_rules(args: argparse.Namespace, store: Store) -> int:
    from core.export.rule_store import RuleStoreExportError, export_rule_store

    try:
        result = export_rule_store(store, Path(args.out), include_imported=args.include_imported)
    except RuleStoreExportError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        raise  # our reader went away, not the export (core.cli.main exits quietly)
    except OSError as error:  # a full disk, a read-only folder: the staged export was not swapped in
        print(f"error: {export_failure(error, args.out)}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        print(json_text({"out": str(result.out_dir), "rules": result.rules,
                          "files": [str(f) for f in result.files], "notes": list(result.notes)}))
        return EXIT_OK
    for note in result.notes:
        print(f"note: {note}")
    print(f"wrote {result.rules} rule{'s' if result.rules != 1 else ''} and index.yaml to {result.out_dir}")
    return EXIT_OK


def cmd_promotions(args: argparse.Namespace, store: Store) -> int:
    from core.promotion import similarity
    from core.promotion.queue import promotion_queue

    if args.semantic is False:
        sim = similarity.lexical()
    else:
        sim = similarity.auto(store)
        if args.semantic and sim.method != "semantic":
            print(f"warning: {sim.note}", file=sys.stderr)
    queue = promotion_queue(store, reviewer=args.reviewer, similarity=sim)
    if args.json:
        print(json_text(queue.to_json()))
        return EXIT_OK
    print(f"similarity: {sim.method}" + (f" ({sim.note})" if sim.note else ""))
    for item in queue.items:
        gates = " ".join(f"{g.name}={_MARK.get(g.state, g.state)}" for g in item.gates)
        decision = item.decision or "undecided"
        standing = f" {item.standing_id}" if item.standing_id else ""
        stale = " STALE" if item.stale is not None and item.stale.stale else ""
        print(f"[{item.rule_id}] {item.origin}: {item.verdict} ({item.reason}), {decision}{standing}{stale} "
              f"— run #{item.run_id}, row version {item.row_version}; {gates}")
        print(f"    {item.wording}")
        for gate in item.gates:
            if gate.state in ("fail", "warn") and gate.name != "agreement":
                print(f"    {gate.name}: {gate.detail}")
        for note in item.notes:
            print(f"    note: {note}")
    for report in queue.stale:
        print(f"stale: {report.standing_id} (rule {report.rule_id}): {report.summary}")
    if not queue.items:
        print("no rules: import rules (and run `replay`) first")
    return EXIT_OK


def cmd_decide(args: argparse.Namespace, store: Store) -> int:
    from core.decisions import ApprovalRefused, DecisionRequest, PromotionError, ReasonRequired, decide

    waivers: dict[str, str] = {}
    for entry in args.waive:
        tid, sep, why = entry.partition("=")
        if not sep or not tid.strip():
            print(f"error: --waive expects TRAJECTORY_ID=REASON, got {entry!r}", file=sys.stderr)
            return EXIT_ERROR
        waivers[tid.strip()] = why
    request = DecisionRequest(
        args.action, args.reviewer, rule_id=args.rule, run_id=args.run, standing_id=args.standing,
        successor=args.successor, reason=args.reason, override_verdict=args.override_verdict,
        acknowledge_gate=args.acknowledge_gate, acknowledge_no_task=args.acknowledge_no_task, waivers=waivers,
        via="cli", expected_version=args.expected_version,
    )
    try:
        outcome = decide(store, request)
    except ConcurrentChangeError as conflict:
        return _report_conflict(conflict, args.json)
    except (ApprovalRefused, ReasonRequired, PromotionError, ValueError) as refusal:
        print(f"refused: {refusal}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        print(json_text({"action": outcome.action, "rule_id": outcome.rule_id, "message": outcome.message,
                          "decision_id": None if outcome.decision is None else outcome.decision.id,
                          "standing_id": None if outcome.promotion is None else outcome.promotion.standing_id,
                          "status": None if outcome.promotion is None else outcome.promotion.status,
                          "row_version": outcome.row_version}))
    else:
        print(outcome.message)
    return EXIT_OK


def _report_conflict(conflict: ConcurrentChangeError, as_json: bool) -> int:
    """Who changed the rule, how and when; the caller reads the rule again and decides."""
    print(f"refused: {conflict}", file=sys.stderr)
    if as_json:
        print(json_text({"conflict": {"rule_id": conflict.key, "expected_version": conflict.expected,
                                       "row_version": conflict.found, "by": conflict.by, "what": conflict.what,
                                       "at": conflict.at}}))
    return EXIT_CONFLICT
