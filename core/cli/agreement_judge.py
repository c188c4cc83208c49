"""``agreement new`` and ``agreement judge``: a blind session from the terminal, as the GUI makes one.

* ``agreement new --store DB --by NAME [--run N] [--size N | --half-width H] [--seed N] [--gate G]
  [--unblinded] [--name TEXT] [--json]``: ``core.agreement.session.create_session``, the call the
  GUI's "New session" page makes. Default run: the newest complete run of every rule (the one
  the report reads, ``core.store.run_coverage``).
* ``agreement judge SESSION --store DB --reviewer NAME [--answers FILE]``: the reviewer's
  unjudged items in order, each shown through ``core.agreement.session.judging_view`` (the same
  strings as the GUI's judging page, through ``core.plain.terminal_safe``), each answer committed
  with ``commit_judgement`` (final, its own transaction) and only then revealed.

  Interactive: type the choice's number (0 = can't tell, as the GUI's keys) or its word; ``q``
  stops (everything committed so far stays; ``judge`` resumes where you stopped).

  ``--answers FILE`` (scripts): one line per item, ``ORDINAL ANSWER [SCOPE]``, e.g.
  ``3 prevents in_scope`` / ``1 pass`` / ``4 cant_tell``; blank lines and ``#`` comments are
  skipped. The whole file is read and checked first (one line on stderr naming the file, line,
  field and what was expected; nothing committed); then the reviewer's items are judged in their
  order until one has no line in the file. An answer that is not one of that item's choices
  stops there with the same one-line error; the judgements committed before it stay.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.domain.agreement import CANT_TELL, BlindItem, Reveal
from core.plain import terminal_safe
from core.store.engine import Store

EXIT_OK = 0
EXIT_ERROR = 1
ANSWERS = ("prevents", "breaks", "near_miss", "does_not_fire", "pass", "fail", "inconclusive", "prevented", "broken",
           "missed", "no_effect", CANT_TELL)
SCOPES = ("in_scope", "out_of_scope", CANT_TELL)


def _say(text: str) -> None:
    print(terminal_safe(text, keep_newlines=True))


def cmd_agreement_new(args: argparse.Namespace, store: Store) -> int:
    from core.agreement.session import create_session
    from core.domain.errors import DomainError
    from core.store.run_coverage import report_run

    picture = report_run(store, args.run)
    if picture is None:
        print("error: " + (f"no replay run #{args.run}" if args.run is not None else
                           "no complete replay run in this store: run `replay` first"), file=sys.stderr)
        return EXIT_ERROR
    options: dict[str, Any] = {"blind": not args.unblinded, "gate": args.gate, "name": args.name}
    if args.seed is not None:
        options["seed"] = args.seed
    if args.size is not None:
        options.update(size=args.size, target_half_width=None)
    elif args.half_width is not None:
        options["target_half_width"] = args.half_width
    try:
        info = create_session(store, picture.run.id, args.by, **options)
    except (DomainError, LookupError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        from core.cli.output import json_text

        print(json_text({"id": info.id, "uid": info.uid, "run_id": picture.run.id, "size": info.size,
                         "blind": info.blind, "seed": info.seed}))
        return EXIT_OK
    _say(f"session #{info.id} ({info.uid}): {info.size} items from run #{picture.run.id}, "
         f"{'blind' if info.blind else 'UNBLINDED (never feeds the gate)'}, seed {info.seed}")
    _say(f"judge it: cauterule-workbench agreement judge {info.id} --reviewer NAME")
    return EXIT_OK


# -- answers ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Answer:
    answer: str
    scope: str | None
    where: str  # "FILE, line N" (for errors)


class AnswersError(ValueError):
    """One line: file, line, field, what was expected."""


def read_answers(path: Path) -> dict[int, Answer]:
    """The answers file, checked whole (see the module docstring)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise AnswersError(f"{path}: cannot read the answers file ({error.__class__.__name__}: {error})") from None
    found: dict[int, Answer] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{path}, line {number}"
        fields = line.split()
        if len(fields) not in (2, 3):
            raise AnswersError(f"{where}: expected 'ORDINAL ANSWER [SCOPE]', got {len(fields)} fields")
        if not fields[0].isdigit() or int(fields[0]) < 1:
            raise AnswersError(f"{where}, field ordinal: expected an item number (1, 2, …), got {fields[0]!r}")
        ordinal = int(fields[0])
        if ordinal in found:
            raise AnswersError(f"{where}, field ordinal: item {ordinal} is answered twice ({found[ordinal].where})")
        if fields[1] not in ANSWERS:
            raise AnswersError(f"{where}, field answer: expected one of {', '.join(ANSWERS)}, got {fields[1]!r}")
        scope = fields[2] if len(fields) == 3 else None
        if scope is not None and scope not in SCOPES:
            raise AnswersError(f"{where}, field scope: expected one of {', '.join(SCOPES)}, got {scope!r}")
        found[ordinal] = Answer(fields[1], scope, where)
    return found


def _checked(item: BlindItem, given: Answer) -> tuple[str, str | None]:
    if given.answer not in item.choices:
        raise AnswersError(f"{given.where}, field answer: item {item.ordinal} is answered with one of "
                           f"{', '.join(item.choices)}, got {given.answer!r}")
    if item.scope_choices and given.scope is None and given.answer != CANT_TELL:
        raise AnswersError(f"{given.where}, field scope: item {item.ordinal} also asks the scope question: "
                           f"expected one of {', '.join(item.scope_choices)}")
    if not item.scope_choices and given.scope is not None:
        raise AnswersError(f"{given.where}, field scope: item {item.ordinal} asks no scope question; "
                           "give ORDINAL ANSWER only")
    return given.answer, (given.scope or CANT_TELL) if item.scope_choices else None


