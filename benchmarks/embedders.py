"""Embedders side by side: throughput, cosine differences, and every decision that moves.

    PYTHONPATH=. python benchmarks/embedders.py [CORPUS_ROOT] [--kinds torch,onnx,onnx-int8]
        [--repeat 2] [--onnx-dir DIR] [--json OUT]

Texts: the unique texts a semantic replay of the shared corpus embeds (the corpus's rule YAMLs
plus every non-empty ``expected_rule`` as a candidate, as benchmarks/replay_vs_reference.py
loads them), recorded from one replay. Each embedder embeds exactly those texts through
``CachedEmbedder`` without a store (the path a cold replay takes: shortest first, 16 texts per
model call), in the same process, ``--repeat`` times in turn (torch, onnx, int8, torch, ...), so
load drifts over all of them alike; the best round counts. Figures: texts/s on the wall clock
and per CPU second (``time.process_time``: every thread of this process), and the ratio to torch.

Cosines: ``|cos_k(a, b) - cos_torch(a, b)|`` over every pair of recorded texts (a superset of
the pairs replay scores), max and mean; and ``1 - cos(v_k, v_torch)`` per text.

Decisions: ``workbench`` and ``reference-0.3.1`` with semantic on, replayed with each
embedder's vectors; per rule the verdict, reason and the prevented / broken / near-miss /
missed sets are compared with torch's, and every difference is printed with the pair's cosine
under both embedders, its score and the threshold.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from replay_vs_reference import DEFAULT_CORPUS, load  # noqa: E402

from core.embeddings import CachedEmbedder, open_embedder  # noqa: E402
from core.replay.engine import replay  # noqa: E402
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH, ReplayProfile  # noqa: E402
from core.replay.types import ReplayOutput, RuleResult  # noqa: E402

BUCKETS = ("prevented", "broken", "near_miss", "missed")


class Recorder:
    """An embed function that keeps the texts replay asks for (torch vectors, memory only)."""

    def __init__(self, inner: CachedEmbedder) -> None:
        self.inner = inner
        self.texts: dict[str, None] = {}

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.update(dict.fromkeys(texts))
        return self.inner(texts)


def throughput(model: Any, texts: list[str]) -> tuple[float, float, np.ndarray]:
    """(wall s, CPU s, vectors in ``texts`` order) for one cold pass through ``CachedEmbedder``."""
    embed = CachedEmbedder(model, None)
    cpu, wall = time.process_time(), time.perf_counter()
    vectors = embed(texts)
    return time.perf_counter() - wall, time.process_time() - cpu, vectors


def decisions(output: ReplayOutput) -> dict[str, RuleResult]:
    return {r.rule_key: r for r in output.results}


def bucket_of(result: RuleResult) -> dict[int, str]:
    return {key: bucket for bucket in BUCKETS for key in getattr(result, bucket)}


def moved(base: dict[str, RuleResult], other: dict[str, RuleResult]) -> list[dict[str, Any]]:
    """Every rule whose verdict, reason or any pair's bucket differs, with those pairs."""
    out: list[dict[str, Any]] = []
    for key, a in base.items():
        b = other[key]
        change: dict[str, Any] = {}
        if (a.verdict, a.reason) != (b.verdict, b.reason):
            change["verdict"] = f"{a.verdict} ({a.reason}) -> {b.verdict} ({b.reason})"
        buckets_a, buckets_b = bucket_of(a), bucket_of(b)
        pairs_a = {o.trajectory_key: o for o in a.outcomes}
        pairs_b = {o.trajectory_key: o for o in b.outcomes}
        for trajectory in sorted(set(buckets_a) | set(buckets_b)):
            was, now = buckets_a.get(trajectory, "-"), buckets_b.get(trajectory, "-")
            if was == now:
                continue
            pa, pb = pairs_a.get(trajectory), pairs_b.get(trajectory)
            change.setdefault("pairs", []).append(
                f"trajectory {trajectory}: {was} -> {now}; cos {_num(pa and pa.cosine)} -> {_num(pb and pb.cosine)}, "
                f"score {_num(pa and pa.score)} -> {_num(pb and pb.score)}, floor {pa and pa.floor} -> "
                f"{pb and pb.floor}, threshold {a.threshold}"
            )
        if change:
            out.append({"rule": key, **change})
    return out


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def pair_cosine_delta(reference: np.ndarray, other: np.ndarray) -> tuple[float, float]:
    """max and mean |Δcos| over every pair of distinct texts (upper triangle)."""
    upper = np.triu_indices(reference.shape[0], k=1)
    delta = np.abs((other @ other.T)[upper] - (reference @ reference.T)[upper])
    return float(delta.max()), float(delta.mean())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--kinds", default="torch,onnx,onnx-int8")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--onnx-dir", default=None, help="where the ONNX files are built (default: the setting)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures and differences here")
    args = parser.parse_args()
    if args.onnx_dir:
        os.environ["CAUTERULE_WORKBENCH_ONNX_DIR"] = args.onnx_dir
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    if kinds[0] != "torch":
        kinds.insert(0, "torch")

    trajs, _refs, rules, _cands = load(args.corpus)
    print(f"corpus {args.corpus}: {len(rules)} rules x {len(trajs)} trajectories; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    models: dict[str, Any] = {}
    for kind in kinds:
        cpu, wall = time.process_time(), time.perf_counter()
        models[kind] = open_embedder(kind)
        models[kind].load()  # builds the ONNX file on first use
        print(f"  {kind:<10} loaded (and built if new) in {time.perf_counter() - wall:6.1f} s wall, "
              f"{time.process_time() - cpu:6.1f} s CPU; model id {models[kind].model_id}")

    recorder = Recorder(CachedEmbedder(models["torch"], None))
    replay(rules, trajs, WORKBENCH, embed=recorder)
    replay(rules, trajs, REFERENCE_0_3_1.with_(semantic=True), embed=recorder)
    texts = list(recorder.texts)
    print(f"{len(texts)} unique texts embedded by a semantic replay")
    for kind in kinds:  # warm-up: first-call allocations are not throughput
        models[kind].encode(texts[:16])

    best: dict[str, tuple[float, float]] = {}
    vectors: dict[str, np.ndarray] = {}
    for round_ in range(args.repeat):
        for kind in kinds:
            wall, cpu, vectors[kind] = throughput(models[kind], texts)
            old = best.get(kind)
            best[kind] = (min(wall, old[0]), min(cpu, old[1])) if old else (wall, cpu)
            print(f"  round {round_ + 1} {kind:<10} {wall:7.2f} s wall {cpu:7.2f} s CPU")
    # Where the torch path's time goes: the same model asked once for every text (its own
    # length sort, batches of 64) instead of 16 texts per call as CachedEmbedder asks it.
    cpu, wall = time.process_time(), time.perf_counter()
    models["torch"].encode(texts)
    one_call = (time.perf_counter() - wall, time.process_time() - cpu)
    print(f"  torch, one call for all texts: {one_call[0]:7.2f} s wall {one_call[1]:7.2f} s CPU")
    report: dict[str, Any] = {"texts": len(texts), "load": os.getloadavg(), "embedders": {},
                              "torch_one_call": {"wall": one_call[0], "cpu": one_call[1]}}
    print(f"\n{'embedder':<10} {'texts/s wall':>13} {'texts/s CPU':>12} {'× torch wall':>13} {'× torch CPU':>12}"
          f" {'max|Δcos| pairs':>16} {'mean|Δcos|':>11} {'max 1-cos self':>15}")
    t_wall, t_cpu = best["torch"]
    for kind in kinds:
        wall, cpu = best[kind]
        dmax, dmean = pair_cosine_delta(vectors["torch"], vectors[kind])
        self_cos = float(np.max(1.0 - np.sum(vectors["torch"] * vectors[kind], axis=1)))
        print(f"{kind:<10} {len(texts) / wall:13.1f} {len(texts) / cpu:12.1f} {t_wall / wall:13.2f} "
              f"{t_cpu / cpu:12.2f} {dmax:16.2e} {dmean:11.2e} {self_cos:15.2e}")
        report["embedders"][kind] = {"texts_per_s_wall": len(texts) / wall, "texts_per_s_cpu": len(texts) / cpu,
                                     "ratio_wall": t_wall / wall, "ratio_cpu": t_cpu / cpu,
                                     "max_abs_dcos": dmax, "mean_abs_dcos": dmean, "max_self_1_minus_cos": self_cos}

    profiles: list[ReplayProfile] = [WORKBENCH, REFERENCE_0_3_1.with_(semantic=True)]
    report["moved"] = {}
    for profile in profiles:
        label = profile.name + ("" if profile is WORKBENCH else "+semantic")
        base = decisions(replay(rules, trajs, profile, embed=CachedEmbedder(models["torch"], None)))
        for kind in kinds[1:]:
            diff = moved(base, decisions(replay(rules, trajs, profile, embed=CachedEmbedder(models[kind], None))))
            report["moved"][f"{label} {kind}"] = diff
            print(f"\n{label}, {kind} against torch: {len(diff)} of {len(base)} rules differ")
            verdicts = sum("verdict" in item for item in diff)
            pairs = sum(len(item.get("pairs", [])) for item in diff)
            print(f"  verdicts moved: {verdicts}; pairs that changed bucket: {pairs}")
            for item in diff:
                print(f"  rule {item['rule']}: {item.get('verdict', 'verdict unchanged')}")
                for pair in item.get("pairs", []):
                    print(f"    {pair}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
