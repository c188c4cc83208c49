"""``store copy SRC DST`` / ``store check [LOCATION]`` / ``store prune`` / ``store stats`` / ``team add-reviewer NAME``.

A store location is a file path (SQLite) or a ``postgresql://`` URL. These commands open
their stores themselves (``copy`` opens two), so ``core.cli.main`` hands them no store
(``opens_own_store``). Errors are one line on stderr and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import sqlalchemy.exc

from core.cli.output import json_text
from core.plain import terminal_safe
from core.store.engine import default_store_path, store_location
from core.store.migrations import StoreTooNewError
from core.store.read_only import open_for_command
from core.store.store_file import StoreOpenError

EXIT_OK, EXIT_ERROR, EXIT_BAD_STORE = 0, 1, 2


def _fail(message: str, code: int = EXIT_ERROR) -> int:
    print(f"error: {terminal_safe(message.splitlines()[0] if message else 'failed')}", file=sys.stderr)
    return code


def _missing_file(location: Any) -> str | None:
    """Opening a path that does not exist would create an empty store there: a copy or a check
    of a mistyped path must say so instead of reporting on a new, empty store."""
    if isinstance(location, Path) and not location.exists():
        return f"{location} does not exist: nothing to copy or check (a store is a file made by the Workbench)"
    return None


def cmd_store_copy(args: argparse.Namespace) -> int:
    from core.team.store_copy import StoreCopyError, copy_store

    if (missing := _missing_file(args.source)) is not None:
        return _fail(missing, EXIT_BAD_STORE)
    try:
        report = copy_store(args.source, args.destination,
                            progress=None if args.json else lambda table, n: print(f"copied {table}: {n} rows"))
    except (StoreTooNewError, StoreOpenError) as error:
        return _fail(str(error), EXIT_BAD_STORE)
    except StoreCopyError as error:
        return _fail(str(error))
    except sqlalchemy.exc.DBAPIError as error:
        return _fail(f"the copy failed and was rolled back: {getattr(error, 'orig', error)}")
    rows: list[dict[str, Any]] = [
        {"table": s.table, "rows": s.rows, "sha256": s.sha256, "copy_rows": d.rows, "copy_sha256": d.sha256}
        for s, d in zip(report.tables, report.destination_tables, strict=True)]
    if args.json:
        print(json_text({"source": report.source, "destination": report.destination, "verified": report.verified,
                          "tables": rows}))
        return EXIT_OK
    width = max(len(r["table"]) for r in rows)
    print(f"{'table':<{width}}  {'rows':>8}  sha256 (source = copy)")
    for r in rows:
        same = "=" if (r["rows"], r["sha256"]) == (r["copy_rows"], r["copy_sha256"]) else "DIFFERS"
        print(f"{r['table']:<{width}}  {r['rows']:>8}  {r['sha256'][:16]} {same}")
    print(f"verified: {sum(r['rows'] for r in rows)} rows in {len(rows)} tables, "
          f"{terminal_safe(report.source)} -> {terminal_safe(report.destination)}")
    return EXIT_OK


def cmd_store_check(args: argparse.Namespace) -> int:
    from core.team.store_check import check_store

    store = _open_at(args.location or args.store or default_store_path(), reads_only=True)
    if isinstance(store, int):
        return store
    try:
        results = check_store(store)
    except sqlalchemy.exc.DBAPIError as error:
        return _fail(f"{store.path} could not be checked: {getattr(error, 'orig', error)}", EXIT_BAD_STORE)
    finally:
        store.close()
    if args.json:
        print(json_text([{"check": r.name, "ok": r.ok, "detail": r.detail} for r in results]))
    else:
        for r in results:
            print(f"{'ok  ' if r.ok else 'FAIL'} {r.name}: {terminal_safe(r.detail)}")
    return EXIT_OK if all(r.ok for r in results) else EXIT_ERROR


def _open_own(args: argparse.Namespace, reads_only: bool) -> Any:
    """The store of ``--store`` (default: the per-user store), or the exit code of a one-line refusal."""
    return _open_at(args.store or default_store_path(), reads_only)


def _open_at(location: Any, reads_only: bool) -> Any:
    """The store at ``location``, or the exit code of a one-line refusal (missing, too new, unusable)."""
    if (missing := _missing_file(location)) is not None:
        return _fail(missing, EXIT_BAD_STORE)
    try:
        return open_for_command(location, reads_only=reads_only)
    except (StoreTooNewError, StoreOpenError) as error:
        return _fail(str(error), EXIT_BAD_STORE)


def _mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def cmd_store_prune(args: argparse.Namespace) -> int:
    from core.cli.store_prune import run_prune

    if args.keep is not None and args.keep < 1:
        return _fail(f"--keep {args.keep}: keep at least one run (1 or more)", 2)
    store = _open_own(args, reads_only=args.dry_run)
    if isinstance(store, int):
        return store
    try:
        return run_prune(args, store)
    except sqlalchemy.exc.DBAPIError as error:
        return _fail(f"the prune stopped; every step done so far is whole: {getattr(error, 'orig', error)}")
    finally:
        store.close()


def cmd_store_stats(args: argparse.Namespace) -> int:
    from core.store.store_stats import per_run_bytes, store_stats

    store = _open_own(args, reads_only=True)
    if isinstance(store, int):
        return store
    try:
        stats = store_stats(store)
    except sqlalchemy.exc.DBAPIError as error:
        return _fail(f"{store.path} could not be measured: {getattr(error, 'orig', error)}", EXIT_BAD_STORE)
    finally:
        store.close()
    if args.json:
        print(json_text({
            "total_bytes": stats.total_bytes, "free_bytes": stats.free_bytes,
            "tables": [{"table": t.table, "rows": t.rows, "bytes": t.bytes} for t in stats.tables],
            "runs": [{"run": r.run_id, "status": r.status, "profile": r.profile, "started_at": r.started_at,
                      "results": r.results, "stored_pairs": r.stored_pairs, "bytes": r.bytes} for r in stats.runs],
            "mean_complete_run_bytes": per_run_bytes(stats)}))
        return EXIT_OK
    width = max([len(t.table) for t in stats.tables] + [5])
    print(f"{'table':<{width}}  {'rows':>12}  {'bytes':>14}")
    for t in stats.tables:
        print(f"{t.table:<{width}}  {t.rows:>12,}  {_mb(t.bytes):>14}")
    free = f", {_mb(stats.free_bytes)} free for reuse (store prune --vacuum returns it)" if stats.free_bytes else ""
    print(f"store: {_mb(stats.total_bytes)}{free}")
    for r in stats.runs:
        print(f"run #{r.run_id}  {terminal_safe(r.status)}  {terminal_safe(r.profile)}  "
              f"{terminal_safe(r.started_at)}  {r.results:,} results  {r.stored_pairs:,} stored pairs  {_mb(r.bytes)}")
    if stats.runs:
        print(f"a complete run: {_mb(per_run_bytes(stats))} on average")
    return EXIT_OK


def cmd_team_add_reviewer(args: argparse.Namespace) -> int:
    from core.team.roles import RoleError, add_reviewer

    if args.store is None:
        return _fail("--store postgresql://... is required: a team lives on a PostgreSQL server", 2)
    try:
        # The URL as given, password included (str() of a StoreUrl drops it): only to connect.
        url = getattr(args.store, "connect_url", str(args.store))
        created = add_reviewer(url, args.name, lead=args.lead, password=args.password)
    except RoleError as error:
        return _fail(str(error))
    except (StoreTooNewError, StoreOpenError) as error:
        return _fail(str(error), EXIT_BAD_STORE)
    except sqlalchemy.exc.DBAPIError as error:
        return _fail(f"{getattr(error, 'orig', error)}")
    print(f"{'created' if created else 'updated'} login {args.name} as {'lead' if args.lead else 'reviewer'}")
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("store", help="copy a store between SQLite and PostgreSQL, or check one")
    store_sub = p.add_subparsers(dest="store_command", required=True)
    c = store_sub.add_parser("copy", help="copy every row of SRC into the empty store DST, verified by hashes")
    c.add_argument("source", type=store_location, help="a store file or postgresql:// URL")
    c.add_argument("destination", type=store_location, help="a new store file or an empty postgresql:// database")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_store_copy, opens_own_store=True)
    k = store_sub.add_parser("check", help="integrity checks on a store (SQLite or PostgreSQL)")
    k.add_argument("location", nargs="?", type=store_location, default=None)
    k.add_argument("--store", type=store_location, default=None, help="same as LOCATION")
    k.add_argument("--json", action="store_true")
    k.set_defaults(func=cmd_store_check, opens_own_store=True)

    r = store_sub.add_parser("prune", help="delete old replay runs nothing cites (keep the newest N); --dry-run first")
    r.add_argument("--store", type=store_location, default=None, help="store file or postgresql:// URL")
    r.add_argument("--keep", type=int, default=None,
                   help="keep the newest N runs (default: the store's setting, else 10)")
    r.add_argument("--remember", action="store_true", help="save --keep as the store's setting")
    r.add_argument("--dry-run", action="store_true", help="only print what would go (runs, results, bytes)")
    r.add_argument("--vacuum", action="store_true", help="SQLite: rewrite the file afterwards to return the space")
    r.add_argument("--by", default=None, help="who prunes (the audit log's actor; a team store uses the login)")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_store_prune, opens_own_store=True)
    st = store_sub.add_parser("stats", help="rows and bytes per table, and what each replay run costs")
    st.add_argument("--store", type=store_location, default=None, help="store file or postgresql:// URL")
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=cmd_store_stats, opens_own_store=True)

    t = sub.add_parser("team", help="PostgreSQL team stores: reviewer logins and roles")
    team_sub = t.add_subparsers(dest="team_command", required=True)
    a = team_sub.add_parser("add-reviewer", help="create a reviewer login (or a lead with --lead) with its grants")
    a.add_argument("name")
    a.add_argument("--lead", action="store_true", help="may adjudicate, approve promotions and export")
    a.add_argument("--password", default=None, help="set a password (else the server's other methods: peer, cert)")
    a.add_argument("--store", type=store_location, default=None, help="the team store's postgresql:// URL (a superuser)")
    a.set_defaults(func=cmd_team_add_reviewer, opens_own_store=True)
