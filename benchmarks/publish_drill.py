"""Kill drill of issue 28 at full size: 30 SIGKILLs at random moments during ``publish``.

    PYTHONPATH=. python benchmarks/publish_drill.py [--kills 30] [--seed 1]

After each kill the rule store folder must be the old store or the new one (never a mix),
and a publish run to the end afterwards must succeed and give the new store. Exit code 0
only if that held every time. (tests/core/test_publish_drill.py runs 3 kills.)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.drills.publish_kills import publish_kill_drill  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="publish-drill-") as work:
        drill = publish_kill_drill(Path(work), args.kills, args.seed)
    load = os.getloadavg()
    print(f"publish kill drill: {drill.kills} kills (one publish {drill.publish_seconds:.2f} s wall, "
          f"load {load[0]:.1f}): old {drill.old}, new {drill.new}, mixed {drill.mixed}; "
          f"publish after the kill: {drill.completed_after} completed, {drill.refused_after} refused; "
          f"leftover staging folders {drill.leftovers}")
    for problem in drill.problems:
        print(f"  problem: {problem}")
    ok = drill.mixed == 0 and drill.refused_after == 0 and drill.completed_after == drill.kills and not drill.problems
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
