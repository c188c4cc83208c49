"""``cauterule-workbench publish``: bring a real CauterRule rule store up to date (issue 28).

Without ``--yes`` (or with ``--dry-run``) it prints the dry run and writes nothing: what will
be added, changed (with a diff per file) and left alone. Text from the store and from rule
files goes through the terminal-safe path; errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from core.cli.output import json_text
from core.plain import terminal_safe
from core.store.engine import Store, default_store_path, store_location

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_NOT_CONFIRMED = 2  # the dry run was shown; nothing written (run again with --yes)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("publish", help="write the Workbench's decisions into a real CauterRule rule store")
    p.add_argument("--store", type=store_location, default=None, help=f"store file or URL (default: {default_store_path()})")
    p.add_argument("--to", required=True, type=Path, metavar="RULES_DIR", help="the rule store folder (imported before)")
    p.add_argument("--dry-run", action="store_true", help="show what would change; write nothing")
    p.add_argument("--yes", action="store_true", help="write without asking (after showing the dry run)")
    p.add_argument("--reviewer", default=None, help="who publishes (the audit log's actor; default: $USER)")
    p.add_argument("--commit-message", default=None, help="in a git work tree: commit the change with this message")
    p.add_argument("--over-changes", action="store_true",
                   help="publish although the store changed on disk since it was imported (the changes are kept)")
    p.add_argument("--acknowledge-no-task", nargs="+", default=[], metavar="R-NNN",
                   help="publish these new rules although they fire at injection on no task (recorded in the audit log)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_publish)


def cmd_publish(args: argparse.Namespace, store: Store) -> int:
    import getpass

    from core.publish.lock import PublishLockTimeout
    from core.publish.plan import PublishRefused
    from core.publish.service import describe_result, preview, publish

    reviewer = args.reviewer or getpass.getuser()
    try:
        if args.dry_run or not args.yes:
            result = preview(store, args.to, accept_changes=args.over_changes)
            if not args.dry_run and not result.plan.empty and sys.stdin.isatty():
                print(terminal_safe(describe_result(result), keep_newlines=True), end="")
                if input("publish these changes? [y/N] ").strip().lower() not in ("y", "yes"):
                    print("nothing written", file=sys.stderr)
                    return EXIT_NOT_CONFIRMED
                result = publish(store, args.to, reviewer, accept_changes=args.over_changes,
                                 commit_message=args.commit_message, acknowledge_no_task=args.acknowledge_no_task)
        else:
            result = publish(store, args.to, reviewer, accept_changes=args.over_changes,
                             commit_message=args.commit_message, acknowledge_no_task=args.acknowledge_no_task)
    except (PublishRefused, PublishLockTimeout, ValueError, OSError) as error:
        print(f"refused: {terminal_safe(str(error))}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        print(json_text(_as_json(result)))
    else:
        print(terminal_safe(describe_result(result), keep_newlines=True), end="")
    if not result.written and not result.plan.empty and not args.dry_run:
        print("nothing written: run again with --yes to publish", file=sys.stderr)
        return EXIT_NOT_CONFIRMED
    return EXIT_OK


def _as_json(result: Any) -> dict[str, Any]:
    plan = result.plan
    return {"target": str(plan.target), "written": result.written, "disk_change": result.disk_change,
            "added": [{"path": c.path, "id": c.standing_id, "what": c.what} for c in plan.added],
            "changed": [{"path": c.path, "id": c.standing_id, "what": c.what, "diff": c.diff()} for c in plan.changed],
            "left_alone": list(plan.left_alone), "notes": list(plan.notes), "no_task": list(plan.no_task),
            "git": result.git,
            "backup": None if result.backup is None else str(result.backup)}