# -- interactive --------------------------------------------------------------------------------
class Quit(Exception):
    """The reviewer typed q (or the input ended)."""


def _choose(choices: tuple[str, ...], labels: dict[str, str], ask: Callable[[str], str]) -> str:
    keyed = [c for c in choices if c != CANT_TELL]
    for number, choice in enumerate(keyed, start=1):
        _say(f"  {number}  {labels.get(choice, choice)}")
    if CANT_TELL in choices:
        _say(f"  0  {labels.get(CANT_TELL, CANT_TELL)}")
    while True:
        typed = ask("> ").strip().lower()
        if typed in ("q", "quit"):
            raise Quit
        if typed == "0" and CANT_TELL in choices:
            return CANT_TELL
        if typed.isdigit() and 1 <= int(typed) <= len(keyed):
            return keyed[int(typed) - 1]
        if typed in choices:
            return typed
        _say(f"  type 1–{len(keyed)}" + (", 0" if CANT_TELL in choices else "") + ", a choice's word, or q to stop")


def _ask(prompt: str) -> str:
    line = sys.stdin.readline()
    if not line:
        raise Quit
    print(prompt + line.rstrip("\n"))  # echo the answer, so a transcript reads like the session
    return line


def _show(store: Store, item: BlindItem) -> tuple[dict[str, str], str | None, tuple[tuple[str, str], ...]]:
    from core.agreement.session import judging_view

    view = judging_view(store, item)
    _say("")
    _say(f"── {view.heading} ──")
    _say(f"Rule: {view.rule}")
    if view.trajectory:
        _say(view.trajectory)
    if view.evidence_labels:
        _say("Replay says the rule fires on: " + ", ".join(view.evidence_labels))
    if item.replay_answer is not None:
        _say(f"(unblinded session) replay said: {item.replay_answer}")
    _say(view.question)
    return dict(view.choices), view.scope_question, view.scope_choices


def _reveal_line(reveal: Reveal) -> str:
    from core.agreement.blind import answer_text

    if reveal.agrees is None:
        verdict = "you could not tell (left out of the statistics)"
    else:
        verdict = "you agree" if reveal.agrees else "you disagree"
    shown = reveal.revealed or {}
    where = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in shown.items() if v not in (None, ""))
    return (f"committed: {answer_text(reveal.answer)} · replay said: {answer_text(reveal.replay_answer)} · {verdict}"
            f" · {reveal.progress.committed}/{reveal.progress.size}" + (f"\nNow revealed — {where}" if where else ""))


def cmd_agreement_judge(args: argparse.Namespace, store: Store) -> int:
    from core.agreement.session import commit_judgement, next_item
    from core.domain.errors import DomainError

    reviewer = (args.reviewer or "").strip()
    if not reviewer:
        print("error: --reviewer needs a name", file=sys.stderr)
        return EXIT_ERROR
    try:
        answers = read_answers(Path(args.answers)) if args.answers is not None else None
        judged = 0
        while (item := next_item(store, args.session, reviewer)) is not None:
            if answers is not None:
                if item.ordinal not in answers:
                    break
                answer, scope = _checked(item, answers[item.ordinal])
                _show(store, item)
            else:
                labels, scope_question, scope_choices = _show(store, item)
                answer = _choose(item.choices, labels, _ask)
                scope = None
                if scope_question and answer != CANT_TELL:
                    _say(scope_question)
                    scope = _choose(tuple(a for a, _l in scope_choices), dict(scope_choices), _ask)
                elif scope_question:
                    scope = CANT_TELL
            reveal = commit_judgement(store, item.item_id, reviewer, answer, scope=scope)
            judged += 1
            _say(_reveal_line(reveal))
    except Quit:
        _say(f"stopped: {judged} judged now; the rest waits (run `agreement judge` again to resume)")
        return EXIT_OK
    except AnswersError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except (DomainError, LookupError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    left = "" if item is None else f"; item {item.ordinal} and later have no line in the answers file"
    _say(f"{judged} judged by {reviewer}" + (" — the session is finished for you" if item is None else left))
    return EXIT_OK


def register_session_commands(sub: Any, add_store: Callable[[argparse.ArgumentParser], None]) -> None:
    """``agreement new`` / ``agreement judge`` on ``agreement``'s subparsers."""
    p = sub.add_parser("new", help="sample a blind session from a complete replay run (as the GUI does)")
    p.add_argument("--by", required=True, help="who creates the session (recorded)")
    p.add_argument("--run", type=int, default=None, help="default: the newest complete run of every rule")
    p.add_argument("--size", type=int, default=None, help="number of items (default: from --half-width)")
    p.add_argument("--half-width", type=float, default=None, help="target Wilson half-width (default 0.10)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--gate", type=float, default=0.80, help="the agreement gate (default 0.80)")
    p.add_argument("--unblinded", action="store_true", help="show replay's answers (never feeds the gate)")
    p.add_argument("--name", default=None)
    p.add_argument("--json", action="store_true")
    add_store(p)
    p.set_defaults(func=cmd_agreement_new)
    p = sub.add_parser("judge", help="judge a session's items blind, one by one (or from --answers FILE)")
    p.add_argument("session", help="session id or uid")
    p.add_argument("--reviewer", required=True)
    p.add_argument("--answers", default=None, metavar="FILE", help="lines 'ORDINAL ANSWER [SCOPE]' (scripts)")
    add_store(p)
    p.set_defaults(func=cmd_agreement_judge)
