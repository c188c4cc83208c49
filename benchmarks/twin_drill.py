"""Drill: many rules with one trigger (a hostile or careless import) under a twins profile.

    PYTHONPATH=. python benchmarks/twin_drill.py [--rules 5000] [--trajectories 10000]

Every rule has the same trigger and its own source failure, so each is the twin of every other:
R x (R - 1) twin claims. The run must stay bounded by a chunk's worth of twin columns
(``core.replay.twins.TwinIndex``), not hold all R^2 at once. Prints wall and CPU seconds and the
peak RSS of the run with twins beside the same run without them, and checks the claims.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.replay.engine import replay  # noqa: E402
from core.replay.inputs import trajectory_from_record  # noqa: E402
from core.replay.profiles import LAB_2026_12  # noqa: E402
from core.replay.types import ReplayRule  # noqa: E402


def inputs(n_rules: int, n_traj: int) -> tuple[list[ReplayRule], list]:  # type: ignore[type-arg]
    trajectories = [trajectory_from_record(i, {
        "trajectory_id": f"T-{i}", "task": "check the service", "success": i % 10 == 9, "domain": "devops",
        "steps": [{"step_number": 1, "tool": "bash", "input": "kubectl get pods", "error": f"error {i % 97}"}],
    }, "drill") for i in range(n_traj)]
    failures = [t for t in trajectories if not t.success]
    rules = [ReplayRule(key=f"r{i}", trigger="when a pod enters CrashLoopBackOff",
                        source_trajectory_id=failures[i % len(failures)].trajectory_id, domain="devops")
             for i in range(n_rules)]
    return rules, trajectories


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, default=5000)
    parser.add_argument("--trajectories", type=int, default=10000)
    args = parser.parse_args()
    rules, trajectories = inputs(args.rules, args.trajectories)
    distinct = len({r.source_trajectory_id for r in rules})
    for label, profile in (("without twins", LAB_2026_12.with_(semantic=False, twin_rules=None)),
                           ("with twins", LAB_2026_12.with_(semantic=False))):
        wall, cpu = time.perf_counter(), time.process_time()
        out = replay(rules, trajectories, profile, keep_outcomes=False, workers=1)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        claims = sum(len(r.prevented) for r in out.results)
        print(f"{label:14s} {len(rules)} rules x {len(trajectories)} trajectories: {wall:6.2f} s wall "
              f"{cpu:6.2f} s CPU, peak RSS so far {peak:,.0f} MB, {claims:,} prevented claims ({out.status})")
    expected = len(rules) * (distinct - 1)  # every other distinct source; own source excluded
    print(f"twin claims expected at least {expected:,} (each rule: every other distinct source)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
