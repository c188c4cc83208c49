"""Engine-only semantic replay on a generated scale corpus: CPU time of the scoring, with the
exact pruning of pairs that share nothing with the rule (see docs/replay.md "Exact pruning of pairs").

    python benchmarks/semantic_pruning.py GENERATED_DIR [--rules N] [--trajectories N]

``GENERATED_DIR`` is what ``make_scale_corpus`` wrote (``corpus/``, ``field-test/`` JSONL and
``rules/*.yaml``), e.g. ``/work/scale-data/store-10k/generated``; it is only read. No store
and no model: the embedder is a fixed random projection of hashed content tokens (384
dimensions, seeded), so texts that share words get realistic, related cosines, and most
unrelated pairs a small positive one, as with MiniLM. The run is replayed twice (the first
warms the trajectory-side cache) and the second is reported: CPU seconds of the whole run, of
``score_block`` (the batch matcher) and of the cosines, and pairs per CPU second.

To compare with the code before semantic pruning, run this same file from an export of that
commit (it imports ``core`` from the checkout it sits in)::

    mkdir -p /tmp/before/benchmarks && git archive 74e8950 core | tar -x -C /tmp/before \\
      && cp benchmarks/semantic_pruning.py /tmp/before/benchmarks/ \\
      && python /tmp/before/benchmarks/semantic_pruning.py GENERATED_DIR
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import core.replay.matcher_bridge as mb  # noqa: E402
from core.matching.text import content_tokens  # noqa: E402
from core.replay.engine import replay  # noqa: E402
from core.replay.inputs import rule_from_mapping, trajectory_from_record  # noqa: E402
from core.replay.profiles import WORKBENCH  # noqa: E402
from core.replay.types import ReplayRule, ReplayTrajectory  # noqa: E402

BUCKETS = 1 << 15
DIM = 384


class ProjectionEmbed:
    """Hashed content-token counts times a fixed Gaussian matrix: cosines follow shared words."""

    model_id = "projection-benchmark"

    def __init__(self, seed: int = 7) -> None:
        self.matrix = np.random.default_rng(seed).standard_normal((BUCKETS, DIM)).astype(np.float32)

    def __call__(self, texts: list[str]) -> np.ndarray:
        rows, cols = [], []
        for i, text in enumerate(texts):
            for token in content_tokens(text):
                rows.append(i)
                cols.append(zlib.crc32(token.encode()) % BUCKETS)
        counts = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(texts), BUCKETS))
        return np.asarray(counts @ self.matrix, dtype=np.float32)


def load(root: Path, n_rules: int | None, n_traj: int | None) -> tuple[list[ReplayRule], list[ReplayTrajectory]]:
    import yaml

    trajectories: list[ReplayTrajectory] = []
    for path in sorted(root.rglob("*.jsonl")):
        corpus = path.parent.relative_to(root).as_posix()
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                trajectories.append(trajectory_from_record(len(trajectories), json.loads(line), corpus))
    trajectories = trajectories[:n_traj] if n_traj else trajectories
    by_id = {t.trajectory_id: t for t in reversed(trajectories)}
    rules = []
    for path in sorted((root / "rules").glob("*.yaml"))[:n_rules]:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        source = by_id.get((data.get("provenance") or {}).get("source_trajectory"))
        rules.append(rule_from_mapping(path.stem, data, source))
    return rules, trajectories


def cpu_timed(owner: Any, name: str, spent: list[float]) -> None:
    """Wrap ``owner.name`` so its CPU seconds add up in ``spent[0]`` (measuring only)."""
    inner: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - t0

    setattr(owner, name, wrapper)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("generated", type=Path)
    ap.add_argument("--rules", type=int, default=None)
    ap.add_argument("--trajectories", type=int, default=None)
    args = ap.parse_args()
    rules, trajectories = load(args.generated, args.rules, args.trajectories)
    embed = ProjectionEmbed()
    cache: dict[str, np.ndarray] = {}

    def warm_embed(texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            cache.update(zip(missing, embed(missing)))
        return np.vstack([cache[t] for t in texts]) if texts else np.zeros((0, DIM), dtype=np.float32)

    warm_embed.model_id = embed.model_id  # type: ignore[attr-defined]
    scoring, cosines = [0.0], [0.0]
    cpu_timed(mb, "score_block", scoring)
    cpu_timed(mb.SemanticCosines, "block", cosines)
    print(f"code: {ROOT}  {len(trajectories):,} trajectories x {len(rules):,} rules, workbench profile, semantic")
    for attempt in ("first (embeds, builds the trajectory side)", "second (warm)"):
        scoring[0] = cosines[0] = 0.0
        t0, c0 = time.perf_counter(), time.process_time()
        out = replay(rules, trajectories, WORKBENCH, embed=warm_embed, keep_outcomes=False,
                     on_results=lambda chunk: None)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert out.status == "complete" and out.semantic_state == "on", (out.status, out.semantic_state)
        print(f"  {attempt:44} {wall:8.2f} s wall  {cpu:8.2f} s CPU  score_block {scoring[0]:7.2f} s CPU  "
              f"cosines {cosines[0]:6.2f} s CPU  {out.pairs / max(scoring[0], 1e-9):12,.0f} pairs/s scored  "
              f"{out.pairs / max(cpu, 1e-9):11,.0f} pairs/s whole run")
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
