"""Replay at scale, end to end through the store.

    python benchmarks/scale.py N_TRAJECTORIES N_RULES [--seed S] [--semantic] [--workdir DIR]
        [--ref-sample K] [--reuse-store [--tables-only | --replay-only]] [--reviewed]

Generates the corpus with ``make_scale_corpus`` (unless the workdir already has it), then
prints, each on its own line: import time, the first window (the file check, store open,
the first page of the rules, corpora and trajectories tables), replay (workbench profile, lexical) run twice with its save time,
optionally semantic cold (empty embedding cache, with the time the model spent embedding
the run's unique texts) and warm, the outcome rows and store size per 10^6 pairs, peak RSS
after each phase, the page / sort / filter time of the rules, trajectories and evidence
tables for every sort and filter the window offers (``scale_tables.py``; ``--reviewed``
first gives every rule a decision and a verdict mark), and cauterule 0.3.1's µs per pair
measured on a random sample of the same pairs in the same process, with the ratio.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.importing import import_paths  # noqa: E402
from core.replay.profiles import WORKBENCH  # noqa: E402
from core.replaying import ReplayRunSummary, make_embedder, run_replay  # noqa: E402
from core.store.corpus_repo import CorpusRepository, TrajectoryFilter  # noqa: E402
from core.store.engine import Store, open_store  # noqa: E402
from core.store.outcome_reads import run_outcome_size  # noqa: E402
from core.store.replay_repo import ReplayRepository  # noqa: E402
from core.store.result_repo import ResultRepository  # noqa: E402
from core.store.store_file import inspect_store_file  # noqa: E402
from core.store.workspace_query import WorkspaceFilter, WorkspaceScope  # noqa: E402

from benchmarks.make_scale_corpus import generate  # noqa: E402
from benchmarks.scale_tables import review_everything, tables  # noqa: E402


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def say(name: str, value: str) -> None:
    print(f"  {name:<44} {value}   [peak RSS {rss_mb():,.0f} MB]", flush=True)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


class SaveClock:
    """Adds up time (wall and CPU) spent in ReplayRepository.save_results (benchmark-only wrapper)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.cpu = 0.0
        original = ReplayRepository.save_results

        def timed_save(repo: ReplayRepository, *args: Any, **kwargs: Any) -> None:
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                original(repo, *args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0
                self.cpu += time.process_time() - c0

        ReplayRepository.save_results = timed_save  # type: ignore[method-assign]


def replay_line(name: str, summary: ReplayRunSummary, seconds: float, clock: SaveClock, cpu: float) -> None:
    """Wall and CPU seconds: on a shared machine the wall clock also counts other processes."""
    say(name, f"{seconds:8.2f} s wall, {cpu:.2f} s CPU  {summary.pairs:,} pairs  {summary.pairs / seconds:,.0f} pairs/s  "
              f"(saving {clock.seconds:.2f} s wall, {clock.cpu:.2f} s CPU)  status {summary.status}")


def timed_cpu(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """CPU of this process and of the children it reaped meanwhile (a run's scoring workers)."""
    c0 = time.process_time() + children_cpu()
    value, seconds = timed(fn)
    return value, seconds, time.process_time() + children_cpu() - c0


def children_cpu() -> float:
    """CPU seconds of this process's reaped children (the scoring workers)."""
    times = os.times()
    return times.children_user + times.children_system


def run_peak_reset() -> Callable[[], float]:
    """Resets this process's peak resident set (Linux: ``/proc/self/clear_refs``); the function
    returned reads the peak since (MB), or the process's lifetime peak where that is not possible."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return rss_mb

    def peak() -> float:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return rss_mb()
    return peak


def compare_workers(store: Store, profile: Any, workers: int, clock: SaveClock, label: str) -> None:
    """One run on one core, then one on ``workers`` processes, back to back on the same store:
    wall and CPU (this process plus its workers) of each, the speed-up as the ratio of the two
    wall times, and whether both stored the same outcome blocks (issue 27)."""
    seconds = {}
    for n in (1, workers):
        clock.seconds = clock.cpu = 0.0
        before = children_cpu()
        peak = run_peak_reset()
        summary, s, cpu = timed_cpu(lambda: run_replay(store, profile, include_expected_rules=False, scope="scale",
                                                       workers=n))
        workers_cpu = children_cpu() - before
        replay_line(f"replay {label}, {n} worker{'s' if n > 1 else ''}", summary, s, clock, cpu)
        say("  peak RSS of this run in this process", f"{peak():,.0f} MB" + (
            f"; of which in the scoring workers {workers_cpu:.2f} s CPU; largest worker's peak RSS "
            f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:,.0f} MB (shared pages counted in full)"
            if n > 1 else ""))
        seconds[n] = (s, summary.run_id)
        del summary  # not held while the next run loads its own inputs
    with store.read_session() as session:
        same = session.connection().exec_driver_sql(
            "SELECT COUNT(*) FROM (SELECT rule_version_id, prevented_n, broken_n, near_miss_n, missed_n, verdict "
            "FROM replay_result WHERE run_id = ? EXCEPT SELECT rule_version_id, prevented_n, broken_n, near_miss_n, "
            "missed_n, verdict FROM replay_result WHERE run_id = ?)", (seconds[1][1], seconds[workers][1])).scalar()
    say(f"  {label}: 1 worker / {workers} workers", f"{seconds[1][0] / seconds[workers][0]:.2f}x faster by wall; "
                                                    f"results differing between the two runs: {same}")


def reference_us_per_pair(summary: ReplayRunSummary, sample: int, seed: int) -> float:
    from cauterule.models.candidate import CandidateRule
    from cauterule.models.rule import RuleDo, RuleWhen
    from cauterule.models.trajectory import Trajectory
    from cauterule.replay.simulator import simulate

    from core.replay.profiles import threshold_for_corpus

    rng = random.Random(seed)
    rules, trajs = summary.inputs.rules, summary.inputs.trajectories
    picks = [(rules[rng.randrange(len(rules))], trajs[rng.randrange(len(trajs))]) for _ in range(sample)]
    prepared = [
        (CandidateRule(when=RuleWhen(trigger=r.trigger, context=r.context, signature=r.signature),
                       do=RuleDo(directive=r.directive or r.trigger), confidence=0.9),
         Trajectory.from_dict(t.record), threshold_for_corpus(r.corpus) if r.corpus else 0.6)
        for r, t in picks
    ]
    t0 = time.perf_counter()
    for cand, traj, threshold in prepared:
        simulate(cand, traj, threshold)
    return (time.perf_counter() - t0) / sample * 1e6


def store_size(store: Store, trajectories: int) -> None:
    """What the store holds on disk (``store stats``): its size, the largest tables, and what a
    complete run costs (issue 27 item 4: the store's size at 10^6)."""
    from core.store.store_stats import per_run_bytes, store_stats

    stats, s = timed(lambda: store_stats(store))
    biggest = ", ".join(f"{t.table} {t.bytes / 1e6:,.0f} MB" for t in stats.tables[:4])
    say("store size (store stats)", f"{stats.total_bytes / 1e6:,.0f} MB ({stats.total_bytes / trajectories:,.0f} bytes "
                                    f"per trajectory with the runs); {biggest}; read in {s:.1f} s")
    if stats.runs:
        say("  a complete run", f"{per_run_bytes(stats) / 1e6:,.0f} MB on average over {len(stats.runs)} run(s)")


def store_bytes(path: Path) -> int:
    wal = Path(f"{path}-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def replay_only(store: Store, path: Path, profile: Any, clock: SaveClock, workers: int | None) -> None:
    """One lexical run end to end (issue 27 item 4: the 10^6 figures without the table reads)."""
    before = store_bytes(path)
    peak = run_peak_reset()
    summary, s, cpu = timed_cpu(lambda: run_replay(store, profile, include_expected_rules=False, scope="scale",
                                                   workers=workers))
    replay_line("replay lexical", summary, s, clock, cpu)
    say("  peak RSS of this run in this process", f"{peak():,.0f} MB; largest child's peak RSS "
        f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:,.0f} MB (shared pages counted in full)")
    say("  store growth of this run", f"{(store_bytes(path) - before) / 1e6:,.0f} MB (file + WAL)")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("n_trajectories", type=int)
    ap.add_argument("n_rules", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--semantic", action="store_true", help="also replay semantic, cold then warm")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--ref-sample", type=int, default=2000, help="pairs timed on cauterule 0.3.1")
    ap.add_argument("--reuse-store", action="store_true", help="keep an imported store from an earlier run")
    ap.add_argument("--skip-lexical", action="store_true",
                    help="one lexical run instead of two (with --reuse-store, for the semantic figures)")
    ap.add_argument("--tables-only", action="store_true",
                    help="with --reuse-store: time the tables only (no replay, no reference sample)")
    ap.add_argument("--workers", type=int, default=0,
                    help="also replay with 1 worker and with this many, back to back (speed-up, same results)")
    ap.add_argument("--replay-only", action="store_true",
                    help="with --reuse-store: one lexical run and its figures (wall, CPU with the workers', peak "
                         "RSS of this process and of its largest child, the store's growth), nothing else")
    ap.add_argument("--reviewed", action="store_true",
                    help="before timing the tables, give every rule a decision and a verdict mark (once)")
    args = ap.parse_args()
    os.environ.pop("CAUTERULE_SEMANTIC_MATCHING", None)
    logging.disable(logging.WARNING)
    work = args.workdir or Path(f"/tmp/scale-{args.n_trajectories}-{args.n_rules}-s{args.seed}")
    corpus = work / "generated"
    print(f"scale {args.n_trajectories:,} trajectories x {args.n_rules:,} rules, seed {args.seed}, "
          f"{os.cpu_count()} CPUs, workdir {work}", flush=True)
    if not corpus.exists():
        _, s = timed(lambda: generate(args.n_trajectories, args.n_rules, args.seed, corpus,
                                      ROOT.parent / "shared" / "corpora" / "cauterule"))
        say("generate corpus", f"{s:8.2f} s")
    path = work / "store.sqlite"
    if not (args.reuse_store and path.exists()):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        store = open_store(path)
        _, s = timed(lambda: import_paths(store, [corpus]))
        say("import", f"{s:8.2f} s")
        store.close()

    def first_window() -> Store:
        # What the window reads before it is usable: the file check (the GUI checks before it
        # takes its lock, then opens), the rules table as shown, the corpora and trajectories.
        inspect_store_file(path)
        opened = open_store(path)
        ResultRepository(opened).page_groups(WorkspaceScope(), WorkspaceFilter(), None, limit=200)
        corpora = CorpusRepository(opened)
        corpora.list_corpora()
        corpora.count_trajectories(TrajectoryFilter())
        corpora.list_trajectories(TrajectoryFilter(), 0, 200)
        return opened

    store, s = timed(first_window)
    say("first window: file check, store open, first rules, corpora and trajectories pages", f"{s:8.2f} s")
    if args.tables_only:  # the table figures of a store imported (and replayed) before
        store_size(store, args.n_trajectories)
        if args.reviewed:
            say("decisions and marks written for the tables", f"{review_everything(store):,} rules")
        tables(store, say)
        store.close()
        return 0

    clock = SaveClock()
    lexical = WORKBENCH.with_(semantic=False)
    if args.replay_only:
        replay_only(store, path, lexical, clock, args.workers or None)
        store.close()
        return 0
    summary = None
    for label in (() if args.skip_lexical else ("replay lexical, first run", "replay lexical, second run")):
        clock.seconds = clock.cpu = 0.0
        summary = None  # the first run's records are not held through the second
        summary, s, cpu = timed_cpu(lambda: run_replay(store, lexical, include_expected_rules=False, scope="scale"))
        replay_line(label, summary, s, clock, cpu)
    if summary is None:  # --skip-lexical: one lexical run is still needed for the reference sample
        clock.seconds = clock.cpu = 0.0
        summary, s, cpu = timed_cpu(lambda: run_replay(store, lexical, include_expected_rules=False, scope="scale"))
        replay_line("replay lexical", summary, s, clock, cpu)
    lexical_seconds = s
    # The reference sample now, then the run's records are let go: held, they would count in
    # the peaks of the semantic runs below (issue 27: peak RSS of a warm semantic run).
    ref = reference_us_per_pair(summary, args.ref_sample, args.seed) if args.ref_sample > 0 else None
    run_id, pairs = summary.run_id, summary.pairs
    summary = None
    if args.workers > 1:
        compare_workers(store, lexical, args.workers, clock, "lexical")
    wal = Path(f"{path}-wal")
    size = path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    with store.read_session() as session:
        counted = run_outcome_size(session, run_id)
    outcomes, stored = counted.rows, counted.stored
    per_million = 1e6 / max(1, pairs)
    say("outcomes per run", f"{outcomes:,} rows as read ({outcomes * per_million:,.0f} per 10^6 pairs), "
                            f"{stored:,} stored ({stored * per_million:,.0f} per 10^6 pairs)")
    if stored:
        say("stored outcome size", f"{counted.block_bytes / stored:.0f} bytes per stored pair (one block per result); "
                                   f"{counted.block_bytes * per_million / 1e6:.1f} MB per 10^6 pairs; "
                                   f"store file {size / 1e6:,.0f} MB after 2 runs")

    if args.semantic:
        embedder, why = make_embedder(store)
        if embedder is None:
            say("semantic", f"unavailable: {why}")
        else:
            encode = embedder.embedder.encode
            spent = [0.0, 0]

            def timed_encode(texts: Any) -> Any:
                t0 = time.perf_counter()
                try:
                    return encode(texts)
                finally:
                    spent[0] += time.perf_counter() - t0
                    spent[1] += len(texts)

            embedder.embedder.encode = timed_encode  # type: ignore[method-assign]
            embedder.embedder.load()
            clock.seconds = clock.cpu = 0.0
            cold, s, cpu = timed_cpu(
                lambda: run_replay(store, WORKBENCH, include_expected_rules=False, embedder=embedder))
            replay_line("replay semantic, cold cache", cold, s, clock, cpu)
            cold = None  # not held through the warm run's peak
            say("  of which embedding unique texts", f"{spent[0]:8.2f} s for {spent[1]:,} texts "
                                                     f"({spent[1] / max(spent[0], 1e-9):.0f}/s); "
                                                     f"cold / embed = {s / max(spent[0], 1e-9):.2f}")
            warm_embedder, _ = make_embedder(store)
            clock.seconds = clock.cpu = 0.0
            warm, s, cpu = timed_cpu(lambda: run_replay(store, WORKBENCH, include_expected_rules=False,
                                                        embedder=warm_embedder))
            replay_line("replay semantic, warm cache (store)", warm, s, clock, cpu)

    if args.reviewed:
        say("decisions and marks written for the tables", f"{review_everything(store):,} rules")
    store_size(store, args.n_trajectories)
    tables(store, say)
    ours = lexical_seconds / max(1, pairs) * 1e6
    if ref is not None:
        say("cauterule 0.3.1 simulate, random sample", f"{ref:8.1f} us/pair over {args.ref_sample:,} pairs")
        say("ours, lexical end to end", f"{ours:8.3f} us/pair; ratio {ref / ours:,.0f}x")
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
