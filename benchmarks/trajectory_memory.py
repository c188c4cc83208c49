"""Memory a replay's trajectories take, per trajectory: the records and the trajectory side.

    PYTHONPATH=. python benchmarks/trajectory_memory.py N WORKDIR     # generates and imports, then exits
    PYTHONPATH=. python benchmarks/trajectory_memory.py N WORKDIR     # again: measures in a fresh process

Resident memory (``/proc/self/statm``, not the peak) after ``load_trajectories`` (every record
as a parsed dict) and after ``build_trajectory_side`` (views, their index, pools), divided by
the trajectories: what a lexical replay holds before it scores anything, so what 10^6 needs.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.importing import import_paths  # noqa: E402
from core.replay import matcher_bridge  # noqa: E402
from core.replay.engine import build_trajectory_side  # noqa: E402
from core.replay.profiles import WORKBENCH  # noqa: E402
from core.replaying import load_trajectories  # noqa: E402
from core.store.engine import open_store  # noqa: E402

from benchmarks.make_scale_corpus import generate  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> int:
    n, work = int(sys.argv[1]), Path(sys.argv[2])
    if not (work / "generated").exists():
        generate(n, 50, 1, work / "generated", ROOT.parent / "shared" / "corpora" / "cauterule")
    store = open_store(work / "store.sqlite")
    if not (work / "imported").exists():  # import in one process, measure in a fresh one
        import_paths(store, [work / "generated"])
        (work / "imported").touch()
        print("imported; run again to measure")
        return 0
    base = rss_mb()
    t0 = time.process_time()
    trajectories = load_trajectories(store)
    loaded = rss_mb()
    side = build_trajectory_side(trajectories, matcher_bridge.matcher_profile(WORKBENCH.matcher, semantic=False),
                                 None, None)
    built = rss_mb()
    count = len(trajectories)
    print(f"{count:,} trajectories: process {base:,.0f} MB; records loaded {loaded:,.0f} MB "
          f"(+{(loaded - base) * 1024 / count:,.1f} KB each); side built {built:,.0f} MB "
          f"(+{(built - loaded) * 1024 / count:,.1f} KB each); {time.process_time() - t0:.1f} s CPU")
    del side
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
