"""One lexical replay over an imported store, with ``ReplayRepository.save_results`` profiled alone.

    PYTHONPATH=. python benchmarks/profile_save.py STORE.sqlite [--top N] [--whole]

Prints the run's wall and CPU seconds, the saving part's, and the profile of the saving
only (cProfile is enabled inside ``save_results`` and nowhere else); ``--whole`` profiles
the whole run instead. The store gets one more complete run (scope "scale"); use a copy.
"""

from __future__ import annotations

import argparse
import cProfile
import logging
import pstats
import time
from pathlib import Path
from typing import Any

from core.replay.profiles import WORKBENCH
from core.replaying import run_replay
from core.store.engine import open_store
from core.store.replay_repo import ReplayRepository


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--whole", action="store_true", help="profile the whole run, not only the saving")
    args = ap.parse_args()
    logging.disable(logging.WARNING)
    profile = cProfile.Profile()
    original = ReplayRepository.save_results
    spent = [0.0, 0.0]

    def profiled(repo: ReplayRepository, *a: Any, **k: Any) -> None:
        t0, c0 = time.perf_counter(), time.process_time()
        if not args.whole:
            profile.enable()
        try:
            original(repo, *a, **k)
        finally:
            if not args.whole:
                profile.disable()
            spent[0] += time.perf_counter() - t0
            spent[1] += time.process_time() - c0

    ReplayRepository.save_results = profiled  # type: ignore[method-assign]
    store = open_store(args.store)
    t0, c0 = time.perf_counter(), time.process_time()
    if args.whole:
        profile.enable()
    summary = run_replay(store, WORKBENCH.with_(semantic=False), include_expected_rules=False, scope="scale")
    if args.whole:
        profile.disable()
    print(f"run {time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU, {summary.pairs:,} pairs; "
          f"saving {spent[0]:.1f} s wall, {spent[1]:.1f} s CPU (profiled)", flush=True)
    pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
