"""Output drills of issue 25 at full size, for ``benchmarks/drills.py`` (the bounded versions
are tests: test_cli_escape_codes.py, test_export_modes.py, test_drills.py).

* :func:`escape_code_drill`: every CLI subcommand (walked from the parser), plain and with
  ``--json``, run as a separate process on the escape-code store; the raw bytes of stdout and
  stderr are searched for ESC, BEL and C1 controls (UTF-8 ``C2 80``–``C2 9F``).
* :func:`umask_drill`: every export kind under umask 022 and 077 into a new folder, and twice
  under 077 into an existing 0755 folder; every mode is compared with what ``cp`` would give.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.drills.escape_codes import CORPUS, HOSTILE, REVIEWER, argv_for, build_hostile_store, leaf_commands
from tests.drills.kills import EXPORT_KINDS, env

_FORBIDDEN_BYTES = re.compile(rb"[\x1b\x07]|\xc2[\x80-\x9f]")


@dataclass
class EscapeDrill:
    commands: int = 0
    runs: int = 0
    leaks: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def escape_code_drill(work: Path) -> EscapeDrill:
    from core.cli.commands import build_parser

    store = work / "escape.sqlite"
    files = build_hostile_store(store, work)
    team_file = work / "team.json"
    result = EscapeDrill()
    leaves = sorted(leaf_commands(build_parser()), key=lambda leaf: leaf[0] != ("team-export",))
    for n, (path, parser) in enumerate(leaves):
        values = {
            "store": store, "location": store, "source": store, "destination": work / f"copy-{n}.sqlite",
            "paths": files["corpus"], "out": work / f"out-{n}", "team-export:out": team_file, "file": team_file,
            "corpus": CORPUS, "reviewer": REVIEWER, "reviewers": f"ana,{REVIEWER}", "importer": REVIEWER,
            "author": REVIEWER, "by": REVIEWER, "name": REVIEWER, "session": "1", "baseline": files["baseline"],
            "intervention": files["intervention"], "window": "", "trajectory": f"T{HOSTILE}-0",
            "trigger": f"when{HOSTILE}", "directive": f"do{HOSTILE}", "because": f"since{HOSTILE}",
            "action": "defer", "rule": 1, "reason": f"because{HOSTILE}", "waive": f"T{HOSTILE}-1=why{HOSTILE}",
            "standing": f"R-{HOSTILE}", "successor": f"R-{HOSTILE}",
        }
        argv = argv_for(path, parser, values)
        if argv is None:
            result.missing.append(" ".join(path))
            continue
        result.commands += 1
        options = {o for a in parser._actions for o in a.option_strings}
        no_model = ["--no-semantic"] if "--no-semantic" in options else []
        for extra in ([], ["--json"]) if "--json" in options else ([],):
            done = subprocess.run([sys.executable, "-m", "core.cli", *argv, *no_model, *extra], env=env(),
                                  capture_output=True, timeout=600)
            result.runs += 1
            for stream, data in (("stdout", done.stdout), ("stderr", done.stderr)):
                if found := _FORBIDDEN_BYTES.findall(data):
                    result.leaks.append(f"{' '.join(path)} {' '.join(extra)} {stream}: {len(found)} bytes")
    return result


@dataclass
class UmaskDrill:
    exports: int = 0
    wrong: list[str] = field(default_factory=list)


def _export(kind: str, target: Path, store: Path, umask: int) -> str | None:
    argv = [sys.executable, "-m", "core.cli", *EXPORT_KINDS[kind](target), "--store", str(store)]
    done = subprocess.run(argv, env=env(), capture_output=True, text=True, timeout=600,
                          preexec_fn=lambda: os.umask(umask))
    return None if done.returncode == 0 else done.stderr.strip()[-300:]


def umask_drill(store: Path, work: Path) -> UmaskDrill:
    result = UmaskDrill()
    for kind in sorted(EXPORT_KINDS):
        for umask in (0o022, 0o077):
            target = work / f"umask-{kind.split()[0]}-{umask:03o}"
            error = _export(kind, target, store, umask)
            result.exports += 1
            if error:
                result.wrong.append(f"{kind} umask {umask:03o}: failed: {error}")
                continue
            for path in [target, *target.rglob("*")]:
                mode = stat.S_IMODE(path.lstat().st_mode)
                expected = (0o777 if path.is_dir() else 0o666) & ~umask
                if mode != expected:
                    result.wrong.append(f"{kind} umask {umask:03o}: {path.relative_to(work)} {mode:o} != {expected:o}")
        existing = work / f"umask-existing-{kind.split()[0]}"
        existing.mkdir()
        existing.chmod(0o755)
        for _ in range(2):
            error = _export(kind, existing, store, 0o077)
            result.exports += 1
            if error:
                result.wrong.append(f"{kind} into a 0755 folder: failed: {error}")
        if (mode := stat.S_IMODE(existing.stat().st_mode)) != 0o755:
            result.wrong.append(f"{kind}: an existing 0755 folder became {mode:o}")
    return result
