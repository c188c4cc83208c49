"""End-to-end replay through the store against cauterule 0.3.1 on the same job.

Ours: import the corpus into a fresh store, make every ``expected_rule`` a candidate, then
``run_replay`` with the ``reference-0.3.1`` profile, lexical: rules and trajectories loaded
from the store, replayed, every result and outcome saved (what ``cauterule-workbench replay
--from-expected-rule --profile reference-0.3.1 --no-semantic`` does). The clock covers
``run_replay`` only (the import is a separate step for both tools).

Reference: for the same rules, ``build_evidence_report`` on the field-test runner's pool (the
rule's source-domain slice if it has >= 3 records counting the source, minus records with the
source's id; the whole set if that empties it) at the per-corpus threshold: the job the
runner does for each candidate.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text

from core.importing import import_paths
from core.replay.profiles import REFERENCE_0_3_1, threshold_for_corpus
from core.replaying import ReplayInputs, materialise_expected_rules, run_replay
from core.store.engine import open_store
from core.store.outcome_reads import run_outcome_size
from core.store.replay_repo import ReplayRepository
from core.store.side_cache_repo import SideCacheRepository


def _timed_saves() -> list[float]:
    """Wrap ReplayRepository.save_results to add up the time spent saving (benchmark only)."""
    spent: list[float] = []
    original = ReplayRepository.save_results

    def timed(self: ReplayRepository, *args: Any, **kwargs: Any) -> None:
        t0 = time.perf_counter()
        try:
            original(self, *args, **kwargs)
        finally:
            spent.append(time.perf_counter() - t0)

    ReplayRepository.save_results = timed  # type: ignore[method-assign]
    return spent


def reference_job(inputs: ReplayInputs) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of the reference on the runner's job."""
    from cauterule.models.candidate import CandidateRule
    from cauterule.models.rule import RuleDo, RuleWhen
    from cauterule.models.trajectory import Trajectory
    from cauterule.replay.report import build_evidence_report

    refs = [Trajectory.from_dict(t.record) for t in inputs.trajectories]
    pairs = list(zip(inputs.trajectories, refs))
    t0, c0 = time.perf_counter(), time.process_time()
    for rule in inputs.rules:
        cand = CandidateRule(when=RuleWhen(trigger=rule.trigger, context=rule.context, signature=rule.signature),
                             do=RuleDo(directive=rule.directive or rule.trigger), confidence=0.9)
        pool = pairs
        if rule.domain is not None:
            same = [p for p in pairs if p[0].domain == rule.domain]
            if len(same) >= 3:
                pool = same
        kept = [ref for t, ref in pool if t.trajectory_id != rule.source_trajectory_id] or refs
        threshold = threshold_for_corpus(rule.corpus) if rule.corpus else 0.6
        build_evidence_report(cand, kept, threshold=threshold)
    return time.perf_counter() - t0, time.process_time() - c0


