"""How long a What-if draft takes, beside the saved edit's one-rule replay (issue 24 item 8).

Imports CORPUS into a throw-away store, replays every rule (expected_rule candidates included,
lexical), then for the rule with the most prevented trajectories times, in one process:
``replay_draft`` (nothing written) and ``save_whatif_edit`` + ``run_replay`` of that rule (what
Apply does), each REPEAT times with a fresh trigger, and prints CPU and wall seconds (median
and worst). Lexical by default; ``--semantic`` uses the embedding model (a read-only vector
cache for the draft, the store's cache for the run).

    PYTHONPATH=$PWD python benchmarks/whatif_draft.py ../shared/corpora/cauterule [--repeat 5] [--semantic]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--semantic", action="store_true")
    args = parser.parse_args()

    from core.decisions import save_whatif_edit
    from core.decisions.whatif_draft import ReadOnlyVectorCache, replay_draft
    from core.importing import import_paths
    from core.replay.profiles import WORKBENCH
    from core.replaying import make_embedder, materialise_expected_rules, run_replay
    from core.store.engine import open_store
    from core.store.replay_repo import ReplayRepository

    profile = WORKBENCH.with_(semantic=args.semantic)
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(Path(folder) / "s.sqlite")
        import_paths(store, [args.corpus])
        materialise_expected_rules(store)
        embedder = None
        if args.semantic:
            embedder, note = make_embedder(store)
            if embedder is None:
                print(f"semantic unavailable: {note}", file=sys.stderr)
                return 1
        run = run_replay(store, profile, embedder=embedder)
        results = ReplayRepository(store).results(run.run_id)
        target = max(results, key=lambda r: (r.prevented_n, -r.rule_id))
        print(f"{len(results)} rules, {len(run.inputs.trajectories)} trajectories; rule {target.rule_id} "
              f"(prevented {target.prevented_n}); profile {profile.name}, semantic {run.semantic_state}; "
              f"load average {os.getloadavg()[0]:.1f}")
        draft_embed = None
        if embedder is not None:
            draft_embed, _ = make_embedder(store)
            assert draft_embed is not None and draft_embed.cache is not None
            draft_embed.cache = ReadOnlyVectorCache(draft_embed.cache)
        timings: dict[str, list[tuple[float, float]]] = {"draft": [], "apply (save + one-rule run)": []}
        for i in range(args.repeat):
            trigger = f"when the build fails on step {i} of the pipeline"
            cpu, wall = time.process_time(), time.perf_counter()
            replay_draft(store, target.rule_id, trigger, "retry it", profile, embed=draft_embed,
                         before_result_id=target.id)
            timings["draft"].append((time.process_time() - cpu, time.perf_counter() - wall))
            cpu, wall = time.process_time(), time.perf_counter()
            save_whatif_edit(store, target.rule_id, trigger, "retry it", "bench")
            run_replay(store, profile, rule_ids=[target.rule_id], embedder=embedder)
            timings["apply (save + one-rule run)"].append((time.process_time() - cpu, time.perf_counter() - wall))
        for name, values in timings.items():
            cpus, walls = [v[0] for v in values], [v[1] for v in values]
            print(f"{name}: CPU median {statistics.median(cpus) * 1000:.0f} ms, worst {max(cpus) * 1000:.0f} ms; "
                  f"wall median {statistics.median(walls) * 1000:.0f} ms, worst {max(walls) * 1000:.0f} ms "
                  f"({len(values)} runs)")
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
