"""One replay of an existing store in a fresh process: wall, this process's CPU, the workers'
CPU and this process's peak RSS (issue 27's warm semantic and lexical figures).

    PYTHONPATH=. python benchmarks/replay_once.py STORE [--workers N] [--lexical] [--cprofile]

Semantic by default (the workbench profile, the store's cached vectors: warm when the store has
them for the embedder in force, ``CAUTERULE_WORKBENCH_EMBEDDER``). ``--cprofile`` prints where
this process's time went (use ``--workers 1`` so the scoring is in it).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.replay.profiles import WORKBENCH  # noqa: E402
from core.replaying import make_embedder, run_replay  # noqa: E402
from core.store.engine import open_store  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--workers", type=int, default=None, help="scoring processes (default: the machine's)")
    ap.add_argument("--lexical", action="store_true", help="the workbench profile without semantic matching")
    ap.add_argument("--cprofile", action="store_true", help="print this process's 40 costliest functions")
    args = ap.parse_args()
    store = open_store(args.store)
    profile = WORKBENCH.with_(semantic=False) if args.lexical else WORKBENCH
    embedder = None
    if not args.lexical:
        embedder, why = make_embedder(store)
        print(f"embedder: {embedder.model_id if embedder is not None else why}", flush=True)
    profiler = cProfile.Profile() if args.cprofile else None
    before = os.times()
    started = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    summary = run_replay(store, profile, include_expected_rules=False, embedder=embedder, workers=args.workers)
    if profiler is not None:
        profiler.disable()
    wall = time.perf_counter() - started
    after = os.times()
    own = (after.user - before.user) + (after.system - before.system)
    children = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'lexical' if args.lexical else 'semantic'} replay, {summary.pairs:,} pairs, status {summary.status}: "
          f"{wall:.1f} s wall, {own:.1f} s CPU here + {children:.1f} s in workers; peak RSS here {peak:,.0f} MB")
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(40)
        print(out.getvalue())
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
