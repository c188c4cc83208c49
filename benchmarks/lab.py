"""The calibration lab's sweep beside one full replay of the same data (docs/lab.md "Cost").

    python benchmarks/lab.py [--store PATH]                 # shared corpus + corpora/demo, real model
    python benchmarks/lab.py --generated DIR [--rules N] [--trajectories N]   # scale corpus, no model

The first form imports ../shared/corpora/cauterule and corpora/demo into PATH (once; default
/tmp/lab-bench.sqlite), embeds with the bundled model through the store's embedding cache, and
reports the second (warm) run. The second form reads what ``make_scale_corpus`` wrote and
embeds with ``semantic_pruning.ProjectionEmbed`` (a fixed random projection: no model). Both
print: scoring once, the sweep of the default grid (every setting re-decided on those scores,
read against every truth with its floors and canaries), and one full ``replay`` of the workbench
profile on the same rules and trajectories. CPU and wall seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.lab.run import run_lab  # noqa: E402
from core.lab.scores import ScoredPairs  # noqa: E402
from core.lab.settings import default_grid, twin_grid  # noqa: E402
from core.replay.engine import replay  # noqa: E402
from core.replay.profiles import LAB_2026_12, WORKBENCH  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpora" / "cauterule"


def timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def store_inputs(path: Path) -> tuple[list[Any], list[Any], Any]:
    from core.importing import import_paths
    from core.replaying import load_inputs, make_embedder, materialise_expected_rules
    from core.store.engine import open_store

    store = open_store(path)
    inputs = load_inputs(store)
    if not inputs.trajectories:
        import_paths(store, [SHARED / "corpus", SHARED / "field-test", SHARED / "tests" / "fixtures",
                             ROOT / "corpora" / "demo"])
    materialise_expected_rules(store)
    inputs = load_inputs(store, include_expected_rules=True)
    embed, note = make_embedder(store)
    if embed is None:
        print(f"warning: no model ({note}): lexical only", file=sys.stderr)
    return inputs.rules, inputs.trajectories, embed


def generated_inputs(root: Path, n_rules: int | None, n_traj: int | None) -> tuple[list[Any], list[Any], Any]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from semantic_pruning import ProjectionEmbed, load  # type: ignore[import-not-found]

    rules, trajectories = load(root, n_rules, n_traj)
    return rules, trajectories, ProjectionEmbed()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("/tmp/lab-bench.sqlite"))
    parser.add_argument("--generated", type=Path, default=None)
    parser.add_argument("--rules", type=int, default=None)
    parser.add_argument("--trajectories", type=int, default=None)
    parser.add_argument("--settings", type=int, default=None, help="the first N settings of the default grid")
    parser.add_argument("--twins", action="store_true", help="the default grid's twin settings (twin_grid) instead")
    parser.add_argument("--resplits", type=int, default=0, help="also re-run the choice on N other seeds' splits")
    args = parser.parse_args()
    if args.generated is not None:
        rules, trajectories, embed = generated_inputs(args.generated, args.rules, args.trajectories)
    else:
        rules, trajectories, embed = store_inputs(args.store)
    grid = (twin_grid() if args.twins else default_grid())[: args.settings]
    print(f"{len(rules)} rules x {len(trajectories)} trajectories = {len(rules) * len(trajectories):,} pairs; "
          f"{len(grid)} settings")
    ScoredPairs.build(rules, trajectories, embed=embed)  # cold: embeddings, trajectory side
    scored, wall, cpu = timed(lambda: ScoredPairs.build(rules, trajectories, embed=embed))
    print(f"scoring once (warm):          {wall:7.2f} s wall {cpu:7.2f} s CPU")
    result, wall, cpu = timed(lambda: run_lab(rules, trajectories, embed=embed, settings=grid, scored=scored,
                                              resplits=args.resplits))
    print(f"sweep of {len(grid)} settings (warm, {args.resplits} re-splits): {wall:7.2f} s wall {cpu:7.2f} s CPU "
          f"(re-deciding and reading: {result.seconds['sweep']:.2f} s)")
    for profile in (WORKBENCH, LAB_2026_12):
        out, wall, cpu = timed(lambda p=profile: replay(rules, trajectories, p, embed=embed))
        print(f"one full replay ({profile.name}): {wall:7.2f} s wall {cpu:7.2f} s CPU ({out.status})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
