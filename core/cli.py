"""``cauterule-workbench``: the headless command line, sharing the GUI's core.

Every subcommand takes ``--store PATH`` (default: the per-user store) and most take
``--json`` for machine-readable output. Errors are one clear line on stderr and a non-zero
exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from core.store.engine import Store, StoreLockedError, default_store_path, open_store
from core.store.migrations import StoreTooNewError

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2


def _add_store(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=Path, default=None, help=f"store file (default: {default_store_path()})")


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def cmd_import(args: argparse.Namespace, store: Store) -> int:
    from core.importing import import_paths

    summary = import_paths(store, [Path(p) for p in args.paths])
    if args.json:
        _print_json(summary.to_json())
        return EXIT_OK
    for counts in summary.corpora:
        print(
            f"{counts.corpus}: role {counts.role} ({counts.role_source}); imported {counts.imported}, "
            f"updated {counts.updated}, unchanged {counts.unchanged}, rejected {counts.rejected}, "
            f"removed {counts.removed}, rules {counts.rules_imported}"
        )
    for issue in summary.issues:
        where = f"{issue.file}:{issue.line}" if issue.line is not None else issue.file
        field = f" [{issue.field}]" if issue.field else ""
        print(f"rejected {where}{field}: {issue.reason}")
    for note in summary.notes:
        print(f"note: {note}")
    print(
        f"total: {summary.imported} trajectories imported, {summary.rejected} rejected, "
        f"{summary.rules_imported} rules imported (report #{summary.report_id})"
    )
    return EXIT_OK


def cmd_export_trajectories(args: argparse.Namespace, store: Store) -> int:
    from core.export.trajectories import UnknownCorpusError, export_corpus

    try:
        written = export_corpus(store, args.corpus, Path(args.out))
    except UnknownCorpusError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    for path in written:
        print(path)
    return EXIT_OK


def cmd_corpora(args: argparse.Namespace, store: Store) -> int:
    from core.store.corpus_repo import CorpusRepository

    corpora = CorpusRepository(store).list_corpora()
    if args.json:
        _print_json([c.__dict__ for c in corpora])
    else:
        for c in corpora:
            print(f"{c.name}\t{c.role}\t{c.trajectories} trajectories\t{c.rules} rules")
    return EXIT_OK


Command = Callable[[argparse.Namespace, Store], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cauterule-workbench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("import", help="import CauterRule corpora (JSONL, rule YAML) into the store")
    p.add_argument("paths", nargs="+", help="files or folders (walked recursively)")
    _add_store(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("export-trajectories", help="write a corpus's records back as JSONL")
    _add_store(p)
    p.add_argument("--corpus", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(func=cmd_export_trajectories)

    p = sub.add_parser("corpora", help="list the corpora in the store")
    _add_store(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_corpora)

    for register in _EXTRA_COMMANDS:
        register(sub)
    return parser


# Later subcommands (replay, report, ...) register themselves here without touching the above.
_EXTRA_COMMANDS: list[Callable[[Any], None]] = []


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        store = open_store(args.store)
    except (StoreTooNewError, StoreLockedError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    try:
        func: Command = args.func
        return func(args, store)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_ERROR
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
