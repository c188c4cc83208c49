"""``cauterule-workbench``: the headless command line, sharing the GUI's core.

Every subcommand takes ``--store PATH`` (default: the per-user store) and most take
``--json`` for machine-readable output. Errors are one clear line on stderr and a non-zero
exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy.exc

from core.cli.output import export_failure, json_text, quiet_broken_pipe, terminal_safe_streams
from core.domain.errors import DomainError
from core.plain import terminal_safe
from core.store.engine import (
    Store,
    StoreOpenError,
    default_store_path,
    store_error_line,
    store_location,
)
from core.store.migrations import StoreTooNewError
from core.store.read_only import open_for_command

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
# A store that cannot be opened (not a store, damaged, read-only, locked, too new) is a
# problem with the input the user named, like a usage error: exit 2, the file untouched.
EXIT_BAD_STORE = 2


def _add_store(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=store_location, default=None,
                        help=f"store file or postgresql:// URL (default: {default_store_path()})")


def _say(text: str, file: Any = None) -> None:
    """Print one line of text that may come from a corpus: control characters shown, not applied."""
    print(terminal_safe(text), file=file)


def _print_json(value: Any) -> None:
    print(json_text(value))


def cmd_import(args: argparse.Namespace, store: Store) -> int:
    from core.importing import import_paths

    summary = import_paths(store, [Path(p) for p in args.paths])
    if args.json:
        _print_json(summary.to_json())
        return EXIT_OK
    for counts in summary.corpora:
        _say(
            f"{counts.corpus}: role {counts.role} ({counts.role_source}); imported {counts.imported}, "
            f"updated {counts.updated}, unchanged {counts.unchanged}, rejected {counts.rejected}, "
            f"removed {counts.removed}, rules {counts.rules_imported}"
        )
    for issue in summary.issues:
        where = f"{issue.file}:{issue.line}" if issue.line is not None else issue.file
        field = f" [{issue.field}]" if issue.field else ""
        _say(f"rejected {where}{field}: {issue.reason}")
    for note in summary.notes:
        _say(f"note: {note}")
    print(
        f"total: {summary.imported} trajectories imported, {summary.rejected} rejected, "
        f"{summary.rules_imported} rules imported (report #{summary.report_id})"
    )
    return EXIT_OK


def cmd_export_trajectories(args: argparse.Namespace, store: Store) -> int:
    from core.corpus.writer import NotJsonError
    from core.export.trajectories import UnknownCorpusError, export_corpus

    try:
        written = export_corpus(store, args.corpus, Path(args.out))
    except (UnknownCorpusError, NotJsonError) as error:
        _say(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    for path in written:
        _say(str(path))
    return EXIT_OK


def cmd_corpora(args: argparse.Namespace, store: Store) -> int:
    from core.store.corpus_repo import CorpusRepository

    corpora = CorpusRepository(store).list_corpora()
    if args.json:
        _print_json([c.__dict__ for c in corpora])
    else:
        for c in corpora:
            _say(f"{c.name}\t{c.role}\t{c.trajectories} trajectories\t{c.rules} rules")
    return EXIT_OK


def _worker_count(text: str) -> int:
    """``--workers N``: a whole number from 1 up (argparse prints the message as one line)."""
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of processes from 1 up, got {text!r}")
    return int(text)


def cmd_replay(args: argparse.Namespace, store: Store) -> int:
    from core.replaying import make_embedder, materialise_expected_rules, result_json, run_replay
    from core.store.profile_repo import ProfileRepository

    profiles = ProfileRepository(store)
    try:  # no --profile: the store's adopted profile (lab-2026-12 until a team adopts one)
        profile = profiles.resolve(args.profile) if args.profile else profiles.adopted()
    except DomainError as error:
        print(f"error: {terminal_safe(str(error))}", file=sys.stderr)
        return EXIT_ERROR
    changes: dict[str, Any] = {}
    if args.semantic is not None:
        changes["semantic"] = args.semantic
    if args.threshold is not None:
        if not 0.0 < args.threshold <= 1.0:
            print("error: --threshold must be in (0, 1]", file=sys.stderr)
            return EXIT_USAGE
        changes["threshold"] = args.threshold
    profile = profile.with_(**changes) if changes else profile
    if args.rule:
        from core.store.rule_repo import RuleRepository

        rules = RuleRepository(store)
        unknown = [rule_id for rule_id in dict.fromkeys(args.rule) if rules.get(rule_id) is None]
        if unknown:  # before a run is started: an empty run would look like an answer
            print(f"error: no rule {', '.join(map(str, unknown))} in this store", file=sys.stderr)
            return EXIT_ERROR
    if args.from_expected_rule:
        materialise_expected_rules(store)
    embedder, note = (None, None)
    if profile.semantic:
        embedder, note = make_embedder(store, embedder_setting=getattr(args, "embedder", None))
        if embedder is None:
            print(f"warning: semantic matching unavailable: {note}", file=sys.stderr)
    summary = run_replay(
        store, profile, rule_ids=args.rule, include_expected_rules=args.from_expected_rule,
        embedder=embedder, semantic_note=note, scope="cli", workers=args.workers,
    )
    if args.json:
        _print_json(
            {
                "run": {
                    "id": summary.run_id, "status": summary.status, "profile": summary.profile,
                    "model": summary.model_id, "semantic": summary.semantic_state,
                    "semantic_note": summary.semantic_note, "pairs": summary.pairs,
                    "seconds": round(summary.seconds, 3),
                },
                "rules": [result_json(r, summary.inputs) for r in summary.results],
            }
        )
        return EXIT_OK
    for result in summary.results:
        row = result_json(result, summary.inputs)
        _say(
            f"{row['origin']}: {row['verdict']} ({row['reason']}) prevented {len(row['prevented'])}, "
            f"broken {len(row['broken'])}, near-miss {len(row['near_misses'])}, missed {len(row['missed'])}"
        )
    print(
        f"run #{summary.run_id} {summary.status}: {len(summary.results)} rules, {summary.pairs} pairs in "
        f"{summary.seconds:.2f} s, profile {summary.profile}, semantic {summary.semantic_state}"
    )
    return EXIT_OK


def cmd_report(args: argparse.Namespace, store: Store) -> int:
    from core.domain.errors import RunNotUsable
    from core.metrics.ruler.model import MissingFloorError
    from core.report import build_report, report_markdown, write_report

    if args.out is not None:
        try:
            print(write_report(store, args.run, args.out, semantic=args.report_semantic))
        except (LookupError, MissingFloorError, RunNotUsable) as error:
            print(f"error: {error}", file=sys.stderr)
            return EXIT_ERROR
        return EXIT_OK
    try:
        report = build_report(store, args.run)
    except (LookupError, MissingFloorError, RunNotUsable) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.md:
        print(terminal_safe(report_markdown(report), keep_newlines=True))
    elif args.json:
        _print_json(report)
    else:
        print(terminal_safe(report_markdown(report), keep_newlines=True))
    return EXIT_OK


Command = Callable[[argparse.Namespace, Store], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cauterule-workbench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("import", help="import CauterRule corpora (JSONL, rule YAML) into the store")
    p.add_argument("paths", nargs="+", help="files or folders (walked recursively)")
    _add_store(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_import, creates_store=True)  # the one command a new store file starts with

    p = sub.add_parser("export-trajectories", help="write a corpus's records back as JSONL")
    _add_store(p)
    p.add_argument("--corpus", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(func=cmd_export_trajectories, reads_only=True)

    p = sub.add_parser("corpora", help="list the corpora in the store")
    _add_store(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_corpora, reads_only=True)

    p = sub.add_parser("replay", help="replay every rule against the store's trajectories")
    _add_store(p)
    p.add_argument("--profile", default=None, metavar="NAME[@VERSION]",
                   help="lab-2026-12, workbench, reference-0.3.1 or a stored profile (default: the store's adopted profile, "
                        "see `profile list`)")
    p.add_argument("--semantic", dest="semantic", action="store_true", default=None,
                   help="semantic matching on (default: on for lab-2026-12 and workbench, off for reference-0.3.1)")
    p.add_argument("--no-semantic", dest="semantic", action="store_false")
    p.add_argument("--threshold", type=float, default=None, help="one flat threshold instead of per-corpus ones")
    p.add_argument("--embedder", choices=("torch", "onnx", "onnx-int8"), default=None,
                   help="what runs the embedding model (default: CAUTERULE_WORKBENCH_EMBEDDER, else torch); "
                        "the vector cache keeps each embedder's vectors apart")
    p.add_argument("--from-expected-rule", action="store_true",
                   help="also replay every non-empty expected_rule as a candidate")
    p.add_argument("--rule", type=int, action="append", default=None, help="replay only this rule id (repeatable)")
    p.add_argument("--workers", type=_worker_count, default=None, metavar="N",
                   help="processes that score rules (1: this process only; default: the "
                        "CAUTERULE_WORKBENCH_WORKERS setting, else one per core for a large run); same results")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("report", help="per-corpus rates, extraction accuracy and safety for a replay run")
    _add_store(p)
    p.add_argument("--run", type=int, default=None, help="replay run id (default: the latest complete run)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--md", action="store_true")
    p.add_argument("--out", type=Path, default=None,
                   help="write report.md, report.json and the figures (PNG and SVG) into this folder")
    p.add_argument("--no-semantic", dest="report_semantic", action="store_false", default=None,
                   help="with --out: compute the report's semantic parts without loading the model")
    p.set_defaults(func=cmd_report, reads_only=True)

    # Subsystems register their own subcommands (each module keeps its commands together).
    from core.cli import agreement as cli_agreement
    from core.cli import promotion as cli_promotion
    from core.cli import ruler as cli_ruler

    cli_promotion.register(sub)
    cli_agreement.register(sub)
    cli_ruler.register(sub)
    from core.cli import loop as cli_loop  # gate, taint, injection, cross-session, new-candidate (H15)

    cli_loop.register(sub)
    from core.cli import store as cli_store  # store copy / store check / team add-reviewer (issue 14)

    cli_store.register(sub)
    from core.cli import publish as cli_publish  # publish into a real rule store (issue 28)

    cli_publish.register(sub)

    from core.cli import lab as cli_lab  # the calibration lab (issue 26)

    cli_lab.register(sub)
    from core.cli import whatif as cli_whatif  # a draft of a rule's text, replayed, nothing saved (issue 24)

    cli_whatif.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # Every line of every subcommand (and argparse's own messages, which echo arguments) is
    # written through the terminal-safe path: data never reaches the terminal raw.
    with terminal_safe_streams():
        try:
            code = _main(argv)
            sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
            return code
        except BrokenPipeError:
            # The reader (e.g. `| head`) went away; that is not an error of ours: exit quietly.
            quiet_broken_pipe()
            return EXIT_OK


def _main(argv: Sequence[str] | None) -> int:
    from core.export.atomic import ExportBusyError

    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "opens_own_store", False):
        return int(args.func(args))
    missing = _missing_store_file(args)
    if missing is not None:
        print(f"error: {missing}", file=sys.stderr)
        return EXIT_BAD_STORE
    try:
        store = open_for_command(args.store, reads_only=getattr(args, "reads_only", False))
    except (StoreTooNewError, StoreOpenError) as error:
        print(f"error: {terminal_safe(str(error))}", file=sys.stderr)
        return EXIT_BAD_STORE
    try:
        func: Command = args.func
        return func(args, store)
    except (sqlite3.DatabaseError, sqlalchemy.exc.DBAPIError) as error:
        # Damage found after opening (a page quick_check could not see, a disk error).
        print(f"error: {terminal_safe(store_error_line(store.path, error))}", file=sys.stderr)
        return EXIT_BAD_STORE
    except BrokenPipeError:
        raise  # before OSError: a closed pipe is not a failed export (main exits quietly)
    except (ExportBusyError, DomainError) as error:  # a refusal no handler caught: still one line
        print(f"error: {terminal_safe(str(error))}", file=sys.stderr)  # it quotes paths and the lock's holder
        return EXIT_ERROR
    except OSError as error:
        out = getattr(args, "out", None)
        message = export_failure(error, out) if out is not None else _os_error(error)
        print(f"error: {terminal_safe(message)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_ERROR
    finally:
        store.close()


def _missing_store_file(args: argparse.Namespace) -> str | None:
    """A ``--store`` file that does not exist, named to a command other than ``import``: a typo, not a
    new empty store (the default store, with no ``--store``, is still created on first use)."""
    location = getattr(args, "store", None)
    if not isinstance(location, Path) or getattr(args, "creates_store", False):
        return None
    if location.expanduser().exists():
        return None
    return terminal_safe(f"no store at {location}; check the path (a new store is made by `import --store PATH`)")


def _os_error(error: OSError) -> str:
    """One line for a failed file operation of a command that exports nothing: where and why
    (no traceback). Export commands (``--out``) say more: :func:`export_failure`."""
    where = f"{error.filename}: " if error.filename else ""
    return f"{where}{error.strerror or error}"

