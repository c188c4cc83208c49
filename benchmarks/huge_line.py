"""Memory for one huge line (issue 25 item 5): import a JSONL file holding one record of N MB
in a fresh process and print its peak RSS above what it had before the import.

    PYTHONPATH=. python benchmarks/huge_line.py [--mb 30] [--mb 200]

A record up to the per-record limit (``core.corpus.jsonl.MAX_RECORD_BYTES``, 32 MB) is
imported; a bigger one is refused by its size without being decoded. Self-contained (called
by ``benchmarks/drills.py --huge-line`` too); the bounded version is
``tests/core/test_import_memory.py``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The child: open a store, reset its RSS high-water mark, import, report the new mark (Linux).
_CHILD = """
import json, sys
from pathlib import Path
from core.importing import import_paths
from core.store.engine import open_store

def status_kb(key):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)

folder, store_path = Path(sys.argv[1]), Path(sys.argv[2])
store = open_store(store_path)
# Reset the peak RSS (VmHWM) to the current RSS: getrusage's ru_maxrss would carry the
# parent's peak across exec.
Path("/proc/self/clear_refs").write_text("5")
before = status_kb("VmRSS")
summary = import_paths(store, [folder])
after = status_kb("VmHWM")
imported = sum(c.imported for c in summary.corpora)
print(json.dumps({"before_kb": before, "after_kb": after, "imported": imported,
                  "issues": [i.reason for i in summary.issues]}))
"""


@dataclass(frozen=True)
class HugeLineResult:
    record_bytes: int
    peak_above_kb: int  # RSS high-water mark of the import above the mark before it
    imported: int
    issues: list[str]

    @property
    def ratio(self) -> float:
        return self.peak_above_kb * 1024 / self.record_bytes


def write_huge_record(path: Path, megabytes: float) -> int:
    """One JSONL record whose task is ``megabytes`` MB of words; its size in bytes."""
    from tests.drills.stores import record

    data = record(1, "huge", success=False)
    data["task"] = "word " * int(megabytes * 1024 * 1024 / 5)
    line = json.dumps(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(line + "\n", encoding="utf-8")
    return len(line)


def huge_line_drill(work: Path, megabytes: float, env: dict[str, str] | None = None) -> HugeLineResult:
    folder = work / f"huge-{megabytes:g}"
    size = write_huge_record(folder / "huge.jsonl", megabytes)
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(folder), str(work / f"huge-{megabytes:g}.sqlite")],
                          capture_output=True, text=True, check=True, env=env, cwd=ROOT)
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    return HugeLineResult(size, int(found["after_kb"]) - int(found["before_kb"]), int(found["imported"]),
                          list(found["issues"]))


def report(result: HugeLineResult) -> str:
    outcome = "imported" if result.imported else f"refused ({result.issues[0][:90]}…)" if result.issues else "?"
    return (f"huge line: one {result.record_bytes / 1e6:,.0f} MB record {outcome}; peak RSS of the import "
            f"{result.peak_above_kb / 1024:,.0f} MB above the process before it ({result.ratio:.1f}x the record)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, action="append", help="record size in MB (repeatable)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cauterule-huge-line-") as tmp:
        for megabytes in args.mb or [30.0, 200.0]:
            print(report(huge_line_drill(Path(tmp), megabytes)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
