"""The team load drill at full size (issue 14): 10 reviewer processes × 500 mixed actions at once.

    PYTHONPATH=. python benchmarks/team_load.py [--workers 10] [--actions 500] [--url postgresql://...]

Without ``--url`` it starts a throwaway PostgreSQL cluster on a Unix socket in a temporary
folder (``core.team.cluster``; no TCP) and stops it at the end. Prints what was done and stored,
the conflicts detected, deadlocks and serialisation failures, and the p50/p95 latency of an
action (its writes, retries included; the simulated reading time excluded). Exit code 0 only
if every action was stored (0 lost), with 0 deadlocks and conflicting writes detected.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.team.cluster import start_cluster  # noqa: E402

from tests.drills.team_load import run_drill  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=10)
    parser.add_argument("--actions", type=int, default=500)
    parser.add_argument("--url", default=None, help="an empty database (default: a throwaway cluster)")
    args = parser.parse_args()
    cluster = None
    url = args.url
    if url is None:
        cluster = start_cluster(max_connections=200)
        url = cluster.create_database("team_load")
    try:
        result = run_drill(url, args.workers, args.actions)
    finally:
        if cluster is not None:
            cluster.stop()
            shutil.rmtree(cluster.root, ignore_errors=True)
    total = args.workers * args.actions
    print(f"reviewer processes:      {result.workers} × {result.actions} actions = {total}")
    print(f"actions done / stored:   {result.done} / {result.stored}   lost: {result.lost}")
    print(f"conflicts detected:      {result.conflicts}")
    print(f"deadlocks (40P01):       {result.deadlocks}   serialisation failures (40001): "
          f"{result.serialization_failures}   other errors: {result.other_errors}")
    print(f"action latency:          p50 {result.p50_ms:.1f} ms   p95 {result.p95_ms:.1f} ms")
    print(f"wall time:               {result.seconds:.1f} s ({total / result.seconds:.0f} actions/s)")
    ok = (result.done == total and result.stored == total and result.lost == 0 and result.deadlocks == 0
          and sum(result.conflicts.values()) > 0)
    print("acceptance:", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
