"""The escape-code corpus and store (issue 25 item 2), and a walk over every CLI subcommand.

Folder names, trajectory ids, failure classes, triggers, directives, reviewer names, reasons
and notes all carry terminal escape sequences: ESC (CSI colour, screen clear), BEL, OSC
(retitle), C1 controls (U+009B CSI, U+009D OSC, U+009C ST, U+0085 NEL). Reviewer names and
reasons are written into the store with SQL after it is built, as a store made before names
were validated (or a team server's rows) holds them. ``walk_cli`` runs every subcommand the
argparse parser has, found by walking it, so a subcommand added later is run too.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\u009b1m\u009d2;t\u009c\u0085"
CORPUS = f"evil{HOSTILE}corpus"
REVIEWER = f"eve{HOSTILE}"
# What must never reach the terminal: ESC, BEL and every C1 control.
FORBIDDEN = frozenset(["\x1b", "\x07"] + [chr(c) for c in range(0x80, 0xA0)])
# Columns a store holds reviewer names, reasons and notes in (old stores were not validated).
_HOSTILE_COLUMNS = {
    "decision": ("reviewer", "reason"), "label": ("reviewer", "note"), "label_history": ("actor", "reason"),
    "agreement_judgement": ("reviewer", "note"), "agreement_session": ("created_by", "name"),
    "audit_event": ("actor", "reason"), "rule_version": ("author", "note"), "waiver": ("reviewer", "reason"),
    "promotion": ("status_reason",), "replay_result": ("reason",),
}


def write_corpus(root: Path) -> Path:
    folder = root / CORPUS
    folder.mkdir(parents=True)
    lines = []
    for i, success in enumerate((False, False, True, False)):
        lines.append(json.dumps({
            "trajectory_id": f"T{HOSTILE}-{i}", "timestamp": "2026-09-01T00:00:00Z",
            "task": f"push the branch {i} {HOSTILE}",
            "steps": [{"step_number": 1, "tool": "bash", "input": f"git push{HOSTILE}", "output": None,
                       "error": None if success else f"rejected{HOSTILE}"}],
            "success": success, "domain": "git", "failure_class": None if success else f"git/push{HOSTILE}",
            "expected_rule": None if success else f"when a push{HOSTILE} is rejected, fetch{HOSTILE} first",
        }))
    (folder / f"part{HOSTILE}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def build_hostile_store(store_path: Path, work: Path) -> dict[str, Path]:
    """The store, its corpus root and the session files ``cross-session`` reads."""
    from sqlalchemy import text

    from core.agreement.session import commit_judgement, create_session, next_item
    from core.domain.labels import LabelText
    from core.importing import import_paths
    from core.labels.service import save_label
    from core.promotion.service import approve
    from core.replay.profiles import profile_by_name
    from core.replaying import materialise_expected_rules, run_replay
    from core.store.engine import open_store
    from core.store.replay_repo import ReplayRepository

    corpus_root = write_corpus(work / "corpus")
    store = open_store(store_path)
    try:
        import_paths(store, [corpus_root])
        materialise_expected_rules(store)
        summary = run_replay(store, profile_by_name("workbench").with_(semantic=False), include_expected_rules=True,
                             scope="test")
        results = ReplayRepository(store).results(summary.run_id)
        approve(store, results[0].rule_id, summary.run_id, "ana", "looks right", allow_non_pass=True,
                acknowledge_no_task=True,
                waivers={o.trajectory_id: "known" for o in ReplayRepository(store).outcomes(results[0].id, "broken")})
        with store.read_session() as db:
            pk = int(db.execute(text("SELECT min(id) FROM trajectory")).scalar_one())
        save_label(store, pk, "ana", LabelText(f"when x{HOSTILE}", f"do y{HOSTILE}"))
        session = create_session(store, summary.run_id, "ana", size=2, target_half_width=None, seed=1)
        item = next_item(store, session.id, "ana")
        if item is not None:
            commit_judgement(store, item.item_id, "ana", item.choices[0], note="seen",
                             scope=item.scope_choices[0] if item.scope_choices else None)
        with store.session() as db:
            for table, columns in _HOSTILE_COLUMNS.items():
                # Append-only tables refuse updates by trigger: lifted for this edit, as an old
                # store's rows were written before names were checked.
                triggers = db.execute(text("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' "
                                           "AND tbl_name = :t"), {"t": table}).all()
                for name, _sql in triggers:
                    db.execute(text(f'DROP TRIGGER "{name}"'))
                for column in columns:
                    db.execute(text(f"UPDATE {table} SET {column} = {column} || :h WHERE {column} IS NOT NULL"),
                               {"h": HOSTILE})
                for _name, sql in triggers:
                    db.execute(text(sql))
    finally:
        store.close()
    sessions = {}
    for arm in ("baseline", "intervention"):
        path = work / f"{arm}.jsonl"
        path.write_text("".join(json.dumps({"session": s, "failure_class": f"c{HOSTILE}{s % 2}", "success": s % 3 == 0})
                                + "\n" for s in range(1, 7)), encoding="utf-8")
        sessions[arm] = path
    return {"corpus": corpus_root, **sessions}


def leaf_commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every runnable command path of ``parser`` (``("agreement",)`` and ``("agreement", "assign")``
    both: a parser with optional subcommands runs on its own too)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs or not subs[0].required:
        if prefix:
            yield prefix, parser
    for action in subs:
        for name, child in action.choices.items():
            yield from leaf_commands(child, (*prefix, name))


@dataclass
class Walk:
    runs: list[tuple[list[str], int]] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def argv_for(path: tuple[str, ...], parser: argparse.ArgumentParser, values: dict[str, Any]) -> list[str] | None:
    """Arguments for one command: every option and positional whose ``dest`` has a value in
    ``values`` (the data-carrying ones, hostile), flags left out; None if a required one has none."""
    argv = list(path)
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) or action.nargs == 0:
            continue
        value = values.get(f"{' '.join(path)}:{action.dest}", values.get(action.dest))
        if value is None:
            if action.required:
                return None
            continue
        items = value if isinstance(value, list) else [value]
        if action.option_strings:
            for item in items:
                argv += [action.option_strings[-1], str(item)]
        else:
            argv += [str(item) for item in items]
    return argv
