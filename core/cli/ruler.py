"""``cauterule-workbench ruler``: check every comparator the product reports (docs/ruler.md).

Exit codes:

* 0 -- every comparator caught its harmful mutations and held on the benign ones it claims;
* 3 -- at least one comparator is flagged ("blind to X" or "over-sensitive to Y"); the
  output lists each flag (canary failures are reported but do not by themselves fail);
* 1 -- an error (no store, unreadable store), one line on stderr;
* 2 -- usage error (argparse).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from core.cli.output import json_text
from core.store.engine import default_store_path, store_location

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_FLAGGED = 3


def register(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "ruler", help="canaries, floors and mutation drops for every comparator; exit 3 when one is flagged",
        description=__doc__.splitlines()[0], epilog="exit codes: 0 ok, 3 a comparator is flagged, 1 error, 2 usage",
    )
    # The one store type of every command: a file path (SQLite) or a postgresql:// URL.
    p.add_argument("--store", type=store_location, default=None,
                   help=f"store file or postgresql:// URL (default: {default_store_path()})")
    p.add_argument("--run", type=int, default=None, help="replay run whose answers feed the agreement rows "
                   "(default: the latest complete run)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--no-semantic", action="store_true",
                   help="check the semantic comparators lexically (no embedding model is loaded)")
    p.add_argument("--seed", type=int, default=None, help="seed for shuffles and mutation choices")
    p.set_defaults(func=cmd_ruler)
    return p


def cmd_ruler(args: argparse.Namespace, store: Any) -> int:
    from core.metrics.ruler.model import DEFAULT_SEED
    from core.metrics.ruler.suite import check_ruler

    if args.run is not None:
        from core.store.replay_repo import ReplayRepository

        if ReplayRepository(store).get_run(args.run) is None:
            print(f"error: no replay run #{args.run} in this store", file=sys.stderr)
            return EXIT_ERROR
    embed, note = None, None
    if not args.no_semantic:
        from core.replaying import make_embedder

        embed, note = make_embedder(store)
        if embed is None:
            print(f"warning: semantic comparators checked lexically: {note}", file=sys.stderr)
    suite = check_ruler(store, args.run, embed=embed, semantic_note=note,
                        seed=DEFAULT_SEED if args.seed is None else args.seed)
    if args.json:
        print(json_text(suite.to_dict()))
    else:
        print(render_text(suite))
    return EXIT_FLAGGED if suite.flagged else EXIT_OK


def render_text(suite: Any) -> str:
    lines = [f"ruler: semantic {suite.semantic}; seed {suite.seed}; corpus hash {suite.corpus_hash or '—'}"]
    for r in suite.reports:
        value = "—" if r.value is None else f"{r.value:.3f}"
        floor = "not measured" if r.floor.value is None else f"{r.floor.value:.3f}"
        lines.append(f"{r.label}: value {value} on {r.n_rows} correct rows, floor {floor}, "
                     f"canaries {r.canaries_passed}/{len(r.canaries)}")
        for c in r.canary_failures:
            lines.append(f"  canary failed: {c.name}: expected {c.expected}, got {c.got} ({c.detail})")
        for f in r.flags:
            lines.append(f"  FLAG {f.message}")
    flagged = suite.flagged
    lines.append(f"{len(flagged)} of {len(suite.reports)} comparators flagged"
                 + (": " + ", ".join(r.metric for r in flagged) if flagged else ""))
    return "\n".join(lines)
