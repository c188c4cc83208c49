"""No escape code from data reaches the terminal, for every CLI subcommand (issue 25 item 2).

The subcommands are found by walking the argparse parser, so a new one is run here without
editing this test (it fails with "no value for ..." if it needs an argument nobody supplied).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core import cli
from core.cli.commands import build_parser

from tests.drills.escape_codes import (
    CORPUS,
    FORBIDDEN,
    HOSTILE,
    REVIEWER,
    argv_for,
    build_hostile_store,
    leaf_commands,
)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    work = tmp_path_factory.mktemp("escape-codes")
    files = build_hostile_store(work / "s.sqlite", work)
    yield {"store": work / "s.sqlite", "work": work, **files}


def _values(hostile: dict[str, Path], n: int) -> dict[str, Any]:
    work = hostile["work"]
    team_file = work / "team.json"
    return {
        "store": hostile["store"], "location": hostile["store"], "source": hostile["store"],
        "destination": work / f"copy-{n}.sqlite", "paths": hostile["corpus"], "out": work / f"out-{n}",
        "team-export:out": team_file, "file": team_file, "corpus": CORPUS, "reviewer": REVIEWER,
        "reviewers": f"ana,{REVIEWER}", "importer": REVIEWER, "author": REVIEWER, "by": REVIEWER,
        "name": REVIEWER, "session": "1", "baseline": hostile["baseline"], "intervention": hostile["intervention"],
        "window": "", "trajectory": f"T{HOSTILE}-0", "trigger": f"when{HOSTILE}", "directive": f"do{HOSTILE}",
        "because": f"since{HOSTILE}", "action": "defer", "rule": 1, "reason": f"because{HOSTILE}",
        "waive": f"T{HOSTILE}-1=why{HOSTILE}", "standing": f"R-{HOSTILE}", "successor": f"R-{HOSTILE}",
        "semantic": None, "report_semantic": None, "to": work / f"rules{HOSTILE}-{n}",
        "label": f"team{HOSTILE}", "lab adopt:existing": f"team{HOSTILE}",  # replay profiles (issue 26)
    }


def _leaks(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in text if c in FORBIDDEN})


def test_every_subcommand_prints_no_escape_code(hostile: dict[str, Path], capfd: pytest.CaptureFixture[str]) -> None:
    # team-export runs first: team-import reads the file it writes.
    leaves = sorted(leaf_commands(build_parser()), key=lambda leaf: leaf[0] != ("team-export",))
    missing, leaks, ran, shown = [], [], 0, 0
    for n, (path, parser) in enumerate(leaves):
        argv = argv_for(path, parser, _values(hostile, n))
        if argv is None:
            missing.append(" ".join(path))
            continue
        json_flag = ["--json"] if any("--json" in a.option_strings for a in parser._actions) else []
        no_model = ["--no-semantic"] if any("--no-semantic" in a.option_strings for a in parser._actions) else []
        for extra in ([], json_flag) if json_flag else ([],):
            try:
                cli.main([*argv, *no_model, *extra])
            except SystemExit:
                pass  # argparse's own refusal: its message is checked like any other output
            out, err = capfd.readouterr()
            ran += 1
            shown += "\\x1b]0;pwned" in out + err  # the data was printed, made visible
            if found := _leaks(out + err):
                leaks.append(f"{' '.join(path)} {' '.join(extra)}: {found}")
            if extra and out.lstrip().startswith(("{", "[")):
                json.loads(out)  # escaping kept --json output valid JSON
    assert missing == [], f"no argument values for: {missing} (add them to _values)"
    assert leaks == []
    assert ran >= len(leaves) and shown >= len(leaves) // 2, (ran, shown)
