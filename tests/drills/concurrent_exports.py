"""Concurrent-export drill (issue 25 item 1): two CLI exports from different stores into one
folder at the same time, round after round.

Each round starts ``export-rules`` from store A and from store B together and waits for both.
Afterwards the folder must be exactly A's export or exactly B's (never a mix), both exports
must have succeeded (the second waits for the first's lock), no error may be a raw ``[Errno
…]`` or a traceback, and the folder must still accept exports (never "holds files the previous
export did not write"). No staging folder, lock file or temporary file may be left behind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tests.drills.kills import EXPORT_KINDS, cli, snapshot


@dataclass
class ConcurrentExportDrill:
    kind: str
    rounds: int = 0
    old_or_new: int = 0
    mixed: int = 0
    locked: int = 0  # an export refused because the folder looked foreign afterwards
    raw_errors: int = 0  # a failure that is not one clear line (errno text, traceback)
    failed: int = 0  # any export that did not exit 0
    leftovers: int = 0
    problems: list[str] = field(default_factory=list)


def concurrent_export_drill(stores: dict[str, Path], work: Path, rounds: int,
                            kind: str = "export-rules") -> ConcurrentExportDrill:
    argv_for = EXPORT_KINDS[kind]
    reference: dict[str, dict[str, bytes] | None] = {}
    for name, store in stores.items():
        out = work / f"ref-{name}"
        proc = cli(argv_for(out), store)
        _, err = proc.communicate(timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"{kind} from {name} failed: {err.decode()[-500:]}")
        reference[name] = snapshot(out)
    target = work / "target"
    result = ConcurrentExportDrill(kind)
    for i in range(rounds):
        procs = [cli(argv_for(target), store) for store in stores.values()]
        for proc in procs:
            _, err = proc.communicate(timeout=300)
            if proc.returncode == 0:
                continue
            text = err.decode(errors="replace").strip()
            result.failed += 1
            if "did not write" in text:
                result.locked += 1
            if "[Errno" in text or "Traceback" in text or len(text.splitlines()) != 1:
                result.raw_errors += 1
            result.problems.append(f"round {i}: {text[-300:]}")
        result.rounds += 1
        state = snapshot(target)
        if state is not None and state in reference.values():
            result.old_or_new += 1
        else:
            result.mixed += 1
            result.problems.append(f"round {i}: target is neither export ({sorted(state or {})[:5]})")
    result.leftovers = sum(1 for p in work.iterdir()
                           if ".staging-" in p.name or ".old-" in p.name or p.name.endswith(".lock"))
    result.leftovers += sum(1 for p in target.rglob("*.tmp"))
    return result
