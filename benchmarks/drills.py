"""Reliability drills of issue 11, at full size (minutes). Prints the figures quoted in
docs/reliability.md.

    PYTHONPATH=. python benchmarks/drills.py [--kills 100] [--actions 1000] [--replays 6]
                                             [--fuzz 100000] [--fuzz-minutes 30]
                                             [--export-rounds 20] [--only-output]

Drills: two writer processes × N actions; one writer beside R replay processes; one huge
JSONL line (peak memory) and many small files (import times; benchmarks/huge_line.py and
benchmarks/many_files.py, --huge-line MB / --many-files N, 0 skips); K SIGKILLs during
import (each followed by a re-import) and K during each export kind; hypothesis fuzzing of the
JSONL and YAML readers (and whole imports into a real store) until the
example count or the time budget is reached; every bad store variant through the CLI with
its sha256 checked; issue 25's output drills (``--only-output`` runs just these): two
concurrent ``export-rules`` into one folder × ``--export-rounds``, every subcommand on an
escape-code store, every export under umask 022 and 077. Exit code 0 only if every acceptance
figure holds.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.drills.bad_stores import VARIANTS, fingerprint  # noqa: E402
from tests.drills.fuzz import FuzzStats, fuzz_import, fuzz_jsonl, fuzz_yaml  # noqa: E402
from tests.drills.kills import (  # noqa: E402
    EXPORT_KINDS,
    env,
    export_kill_drill,
    import_kill_drill,
    two_writers,
    writer_beside_replays,
)
from tests.drills.stores import build_store  # noqa: E402


def say(text: str) -> None:
    print(text, flush=True)


def peak_mb() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def fuzz_until(kind: str, target: int, deadline: float, call: object) -> FuzzStats:
    """Run ``call(batch, seed)`` in batches until ``target`` examples or the deadline."""
    total = FuzzStats()
    seed = 0
    while total.examples < target and time.monotonic() < deadline:
        batch = min(2000, target - total.examples)
        stats = call(batch, seed)  # type: ignore[operator]
        seed += 1
        total.examples += stats.examples
        total.issues += stats.issues
        total.records += stats.records
        total.crashes += stats.crashes
        total.malformed_issues += stats.malformed_issues
        total.slowest_s = max(total.slowest_s, stats.slowest_s)
    say(f"fuzz {kind}: {total.examples:,} examples, {total.records:,} records read, {total.issues:,} issues, "
        f"{len(total.crashes)} crashes, {len(total.malformed_issues)} issues without file/reason, "
        f"slowest example {total.slowest_s:.2f} s")
    for crash in total.crashes[:5]:
        say(f"  crash: {crash}")
    return total


def bad_stores(work: Path) -> bool:
    ok = True
    for name, make in VARIANTS.items():
        folder = work / f"bad-{name.replace(' ', '-')}"
        folder.mkdir()
        path = folder / "store.sqlite"
        make(path)
        before = fingerprint(path)
        proc = subprocess.run([sys.executable, "-m", "core.cli", "corpora", "--store", str(path)],
                              capture_output=True, text=True, env=env())
        same = fingerprint(path) == before
        one_line = proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        ok &= proc.returncode == 2 and same and one_line
        say(f"bad store {name}: exit {proc.returncode}, sha256 {'unchanged' if same else 'CHANGED'}, "
            f"message: {proc.stderr.strip()[:160].replace(str(path), '<path>')}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--replays", type=int, default=6)
    parser.add_argument("--fuzz", type=int, default=100_000, help="reader examples (half JSONL, half YAML)")
    parser.add_argument("--fuzz-imports", type=int, default=1000, help="whole-import examples into a real store")
    parser.add_argument("--fuzz-minutes", type=float, default=30.0, help="time budget for all fuzzing")
    parser.add_argument("--only-fuzz", action="store_true", help="skip the store, writer and kill drills")
    parser.add_argument("--many-files", type=int, default=50_000, help="one-record files to import (0: skip)")
    parser.add_argument("--huge-line", type=float, default=30.0, help="MB of the one-line record (0: skip)")
    parser.add_argument("--export-rounds", type=int, default=20, help="rounds of two concurrent exports into one folder")
    parser.add_argument("--only-output", action="store_true",
                        help="only the output drills of issue 25: concurrent exports, escape codes, umask")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    ok = True
    with tempfile.TemporaryDirectory(prefix="cauterule-drills-") as tmp:
        work = Path(tmp)
        stores = {}
        for name in ("A", "B"):
            build_store(work / f"{name}.sqlite", work / f"corpus-{name}", name, n=300)
            stores[name] = work / f"{name}.sqlite"
        say(f"# drills ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}), kills {args.kills}, "
            f"actions {args.actions}, replays {args.replays}{', fuzzing only' if args.only_fuzz else ''}")
        if args.only_output:
            ok &= _output_drills(work, stores, args.export_rounds)
            return _finish(ok, started)
        if not args.only_fuzz:
            ok &= _store_and_kill_drills(work, stores, args)
            ok &= _import_scale_drills(work, args)
            ok &= _output_drills(work, stores, args.export_rounds)

        deadline = time.monotonic() + args.fuzz_minutes * 60
        import_deadline = time.monotonic() + args.fuzz_minutes * 60 * 0.15
        fuzzed = [fuzz_until("import (real store)", args.fuzz_imports, import_deadline,
                             lambda n, seed: fuzz_import(work / f"fuzz-{seed}.sqlite", _fresh(work, seed), n, seed))]
        half = args.fuzz // 2
        jsonl_deadline = time.monotonic() + (deadline - time.monotonic()) / 2
        fuzzed.append(fuzz_until("JSONL reader", half, jsonl_deadline, fuzz_jsonl))
        fuzzed.append(fuzz_until("YAML reader", args.fuzz - half, deadline, fuzz_yaml))
        total = sum(s.examples for s in fuzzed)
        say(f"fuzz total: {total:,} generated inputs, {sum(len(s.crashes) for s in fuzzed)} crashes, "
            f"slowest {max(s.slowest_s for s in fuzzed):.2f} s")
        ok &= all(not s.crashes and not s.malformed_issues and s.slowest_s < 10 for s in fuzzed)

    return _finish(ok, started)


def _finish(ok: bool, started: float) -> int:
    own, children = peak_mb()
    say(f"peak memory: drill process {own:.0f} MB, largest child process {children:.0f} MB")
    ok &= own < 1024 and children < 1024
    say(f"all drills {'PASSED' if ok else 'FAILED'} in {(time.perf_counter() - started) / 60:.1f} min")
    return 0 if ok else 1


def _output_drills(work: Path, stores: dict[str, Path], rounds: int) -> bool:
    """Issue 25 items 1, 2 and 4: concurrent exports into one folder, escape codes through
    every subcommand, export modes under two umasks. Self-contained (its own folders)."""
    from tests.drills.concurrent_exports import concurrent_export_drill
    from tests.drills.output_drills import escape_code_drill, umask_drill

    t = time.perf_counter()
    folder = work / "concurrent-exports"
    folder.mkdir()
    drill = concurrent_export_drill(stores, folder, rounds)
    say(f"export-rules × 2 concurrent into one folder, {drill.rounds} rounds: old or new {drill.old_or_new}, "
        f"mixed {drill.mixed}, locked folders {drill.locked}, raw errors {drill.raw_errors}, failed {drill.failed}, "
        f"leftovers {drill.leftovers} ({time.perf_counter() - t:.1f} s)")
    for problem in drill.problems[:5]:
        say(f"  {problem}")
    ok = (drill.mixed, drill.locked, drill.raw_errors, drill.failed, drill.leftovers) == (0, 0, 0, 0, 0)

    t = time.perf_counter()
    folder = work / "escape-codes"
    folder.mkdir()
    escapes = escape_code_drill(folder)
    say(f"escape codes: {escapes.commands} subcommands, {escapes.runs} runs (plain and --json), "
        f"{len(escapes.leaks)} leaking, {len(escapes.missing)} without arguments ({time.perf_counter() - t:.1f} s)")
    for leak in [*escapes.leaks, *escapes.missing][:5]:
        say(f"  {leak}")
    ok &= not escapes.leaks and not escapes.missing

    t = time.perf_counter()
    folder = work / "umask"
    folder.mkdir()
    modes = umask_drill(stores["A"], folder)
    say(f"umask 022 / 077: {modes.exports} exports, {len(modes.wrong)} wrong modes ({time.perf_counter() - t:.1f} s)")
    for wrong in modes.wrong[:5]:
        say(f"  {wrong}")
    return ok and not modes.wrong


def _store_and_kill_drills(work: Path, stores: dict[str, Path], args: argparse.Namespace) -> bool:
    ok = bad_stores(work)
    store = work / "writers.sqlite"
    store.write_bytes(stores["A"].read_bytes())
    t = time.perf_counter()
    stored, errors, first = two_writers(store, args.actions)
    say(f"two writers × {args.actions:,}: {stored:,} / {2 * args.actions:,} stored, {errors} errors "
        f"({time.perf_counter() - t:.1f} s){' ' + first[0] if first else ''}")
    ok &= stored == 2 * args.actions and errors == 0
    beside = writer_beside_replays(store, args.actions, args.replays)
    say(f"writer × {args.actions:,} beside {args.replays} replays: {beside.stored:,} / {args.actions:,} stored, "
        f"{beside.errors} errors, {beside.replay_failures} replays failed, {beside.left_running} runs left "
        f"'running' ({beside.seconds:.1f} s)")
    ok &= beside.stored == args.actions and beside.errors == 0 and beside.replay_failures == 0
    ok &= beside.left_running == 0

    t = time.perf_counter()
    imports = import_kill_drill(work / "import.sqlite", work / "import-corpus", args.kills, n=600)
    say(f"import: {imports.kills} SIGKILLs, every record present after the re-import "
        f"{imports.complete_after_reimport} / {imports.kills} times ({time.perf_counter() - t:.1f} s)")
    for problem in imports.problems[:5]:
        say(f"  {problem}")
    ok &= imports.complete_after_reimport == imports.kills

    for kind in EXPORT_KINDS:
        t = time.perf_counter()
        folder = work / f"export-{kind.split()[0]}"
        folder.mkdir()
        drill = export_kill_drill(kind, stores, folder, args.kills)
        say(f"{kind}: {drill.kills} SIGKILLs: old or new complete export {drill.old_or_new}, none yet "
            f"{drill.absent}, mixed {drill.mixed}; later exports completed {drill.completed_after + 1}, "
            f"refused {drill.refused_after}; leftovers {drill.leftovers} ({time.perf_counter() - t:.1f} s)")
        for problem in drill.problems[:5]:
            say(f"  {problem}")
        ok &= drill.mixed == 0 and drill.refused_after == 0 and drill.leftovers == 0

    return ok


def _import_scale_drills(work: Path, args: argparse.Namespace) -> bool:
    """Issue 25 items 5 and 6: one huge line (peak memory) and many small files (times)."""
    from benchmarks import huge_line, many_files

    ok = True
    if args.huge_line:
        for megabytes in (args.huge_line, 200.0):  # the largest accepted, then one over the limit
            result = huge_line.huge_line_drill(work, megabytes, env())
            say(huge_line.report(result))
            ok &= result.ratio <= 14 if result.imported else not result.imported
    if args.many_files:
        files = many_files.many_files_drill(work, args.many_files)
        say(many_files.report(files))
        ok &= files.ok
    return ok


def _fresh(work: Path, seed: int) -> Path:
    folder = work / f"fuzz-files-{seed}"
    folder.mkdir()
    return folder


if __name__ == "__main__":
    sys.exit(main())
