"""What the key-limit screen of a team file costs, as a ratio to parsing the file.

    PYTHONPATH=. python benchmarks/team_file_keys.py [--labels 20000] [--refused-every 10]

Builds a team export of N labels in memory (pretty-printed, as ``export_reviewer`` writes it),
makes every K-th trajectory id 10 KB long (0: none), and times ``json.loads`` and
``core.agreement.merge_keys.screen`` (the limits check plus the line of each refused field).
No database: the merge's own writes cost far more per label than either.
"""

from __future__ import annotations

import argparse
import json
import random
import string
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.agreement.merge_keys import screen  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=20_000)
    parser.add_argument("--refused-every", type=int, default=10, help="every K-th label gets a 10 KB id (0: none)")
    args = parser.parse_args()
    huge = "".join(random.Random(1).choices(string.ascii_letters, k=10_000))
    labels = [{"trajectory": {"corpus": "c", "file": "a.jsonl", "line": i, "trajectory_id": f"T{i}",
                              "content_hash": "h" * 64},
               "reviewer": "ana", "label": {"trigger": "when x", "directive": "do y", "variants": [], "note": None},
               "created_at": "2026-12-01T00:00:00Z", "updated_at": "2026-12-01T00:00:00Z"} for i in range(args.labels)]
    if args.refused_every:
        for i in range(0, args.labels, args.refused_every):
            labels[i]["trajectory"]["trajectory_id"] = huge
    text = json.dumps({"format": "cauterule-workbench/team-export", "version": 1, "labels": labels}, indent=2)
    start = time.perf_counter()
    payload = json.loads(text)
    parse = time.perf_counter() - start
    start = time.perf_counter()
    screened = screen(payload, text, "team.json")
    check = time.perf_counter() - start
    print(f"{args.labels:,} labels, {len(text) / 1e6:.1f} MB, {len(screened.refused):,} refused: "
          f"parse {parse:.2f} s, screen {check:.2f} s, screen/parse {check / parse:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