def end_to_end(corpus: Path, repeat: int = 3) -> int:
    """Ours: the first run in the process (nothing cached) and the best of ``repeat`` (the
    trajectory views are reused from the run before, as in the window's what-if loop), each
    in wall and in CPU seconds; the reference once. On a shared machine the CPU seconds are
    the steadier figure (other processes stretch the wall clock of both tools)."""
    from core.replay import view_cache

    os.environ.pop("CAUTERULE_SEMANTIC_MATCHING", None)
    logging.disable(logging.WARNING)  # the reference logs an OTel notice per report
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "e2e.sqlite")
        t0 = time.perf_counter()
        import_paths(store, [corpus])
        materialise_expected_rules(store)
        print(f"import + expected_rule candidates: {time.perf_counter() - t0:.2f} s")
        spent = _timed_saves()
        runs: list[tuple[float, float, float]] = []  # wall, cpu, saving
        summary = None
        view_cache.clear()
        # The import keeps the trajectory side in the store (docs/replay.md "Trajectory side kept
        # in the store"), so this process's first run reads it. E2E_COLD_SIDE=1 deletes it first:
        # the first run then builds the side, as every first run did before.
        if os.environ.get("E2E_COLD_SIDE") == "1":
            with store.session() as session:
                session.execute(text("DELETE FROM replay_side_cache"))
        kept = len(SideCacheRepository(store).keys())
        print(f"trajectory side in the store before the first run: {'yes' if kept else 'no (the run builds it)'}")
        for _ in range(max(1, repeat)):
            spent.clear()
            t0, c0 = time.perf_counter(), time.process_time()
            summary = run_replay(store, REFERENCE_0_3_1, include_expected_rules=True, scope="benchmark")
            runs.append((time.perf_counter() - t0, time.process_time() - c0, sum(spent)))
        assert summary is not None and summary.status == "complete"
        n_rules, n_traj = len(summary.inputs.rules), len(summary.inputs.trajectories)
        with store.read_session() as session:
            outcomes = run_outcome_size(session, summary.run_id).rows
        print(f"job: {n_rules} rules x {n_traj} trajectories = {summary.pairs:,} pairs, "
              f"{outcomes:,} outcome rows saved")
        first = runs[0]
        best_wall = min(runs, key=lambda r: r[0])
        best_cpu = min(r[1] for r in runs)
        print(f"  ours run_replay (load, replay, save), first run:      {first[0]:8.3f} s wall, {first[1]:.3f} s CPU "
              f"(saving {first[2]:.3f} s)")
        print(f"  ours run_replay, best of {len(runs)} (views reused):       {best_wall[0]:8.3f} s wall, "
              f"{best_cpu:.3f} s CPU (saving {best_wall[2]:.3f} s)")
        ref_wall, ref_cpu = reference_job(summary.inputs)
        print(f"  cauterule 0.3.1 build_evidence_report, runner pools: {ref_wall:8.3f} s wall, {ref_cpu:.3f} s CPU")
        print(f"  ratio, first run: ours takes 1/{ref_wall / first[0]:.0f} of the reference's wall time, "
              f"1/{ref_cpu / first[1]:.0f} of its CPU time")
        print(f"  ratio, best run:  ours takes 1/{ref_wall / best_wall[0]:.0f} of the reference's wall time, "
              f"1/{ref_cpu / best_cpu:.0f} of its CPU time")
        store.close()
    return 0


def _first_run(store_path: str) -> str:
    """In a new process: open the store, replay once (the process's first run); prints CPU and wall."""
    from core.replay.profiles import REFERENCE_0_3_1 as profile

    logging.disable(logging.WARNING)
    store = open_store(Path(store_path))
    t0, c0 = time.perf_counter(), time.process_time()
    summary = run_replay(store, profile, include_expected_rules=True, scope="benchmark")
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    store.close()
    assert summary.status == "complete"
    return f"{wall:.4f} {cpu:.4f}"


def first_runs(corpus: Path, processes: int) -> int:
    """The first run of a NEW process on an imported store, with the trajectory side in the store
    (kept by the import) and without it, alternating, ``processes`` of each; prints the median and
    the best, wall and CPU. A copy of one imported store per process, so no run sees another's."""
    import shutil
    import statistics
    import subprocess
    import sys

    logging.disable(logging.WARNING)
    times: dict[str, list[tuple[float, float]]] = {"side in the store": [], "side built": []}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.sqlite"
        store = open_store(base)
        import_paths(store, [corpus])
        materialise_expected_rules(store)
        store.close()
        for i in range(processes):
            for label in times:
                path = Path(tmp) / f"run{i}-{len(times[label])}-{label[-5:]}.sqlite"
                shutil.copy(base, path)
                if label == "side built":
                    with open_store(path).session() as session:
                        session.execute(text("DELETE FROM replay_side_cache"))
                out = subprocess.run(
                    [sys.executable, __file__, "--first-run", str(path)], capture_output=True, text=True, check=True,
                    env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
                wall, cpu = (float(x) for x in out.stdout.split()[-2:])
                times[label].append((wall, cpu))
    for label, runs in times.items():
        walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
        print(f"first run of a new process, {label:17s}: median {statistics.median(walls):.3f} s wall / "
              f"{statistics.median(cpus):.3f} s CPU, best {min(walls):.3f} / {min(cpus):.3f} ({len(runs)} processes)")
    return 0


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="python benchmarks/e2e.py --first-runs N [CORPUS]")
    parser.add_argument("corpus", nargs="?", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpora"
                                                          / "cauterule"))
    parser.add_argument("--first-runs", type=int, default=0, help="new processes per case (side kept / built)")
    parser.add_argument("--first-run", help=argparse.SUPPRESS)  # one child process: the store to replay on
    args = parser.parse_args()
    if args.first_run:
        print(_first_run(args.first_run))
        raise SystemExit(0)
    raise SystemExit(first_runs(Path(args.corpus), args.first_runs or 5))
