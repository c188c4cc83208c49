"""Many small files (issue 25 item 6): import N one-record JSONL files into a fresh store,
then import them again unchanged, and print both times.

    PYTHONPATH=. python benchmarks/many_files.py [--files 50000] [--folders 50]

Goal on a 2-core machine: fresh import ≤ 90 s, unchanged re-import ≤ 20 s for 50,000 files.
Self-contained (called by ``benchmarks/drills.py --many-files N`` too); exit code 0 only when
both goals hold for 50,000 files or more (smaller runs scale the goals linearly).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FRESH_GOAL_S_PER_50K = 90.0
UNCHANGED_GOAL_S_PER_50K = 20.0


@dataclass(frozen=True)
class ManyFilesResult:
    files: int
    fresh_s: float
    unchanged_s: float
    records: int
    fresh_cpu_s: float = 0.0  # CPU time of this process: wall time on a shared machine includes waiting
    unchanged_cpu_s: float = 0.0

    @property
    def fresh_goal_s(self) -> float:
        return FRESH_GOAL_S_PER_50K * self.files / 50_000

    @property
    def unchanged_goal_s(self) -> float:
        return UNCHANGED_GOAL_S_PER_50K * self.files / 50_000

    @property
    def ok(self) -> bool:
        return self.records == self.files and self.fresh_s <= self.fresh_goal_s and \
            self.unchanged_s <= self.unchanged_goal_s


def write_many_files(root: Path, files: int, folders: int = 50) -> None:
    """``files`` JSONL files of one record each, spread over ``folders`` corpus folders."""
    from tests.drills.stores import record

    for i in range(files):
        folder = root / f"corpus-{i % folders:03d}"
        if i < folders:
            folder.mkdir(parents=True, exist_ok=True)
        data = record(i, "many", success=i % 3 == 0)
        (folder / f"r-{i:06d}.jsonl").write_text(json.dumps(data) + "\n", encoding="utf-8")


def many_files_drill(work: Path, files: int, folders: int = 50) -> ManyFilesResult:
    """Fresh import then unchanged re-import of ``files`` one-record files, timed."""
    from sqlalchemy import text

    from core.importing import import_paths
    from core.store.engine import open_store

    corpus = work / "many-files"
    write_many_files(corpus, files, folders)
    store = open_store(work / "many-files.sqlite")
    try:
        started, cpu = time.perf_counter(), time.process_time()
        import_paths(store, [corpus])
        fresh, fresh_cpu = time.perf_counter() - started, time.process_time() - cpu
        started, cpu = time.perf_counter(), time.process_time()
        again = import_paths(store, [corpus])
        unchanged, unchanged_cpu = time.perf_counter() - started, time.process_time() - cpu
        with store.read_session() as session:
            records = int(session.execute(text("SELECT count(*) FROM trajectory")).scalar_one())
        assert sum(c.unchanged for c in again.corpora) == files, "the re-import changed records"
    finally:
        store.close()
    return ManyFilesResult(files, fresh, unchanged, records, fresh_cpu, unchanged_cpu)


def report(result: ManyFilesResult) -> str:
    return (f"many files: {result.files:,} one-record files, {result.records:,} records stored; "
            f"fresh import {result.fresh_s:.1f} s (CPU {result.fresh_cpu_s:.1f} s; goal ≤ {result.fresh_goal_s:.0f} s), "
            f"unchanged re-import {result.unchanged_s:.1f} s (CPU {result.unchanged_cpu_s:.1f} s; goal ≤ "
            f"{result.unchanged_goal_s:.0f} s); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--folders", type=int, default=50)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cauterule-many-files-") as tmp:
        result = many_files_drill(Path(tmp), args.files, args.folders)
    print(report(result), flush=True)
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
