"""Where a 10^5 semantic replay's memory goes: the resident set after each part of its fixed
work, then the peak of a whole run (issue 27: peak RSS at 10^5 x 10^3 warm semantic).

    python benchmarks/replay_memory.py GENERATED_DIR [--rules N] [--trajectories N] [--workers N]

No store and no model (as ``semantic_pruning.py``: the embedder is a fixed random projection
of hashed content tokens, 384 dimensions). Each line gives the resident set now (``VmRSS``)
and what the part added; the last lines the peak of a whole ``replay`` (``VmHWM``, reset
before it through ``/proc/self/clear_refs``) and, with workers, the largest worker's peak.
Linux only (it reads ``/proc/self/status``).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import core.replay.matcher_bridge as mb  # noqa: E402
from core.replay.engine import replay  # noqa: E402
from core.replay.pools import PoolIndex  # noqa: E402
from core.replay.profiles import WORKBENCH  # noqa: E402

from benchmarks.semantic_pruning import DIM, ProjectionEmbed, load  # noqa: E402


def status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS (Linux >= 4.0)


class Steps:
    def __init__(self) -> None:
        self.last = status_mb("VmRSS")
        print(f"  {'start (interpreter, numpy, scipy, core)':58} {self.last:8,.0f} MB", flush=True)

    def __call__(self, name: str, t0: float) -> None:
        gc.collect()
        now = status_mb("VmRSS")
        print(f"  {name:58} {now:8,.0f} MB  (+{now - self.last:,.0f} MB, {time.process_time() - t0:.1f} s CPU)",
              flush=True)
        self.last = now


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("generated", type=Path)
    ap.add_argument("--rules", type=int, default=None)
    ap.add_argument("--trajectories", type=int, default=None)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    step = Steps()
    t0 = time.process_time()
    rules, trajectories = load(args.generated, args.rules, args.trajectories)
    step(f"{len(trajectories):,} trajectories and {len(rules):,} rules loaded (records)", t0)
    matcher = mb.matcher_profile(WORKBENCH.matcher, semantic=True)
    t0 = time.process_time()
    views = [mb.views_for(t.record, matcher) for t in trajectories]
    step("views (normalised texts of every trajectory)", t0)
    t0 = time.process_time()
    index = mb.index_views(views, None)
    step("view index (token matrices, joined texts, word indexes)", t0)
    t0 = time.process_time()
    pools = PoolIndex.build(trajectories)
    successes = np.flatnonzero(~pools.failure)
    success_index = mb.index_views([views[j] for j in successes], None)
    step(f"second index of the {successes.size:,} successes (lexical evidence)", t0)
    embed = ProjectionEmbed()
    t0 = time.process_time()
    cosines = mb.SemanticCosines.prepare([mb.rule_text(r) for r in rules], views, embed, matcher)
    step(f"embedded table of {cosines.unique_texts:,} unique texts ({DIM} float32)", t0)
    t0 = time.process_time()
    cosines.prepare_targets()
    step("cosine targets (distinct texts, float64, normed)", t0)
    del views, index, success_index, cosines, pools
    t0 = time.process_time()
    step("the parts above dropped (the run below builds its own)", t0)

    vectors: dict[str, np.ndarray] = {}

    def warm(texts: list[str]) -> np.ndarray:  # a warm cache: every vector computed before the run
        missing = [t for t in dict.fromkeys(texts) if t not in vectors]
        if missing:
            vectors.update(zip(missing, embed(missing)))
        return np.vstack([vectors[t] for t in texts]) if texts else np.zeros((0, DIM), dtype=np.float32)

    warm([mb.rule_text(r).trigger for r in rules])
    private: dict[int, float] = {}

    def sample_workers(_chunk: object) -> None:
        """Each worker's private memory (pages it wrote: not shared with this process), its largest."""
        for pid in Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split():
            try:
                rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
            except OSError:
                continue
            mb = sum(int(line.split()[1]) for line in rollup if line.startswith(("Private_Clean", "Private_Dirty")))
            private[int(pid)] = max(private.get(int(pid), 0.0), mb / 1024)

    reset_peak()
    t0, w0 = time.process_time(), time.perf_counter()
    out = replay(rules, trajectories, WORKBENCH, embed=warm, keep_outcomes=False, on_results=sample_workers,
                 workers=args.workers)
    assert out.status == "complete"
    print(f"  whole replay, {args.workers} worker(s): peak {status_mb('VmHWM'):,.0f} MB in this process "
          f"(resident before it {step.last:,.0f} MB); {time.perf_counter() - w0:.1f} s wall, "
          f"{time.process_time() - t0:.1f} s CPU here", flush=True)
    if args.workers > 1:
        print(f"  largest worker's peak RSS {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:,.0f} MB "
              "(pages shared with this process counted in full)")
        print(f"  each worker's largest private memory (sampled per chunk): "
              f"{', '.join(f'{v:,.0f} MB' for v in private.values())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
