"""``cauterule-workbench lab``: the calibration lab (docs/lab.md).

Scores every rule x trajectory pair of the store once, sweeps the settings, reads each against
every ground truth on the tuning and held-back parts of a group split, and says which setting
(if any) may be chosen under each truth. Prints the choice rows, or ``--json``; ``--out DIR``
writes report.md, report.json and the curves.

Exit codes: 0 done; 1 an error (one line on stderr); 2 usage error (argparse).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from core.cli.output import json_text
from core.store.engine import default_store_path, store_location

EXIT_OK = 0
EXIT_ERROR = 1


def _share(value: str) -> float:
    share = float(value)
    if not 0.0 < share < 1.0:
        raise argparse.ArgumentTypeError("must be between 0 and 1 (exclusive)")
    return share


def _count(value: str) -> int:
    """0-50 re-splits (each costs a read of every setting, about a tenth of a sweep)."""
    try:
        count = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 50, not {value!r}") from None
    if not 0 <= count <= 50:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 50, not {count}")
    return count


def register(subparsers: Any) -> argparse.ArgumentParser:
    from core.lab.split import DEFAULT_HELD_BACK, DEFAULT_SEED, GROUP_BY

    p: argparse.ArgumentParser = subparsers.add_parser(
        "lab", help="calibration lab: sweep replay settings against the ground truths, choose on held-back data",
        description=__doc__.splitlines()[0], epilog="exit codes: 0 done, 1 error, 2 usage",
    )
    p.add_argument("--store", type=store_location, default=None,
                   help=f"store file or postgresql:// URL (default: {default_store_path()})")
    p.add_argument("--no-semantic", action="store_true", help="lexical only (no embedding model is loaded)")
    p.add_argument("--group-by", choices=GROUP_BY, default="failure_class",
                   help="what the tuning / held-back split keeps together (never single records)")
    p.add_argument("--held-back", type=_share, default=DEFAULT_HELD_BACK, help="share of groups held back")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the split and the shuffled floors")
    p.add_argument("--resplits", type=_count, default=0, metavar="N",
                   help="also re-run the choice on N other seeds' splits (1, 2, ...; is the choice one split's luck?)")
    p.add_argument("--json", action="store_true", help="machine-readable output (the whole result)")
    p.add_argument("--out", type=Path, default=None, help="write report.md, report.json and the curves here")
    p.set_defaults(func=cmd_lab)
    # ``lab adopt`` / ``lab profiles``: optional subcommands, so a bare ``lab --store S`` still sweeps.
    actions = p.add_subparsers(dest="lab_action", required=False, metavar="{adopt,profiles}")
    from core.cli import profiles as cli_profiles

    cli_profiles.register_lab_actions(actions)
    cli_profiles.register(subparsers)
    return p


def cmd_lab(args: argparse.Namespace, store: Any) -> int:
    from core.lab.judgements import reviewer_judgements
    from core.lab.report import figure_text, resplit_text, write
    from core.lab.run import run_lab
    from core.plain import terminal_safe
    from core.replaying import load_inputs, make_embedder, materialise_expected_rules

    materialise_expected_rules(store)
    inputs = load_inputs(store, include_expected_rules=True)
    if not inputs.rules or not inputs.trajectories:
        print("error: the store has no rules or no trajectories to calibrate on (import a corpus first)",
              file=sys.stderr)
        return EXIT_ERROR
    embed = None
    if not args.no_semantic:
        embed, note = make_embedder(store)
        if embed is None:
            print(f"warning: semantic settings run lexically: {terminal_safe(str(note))}", file=sys.stderr)
    result = run_lab(inputs.rules, inputs.trajectories, embed=embed, judgements=reviewer_judgements(store),
                     group_by=args.group_by, held_back=args.held_back, seed=args.seed,
                     resplits=args.resplits).to_dict()
    if args.out is not None:
        try:
            written = write(result, args.out)
        except OSError as error:
            print(f"error: cannot write {terminal_safe(str(args.out))}: {terminal_safe(error.strerror or str(error))}",
                  file=sys.stderr)
            return EXIT_ERROR
        if not args.json:
            print("wrote " + ", ".join(terminal_safe(str(p)) for p in written))
    if args.json:
        print(json_text(result))
        return EXIT_OK
    print(f"{len(result['settings'])} settings over {result['scores']['pairs']} pairs scored once "
          f"(sweep {result['seconds']['sweep']:.2f} s)")
    for name, choice in result["choices"].items():
        truth = result["truths"][name]
        split = result["splits"][name]
        kind = "proxy" if truth["proxy"] else "label"
        print(f"\n{name} ({kind}; {truth['rules']} rules; split by {split['group_by']}: "
              f"{split['rules']['tuning']} tuning / {split['rules']['held_back']} held-back)")
        print(f"  chosen: {terminal_safe(choice['chosen'] or 'nothing')} -- {choice['reason']}")
        for label, row in (("reference-0.3.1 semantic", choice["reference_held_back"]),
                           ("reference-0.3.1 semantic, failure_class withheld", choice.get("withheld_held_back")),
                           ("chosen", choice["chosen_held_back"])):
            if row is None:
                continue
            print(f"  {label} (held-back): F1 {figure_text(row['f1'])}; "
                  f"false-accept {figure_text(row['false_accept'])}")
        if choice["resplits"]:
            print(f"  {resplit_text(choice['resplits'])}")
    return EXIT_OK
