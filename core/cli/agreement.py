"""CLI commands for labels and agreement; ``register(subparsers)`` adds them to ``core.cli``.

* ``agreement --store DB [--session S] [--reviewer R] [--gate G] [--json]``: the same numbers as
  ``core.agreement.session_result`` (the results screen), for one session or every session.
* ``agreement new --by NAME [--run N] [--size N]`` / ``agreement judge SESSION --reviewer R
  [--answers FILE]``: create and judge a blind session as the GUI does (``core.cli.agreement_judge``).
* ``agreement assign SESSION --reviewers a,b,c --per-item 2`` / ``agreement team-status SESSION``:
  assign a blind session's items to a team, follow its progress and inter-rater kappa / alpha.
* ``labels-export --store DB --corpus NAME --out DIR [--reviewer R]``: corpus JSONL with the
  labels written into ``expected_rule``.
* ``team-export --store DB --reviewer R --out FILE`` / ``team-import --store DB FILE --as NAME``:
  the offline merge between reviewers' stores.

Handlers follow ``core.cli``'s convention: ``(args, store) -> exit code``; errors are one line
on stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from core.cli.output import json_text
from core.store.engine import Store, default_store_path, store_location

EXIT_OK = 0
EXIT_ERROR = 1


def _add_store(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=store_location, default=None, help=f"store file or URL (default: {default_store_path()})")


def _print_json(value: Any) -> None:
    print(json_text(value))


def _rate(rate: dict[str, Any]) -> str:
    if rate["value"] is None:
        return f"{rate['k']}/{rate['n']} = n/a"
    return f"{rate['k']}/{rate['n']} = {rate['value']:.3f} [{rate['ci_low']:.3f}, {rate['ci_high']:.3f}]"


def _kappa(kappa: dict[str, Any]) -> str:
    if kappa["value"] is None:
        return f"n/a ({kappa['note']})"
    ci = "" if kappa["ci_low"] is None else f" [{kappa['ci_low']:.3f}, {kappa['ci_high']:.3f}]"
    why = f"; {kappa['interval_note']}" if kappa.get("interval_note") else ""  # too few items, perfect agreement
    return f"{kappa['value']:.3f}{ci} ({kappa['method']}{why})"


def format_result(result: dict[str, Any]) -> list[str]:
    """Plain-text lines for one session result (``SessionResult.to_dict()``)."""
    s = result["session"]
    lines = [
        f"session {s['id']} ({s['uid'][:12]}) run #{s['run_id']}, {result['mode']}, seed {s['seed']}, "
        f"{s['size']} items, gate {s['gate']:.2f}" + (f", reviewer {result['reviewer']}" if result["reviewer"] else ""),
    ]
    if result.get("old_question"):
        lines.append(f"  OLD SINGLE QUESTION: {result['question_note']}")
    for reviewer, p in result["progress"].items():
        lines.append(f"  progress: {reviewer} {p['committed']}/{p['size']}")
    lines.append(f"  agreement: {_rate(result['agreement'])}" + (f", {result['abstained']} can't tell (left out)"
                                                                 if result["abstained"] else ""))
    lines.append(f"  kappa: {_kappa(result['kappa'])}")
    gate = result["gate"]
    lines.append(f"  gate: {gate['state']} ({gate['reason']})")
    for kind in result["per_kind"]:
        lines.append(f"  {kind['kind']} items: {_rate(kind['agreement'])}; kappa {_kappa(kind['kappa'])}")
        labels = kind["confusion"]["labels"]
        width = max([len(x) for x in labels] + [6])
        lines.append("    replay \\ human " + " ".join(x.rjust(width) for x in labels))
        for label, row in zip(labels, kind["confusion"]["counts"]):
            lines.append("    " + label.ljust(15) + " " + " ".join(str(c).rjust(width) for c in row))
    for stratum in result["per_stratum"]:
        lines.append(f"  stratum {stratum['stratum']}: {_rate(stratum['agreement'])}")
    scope, recall = result.get("scope"), result.get("scoped_recall")
    if scope and scope["asked"]:
        lines.append(f"  scope agreement (share of replay's recall denominator judged in scope): "
                     f"{_rate(scope['agreement'])}; domain-less rules {_rate(scope['domain_less'])}")
    if recall and recall["estimate"] is not None:
        lines.append(f"  recall: replay {recall['replay_recall']:.3f}, scope-corrected {recall['estimate']:.3f} "
                     f"[{recall['ci_low']:.3f}, {recall['ci_high']:.3f}] ({recall['label']})")
    marks = result["unblinded_marks"]
    lines.append(
        f"  unblinded workspace marks (reported apart, never in the blind result): {marks['right']} right, "
        f"{marks['wrong']} wrong, {marks['cant_tell']} can't tell; {_rate(marks['agreement'])}"
    )
    return lines


def cmd_agreement(args: argparse.Namespace, store: Store) -> int:
    from core.agreement.results import session_result, unblinded_summary
    from core.domain.errors import UnknownSession
    from core.store.agreement_repo import AgreementRepository

    repo = AgreementRepository(store)
    try:
        sessions = [repo.session(args.session)] if args.session is not None else repo.sessions()
    except UnknownSession as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    results = [session_result(store, s, args.reviewer, args.gate).to_dict() for s in sessions]
    if args.json:
        if args.session is not None:
            _print_json(results[0])
        else:
            _print_json({"sessions": results, "unblinded_marks": unblinded_summary(store, None, args.reviewer).to_dict()})
        return EXIT_OK
    if not results:
        print("no agreement sessions in this store")
    for result in results:
        print("\n".join(format_result(result)))
    return EXIT_OK


def cmd_labels_export(args: argparse.Namespace, store: Store) -> int:
    from core.export.trajectories import UnknownCorpusError
    from core.labels.export import export_labels

    try:
        summary = export_labels(store, args.corpus, Path(args.out), args.reviewer)
    except UnknownCorpusError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    for path in summary.files:
        print(path)
    for warning in summary.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"{summary.records} records, {summary.replaced} expected_rule values replaced", file=sys.stderr)
    return EXIT_OK


def cmd_team_export(args: argparse.Namespace, store: Store) -> int:
    from core.agreement.merge import NothingToExport, export_reviewer

    try:
        counts = export_reviewer(store, args.reviewer, Path(args.out))
    except NothingToExport as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    print(", ".join(f"{n} {kind}" for kind, n in counts.items()) + f" written to {args.out}")
    return EXIT_OK


def cmd_team_import(args: argparse.Namespace, store: Store) -> int:
    from core.agreement.merge import BadTeamFile, import_file

    try:
        report = import_file(store, Path(args.file), args.importer)
    except BadTeamFile as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        _print_json({"added": report.added, "unchanged": report.unchanged, "unmatched": list(report.unmatched),
                     "conflicts": [c.__dict__ for c in report.conflicts],
                     "refused": [r.__dict__ for r in report.refused]})
    else:
        print(f"added {report.added}, unchanged {report.unchanged}")
        for conflict in report.conflicts:
            print(f"conflict ({conflict.kind}) {conflict.where} [{conflict.reviewer}]: kept {conflict.local!r}, "
                  f"not imported {conflict.incoming!r}")
        for where in report.unmatched:
            print(f"not in this store: {where}")
        for refused in report.refused:  # the entries around each were merged
            print(f"refused {refused}")
    return EXIT_ERROR if report.conflicts or report.refused else EXIT_OK


def cmd_assign(args: argparse.Namespace, store: Store) -> int:
    import sqlalchemy.exc

    from core.agreement.assignments import assign
    from core.domain.errors import UnknownSession

    try:
        import getpass

        # Without --by: on a team store the login (the server refuses any other name there), on a
        # SQLite file the OS user.
        by = args.by or store.login() or getpass.getuser()
        plan = assign(store, args.session, args.reviewers.split(","), args.per_item, by, args.seed)
    except (UnknownSession, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except sqlalchemy.exc.ProgrammingError as error:  # the team store's row-level security: leads only
        print(f"error: only a lead may assign items on this team store "
              f"(the server said: {str(error.orig).splitlines()[0]})", file=sys.stderr)
        return EXIT_ERROR
    print(f"session {plan.session_id}: {plan.per_item} reviewers per item, seed {plan.seed}")
    for reviewer, ordinals in sorted(plan.items.items()):
        print(f"  {reviewer}: {len(ordinals)} items ({', '.join(map(str, ordinals))})")
    return EXIT_OK


def _figure(value: float | None, note: str | None) -> str:
    return f"{value:.3f}" if value is not None else f"n/a ({note})"


def cmd_team_status(args: argparse.Namespace, store: Store) -> int:
    from core.agreement.assignments import team_status
    from core.domain.errors import UnknownSession

    try:
        status = team_status(store, args.session)
    except UnknownSession as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        _print_json(status.to_dict())
        return EXIT_OK
    share = "not assigned (every reviewer judges every item)" if status.per_item is None else \
        f"{status.per_item} reviewers per item"
    print(f"session {status.session_id}: {status.items} items, {share}")
    for p in status.progress:
        print(f"  {p.reviewer}: {p.judged}/{p.assigned if p.assigned is not None else status.items} judged")
    print(f"  items judged by two or more reviewers: {status.multi_judged}")
    for pair in status.pairs:
        print(f"  Cohen's kappa {pair.a} / {pair.b}: {_figure(pair.kappa.value, pair.kappa.note)} (n={pair.kappa.n})")
    print(f"  Krippendorff's alpha: {_figure(status.alpha.value, status.alpha.note)} ({status.alpha.units} items)")
    return EXIT_OK


def _register_team_agreement(parser: argparse.ArgumentParser) -> None:
    """``agreement assign`` / ``agreement team-status`` (the plain ``agreement`` keeps its options)."""
    from core.cli.agreement_judge import register_session_commands

    sub = parser.add_subparsers(dest="agreement_action", required=False, metavar="{new,judge,assign,team-status}")
    register_session_commands(sub, _add_store)
    p = sub.add_parser("assign", help="assign a blind session's items to reviewers (a lead's task)")
    p.add_argument("session", help="session id or uid")
    p.add_argument("--reviewers", required=True, help="comma-separated reviewer names (their logins on a team store)")
    p.add_argument("--per-item", type=int, default=2, help="reviewers per item (default 2)")
    p.add_argument("--by", default=None, help="who assigns (default: the login on a team store, else the current user)")
    p.add_argument("--seed", type=int, default=None, help="default: the session's seed")
    _add_store(p)
    p.set_defaults(func=cmd_assign)
    p = sub.add_parser("team-status", help="progress per reviewer and live inter-rater kappa / alpha of a session")
    p.add_argument("session", help="session id or uid")
    p.add_argument("--json", action="store_true")
    _add_store(p)
    p.set_defaults(func=cmd_team_status, reads_only=True)


def register(subparsers: Any) -> None:
    """Add the label and agreement commands to ``core.cli``'s subparsers."""
    p = subparsers.add_parser("agreement", help="human-vs-replay agreement results (blind sessions, the gate)")
    _add_store(p)
    p.add_argument("--session", default=None, help="session id or uid (default: every session)")
    p.add_argument("--reviewer", default=None, help="only this reviewer's judgements (default: all, pooled)")
    p.add_argument("--gate", type=float, default=None, help="gate threshold (default: the session's, 0.80)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_agreement, reads_only=True)
    _register_team_agreement(p)

    p = subparsers.add_parser("labels-export", help="write a corpus's JSONL with labels as expected_rule")
    _add_store(p)
    p.add_argument("--corpus", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--reviewer", default=None, help="use this reviewer's labels (adjudications always win)")
    p.set_defaults(func=cmd_labels_export, reads_only=True)

    p = subparsers.add_parser("team-export", help="export one reviewer's labels and judgements for merging")
    _add_store(p)
    p.add_argument("--reviewer", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(func=cmd_team_export)

    p = subparsers.add_parser("team-import", help="merge another reviewer's export into this store")
    _add_store(p)
    p.add_argument("file")
    p.add_argument("--as", dest="importer", required=True, help="who is importing (recorded in the history)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_team_import)
