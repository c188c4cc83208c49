"""Replay profiles on the command line (issue 26; docs/lab.md, "Adoption").

``lab adopt --store S --from REPORT.json --setting ID --name N --reviewer R`` stores a lab
report's setting as the next version of profile N and adopts it (``--profile LABEL`` adopts an
existing one instead). ``lab profiles`` and ``profile list`` list the store's profiles and say
which is adopted; ``profile show LABEL`` prints one (``--json``: every field).

Exit codes: 0 done; 1 a refusal or bad input (one line on stderr); 2 usage error (argparse).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from core.cli.output import json_text
from core.domain.errors import DomainError
from core.plain import terminal_safe
from core.store.engine import default_store_path, store_location

EXIT_OK = 0
EXIT_ERROR = 1


def _store_option(p: argparse.ArgumentParser) -> None:
    # SUPPRESS: a value given before the subcommand (``lab --store S adopt``) is not reset here.
    p.add_argument("--store", type=store_location, default=argparse.SUPPRESS,
                   help=f"store file or postgresql:// URL (default: {default_store_path()})")


def register_lab_actions(actions: Any) -> None:
    p = actions.add_parser("adopt", help="store a lab report's setting as a named profile and adopt it (a lead's)",
                           description=__doc__.splitlines()[0], epilog="exit codes: 0 done, 1 error, 2 usage")
    _store_option(p)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--from", dest="report", type=Path, help="report.json written by `lab --out DIR`")
    source.add_argument("--profile", dest="existing", help="adopt an existing profile: NAME, NAME@VERSION or a built-in")
    p.add_argument("--setting", default=None,
                   help="with --from: the setting's name in the report, its row number, or chosen:TRUTH")
    p.add_argument("--name", default=None, help="with --from: the profile's name (a new version if it exists)")
    p.add_argument("--reviewer", required=True, help="who adopts (a team store uses your login)")
    p.add_argument("--reason", default=None, help="why (kept with the adoption and in the audit log)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_adopt)

    p = actions.add_parser("profiles", help="the store's replay profiles and which one is adopted")
    _store_option(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_profile_list, reads_only=True)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("profile", help="the store's replay profiles (list, show)")
    actions = p.add_subparsers(dest="profile_action", required=True)
    listing = actions.add_parser("list", help="every profile; the adopted one is marked")
    _store_option(listing)
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(func=cmd_profile_list, reads_only=True, store=None)
    show = actions.add_parser("show", help="one profile's fields, where it came from, whether it is adopted")
    _store_option(show)
    show.add_argument("label", help="NAME, NAME@VERSION, or a built-in (lab-2026-12, workbench, reference-0.3.1)")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_profile_show, reads_only=True, store=None)


def _fail(message: str) -> int:
    print(f"error: {terminal_safe(message)}", file=sys.stderr)
    return EXIT_ERROR


def cmd_adopt(args: argparse.Namespace, store: Any) -> int:
    from core.lab.adopt import adopt_from_report, candidate
    from core.store.profile_repo import ProfileRepository

    repo = ProfileRepository(store)
    current = repo.adopted_label()
    try:
        if args.existing is not None:
            if args.setting or args.name:
                return _fail("--setting and --name go with --from; --profile adopts an existing profile as it is")
            adopted = repo.adopt(args.existing, args.reviewer, args.reason)
            summary = f"adopted {adopted.label} in place of {current}"
        else:
            if not args.setting or not args.name:
                return _fail("--from needs --setting (name, row number or chosen:TRUTH) and --name")
            report = _read_report(args.report)
            chosen = candidate(report, args.setting)
            adopted = adopt_from_report(store, report, args.setting, args.name, args.reviewer, note=args.reason)
            summary = chosen.describe(args.name, current) + f" Stored as {adopted.label}."
    except (DomainError, OSError) as error:
        return _fail(str(error))
    if args.json:
        print(json_text({"adopted": adopted.to_json(), "previous": current}))
    else:
        print(terminal_safe(summary))
    return EXIT_OK


def _read_report(path: Path) -> dict[str, Any]:
    from core.lab.adopt import BadLabReport

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise BadLabReport(f"{path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        where = f" line {error.lineno}" if isinstance(error, json.JSONDecodeError) else ""
        raise BadLabReport(f"{path}:{where} not a lab report.json ({error})") from None
    if not isinstance(data, dict):
        raise BadLabReport(f"{path}: expected a JSON object (the report.json `lab --out` writes)")
    return data


def cmd_profile_list(args: argparse.Namespace, store: Any) -> int:
    from core.store.profile_repo import ProfileRepository

    repo = ProfileRepository(store)
    adopted = repo.adopted_label()
    profiles = repo.list_profiles()
    if args.json:
        print(json_text({"adopted": adopted, "profiles": [
            {k: v for k, v in p.to_json().items() if k != "profile"} for p in profiles]}))
        return EXIT_OK
    for p in profiles:
        mark = "*" if p.label == adopted else " "
        origin = ("built in" if p.builtin else
                  f"by {p.created_by} at {p.created_at}; lab setting {p.lab_setting or '-'}"
                  + ("; TUNED ON ALL DATA" if p.tuned_on_all_data else ""))
        print(terminal_safe(f"{mark} {p.label}\t{origin}"))
    print(terminal_safe(f"adopted: {adopted} (replays that name no profile run it)"))
    return EXIT_OK


def cmd_profile_show(args: argparse.Namespace, store: Any) -> int:
    from core.store.profile_repo import ProfileRepository

    repo = ProfileRepository(store)
    try:
        found = repo.get(args.label)
    except DomainError as error:
        return _fail(str(error))
    data = found.to_json()
    data["adopted"] = found.label == repo.adopted_label()
    if args.json:
        print(json_text(data))
        return EXIT_OK
    print(terminal_safe(f"{found.label}{' (adopted)' if data['adopted'] else ''}"))
    for key in ("lab_setting", "tuned_on_all_data", "created_by", "created_at", "note", "has_report"):
        if not found.builtin:
            print(terminal_safe(f"  {key}: {data[key]}"))
    for key, value in data["profile"].items():
        shown = json.dumps(value, sort_keys=True) if isinstance(value, dict) else value
        print(terminal_safe(f"  {key}: {shown}"))
    return EXIT_OK
