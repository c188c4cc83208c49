"""Kill drills: SIGKILL a CLI import or export at a random moment, then check what is left.

Exports alternate between two stores (A and B, different content) into one target, so a
target holding parts of both is detected. After each kill the target must equal a complete
export from A, from B, or (before any export completed) not exist; every few kills an
export runs to the end and must succeed (an interrupted export is never refused later).
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXPORT_KINDS: dict[str, Callable[[Path], list[str]]] = {
    "export-trajectories": lambda out: ["export-trajectories", "--corpus", "failures", "--out", str(out)],
    "labels-export": lambda out: ["labels-export", "--corpus", "failures", "--out", str(out)],
    "export-rules": lambda out: ["export-rules", "--out", str(out)],
    "report --out": lambda out: ["report", "--out", str(out), "--no-semantic"],
    "team-export": lambda out: ["team-export", "--reviewer", "ana", "--out", str(out / "team.json")],
}
_VOLATILE_SVG = re.compile(rb"<dc:date>[^<]*</dc:date>|(?:#|id=\")[a-z][0-9a-f]{8,}")


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def cli(argv: list[str], store: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "core.cli", *argv, "--store", str(store)], env=env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def snapshot(target: Path) -> dict[str, bytes] | None:
    """The export at ``target`` with volatile parts (timestamps, SVG ids) removed; None if absent."""
    if not target.exists():
        return None
    files: dict[str, bytes] = {}
    for path in sorted(target.rglob("*")):
        # A killed writer's hidden temporary file is a leftover, not part of the export: the
        # drill counts those separately, after the last export (which must remove them).
        if not path.is_file() or (path.name.startswith(".") and path.name.endswith(".tmp")):
            continue
        data = path.read_bytes()
        if path.suffix == ".svg":
            data = _VOLATILE_SVG.sub(b"", data)
        elif path.suffix == ".json" and path.name != "report.json":
            doc = json.loads(data)
            for key in ("exported_at", "store"):
                doc.pop(key, None)
            data = json.dumps(doc, sort_keys=True).encode()
        files[path.relative_to(target).as_posix()] = data
    return files


@dataclass
class ExportDrill:
    kind: str
    kills: int = 0
    old_or_new: int = 0
    absent: int = 0
    mixed: int = 0
    refused_after: int = 0
    completed_after: int = 0
    leftovers: int = 0
    problems: list[str] = field(default_factory=list)


def export_kill_drill(kind: str, stores: dict[str, Path], work: Path, kills: int, seed: int = 1) -> ExportDrill:
    rng = random.Random(seed)
    argv_for = EXPORT_KINDS[kind]
    reference: dict[str, dict[str, bytes] | None] = {}
    for name, store in stores.items():
        out = work / f"ref-{name}"
        proc = cli(argv_for(out), store)
        _, err = proc.communicate(timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"{kind} from {name} failed: {err.decode()[-500:]}")
        reference[name] = snapshot(out)
    # How long an uninterrupted export takes, to spread the kills over its whole run.
    started = time.perf_counter()
    cli(argv_for(work / "timing"), stores["A"]).communicate(timeout=300)
    duration = time.perf_counter() - started
    target = work / "target"
    result = ExportDrill(kind)
    names = sorted(stores)
    for i in range(kills):
        proc = cli(argv_for(target), stores[names[i % len(names)]])
        time.sleep(rng.uniform(0.0, duration * 1.1))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        result.kills += 1
        state = snapshot(target)
        if state is None:
            result.absent += 1
        elif state in reference.values():
            result.old_or_new += 1
        else:
            result.mixed += 1
            result.problems.append(f"kill {i}: target is neither export ({sorted(state)[:5]})")
        if i % 5 == 4:
            proc = cli(argv_for(target), stores[names[i % len(names)]])
            _, err = proc.communicate(timeout=300)
            if proc.returncode == 0 and snapshot(target) == reference[names[i % len(names)]]:
                result.completed_after += 1
            else:
                result.refused_after += 1
                result.problems.append(f"after kill {i}: export failed: {err.decode().strip()[-300:]}")
    # A last complete export must succeed and leave nothing of the interrupted ones behind.
    proc = cli(argv_for(target), stores["A"])
    _, err = proc.communicate(timeout=300)
    if proc.returncode != 0:
        result.refused_after += 1
        result.problems.append(f"final export failed: {err.decode().strip()[-300:]}")
    result.leftovers = sum(1 for p in work.iterdir() if ".staging-" in p.name or ".old-" in p.name)
    result.leftovers += sum(1 for p in target.rglob("*.tmp"))
    return result


@dataclass
class ImportDrill:
    kills: int = 0
    complete_after_reimport: int = 0
    lost: int = 0
    problems: list[str] = field(default_factory=list)


def import_kill_drill(store: Path, corpus_root: Path, kills: int, n: int = 600, seed: int = 2) -> ImportDrill:
    """Each round rewrites the corpus (variant A/B, so every file changed), kills an import
    part-way, re-imports to the end and checks every record of the current variant is stored."""
    import shutil
    import sqlite3

    from tests.drills.stores import make_corpus

    rng = random.Random(seed)
    result = ImportDrill()
    started = time.perf_counter()
    make_corpus(corpus_root, "A", n)
    cli(["import", str(corpus_root)], store).communicate(timeout=300)
    duration = time.perf_counter() - started
    for i in range(kills):
        variant = "B" if i % 2 == 0 else "A"
        shutil.rmtree(corpus_root)
        make_corpus(corpus_root, variant, n)
        proc = cli(["import", str(corpus_root)], store)
        time.sleep(rng.uniform(0.0, duration * 1.2))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        result.kills += 1
        again = cli(["import", str(corpus_root)], store)
        _, err = again.communicate(timeout=300)
        connection = sqlite3.connect(store)
        tasks = connection.execute("SELECT count(*) FROM trajectory WHERE task LIKE ?", (f"[{variant}]%",)).fetchone()[0]
        total = connection.execute("SELECT count(*) FROM trajectory").fetchone()[0]
        ok = connection.execute("PRAGMA integrity_check").fetchone()[0]
        connection.close()
        if again.returncode == 0 and tasks == n and total == n and ok == "ok":
            result.complete_after_reimport += 1
        else:
            result.lost += 1
            result.problems.append(f"kill {i}: {tasks}/{n} records of {variant}, {total} in all, "
                                   f"integrity {ok}, re-import rc {again.returncode} {err.decode()[-200:]}")
    return result


@dataclass
class WriterBesideReplays:
    actions: int = 0
    stored: int = 0
    errors: int = 0
    replays: int = 0
    replay_failures: int = 0
    left_running: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


def writer_beside_replays(store: Path, actions: int, replays: int) -> WriterBesideReplays:
    """One writer process saving ``actions`` reviewer actions while ``replays`` replay
    processes run on the same store; every action stored, every run closed."""
    import sqlite3

    worker = Path(__file__).resolve().parent / "writer_worker.py"
    result = WriterBesideReplays(actions=actions, replays=replays)
    before = _count_actions(store)
    started = time.perf_counter()
    replay_procs = [cli(["replay", "--no-semantic", "--from-expected-rule"], store) for _ in range(replays)]
    writer = subprocess.Popen([sys.executable, str(worker), str(store), "drill-writer", str(actions)],
                              stdout=subprocess.PIPE, env=env())
    out, _ = writer.communicate(timeout=3600)
    report = json.loads(out.decode().strip().splitlines()[-1])
    result.errors = int(report["errors"])
    if report["first_error"]:
        result.problems.append(str(report["first_error"])[:300])
    for proc in replay_procs:
        _, err = proc.communicate(timeout=3600)
        if proc.returncode != 0:
            result.replay_failures += 1
            result.problems.append(err.decode().strip()[-300:])
    result.seconds = time.perf_counter() - started
    result.stored = _count_actions(store) - before
    connection = sqlite3.connect(store)
    result.left_running = connection.execute("SELECT count(*) FROM replay_run WHERE status = 'running'").fetchone()[0]
    connection.close()
    return result


def two_writers(store: Path, actions: int) -> tuple[int, int, list[str]]:
    """Two writer processes × ``actions``: (stored, errors, first errors)."""
    worker = Path(__file__).resolve().parent / "writer_worker.py"
    before = _count_actions(store)
    procs = [subprocess.Popen([sys.executable, str(worker), str(store), name, str(actions)],
                              stdout=subprocess.PIPE, env=env()) for name in ("drill-ana", "drill-bo")]
    reports = [json.loads(p.communicate(timeout=3600)[0].decode().strip().splitlines()[-1]) for p in procs]
    errors = sum(int(r["errors"]) for r in reports)
    return _count_actions(store) - before, errors, [str(r["first_error"])[:300] for r in reports if r["first_error"]]


def _count_actions(store: Path) -> int:
    import sqlite3

    connection = sqlite3.connect(store)
    try:
        labels = connection.execute("SELECT count(*) FROM label_history").fetchone()[0]
        decisions = connection.execute("SELECT count(*) FROM decision").fetchone()[0]
        return int(labels) + int(decisions)
    finally:
        connection.close()
