"""replay(): buckets, verdicts, pools, nulls and the run snapshot on hand-built records."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from core.replay.engine import replay
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH
from core.replay.types import ReplayRule, ReplayTrajectory


def rec(tid: str, task: str, success: bool, fclass: str | None = None, error: str | None = None,
        domain: str | None = None, output: str | None = None) -> dict[str, Any]:
    return {
        "trajectory_id": tid, "timestamp": "2026-01-01T00:00:00Z", "task": task, "success": success,
        "failure_class": fclass, "domain": domain,
        "steps": [{"step_number": 1, "tool": "bash", "input": None, "output": output, "error": error}],
    }


def trajs(*records: dict[str, Any], corpus: str = "demo/failures") -> list[ReplayTrajectory]:
    return [
        ReplayTrajectory(i, r["trajectory_id"], corpus, r.get("domain"), r["success"], r.get("failure_class"), r)
        for i, r in enumerate(records)
    ]


def rule(trigger: str, **kw: Any) -> ReplayRule:
    return ReplayRule(key=kw.pop("key", "r1"), trigger=trigger, **kw)


LEX = REFERENCE_0_3_1.with_(threshold=0.6)
WB = WORKBENCH.with_(threshold=0.6, semantic=False)


def by_id(result: Any, ts: list[ReplayTrajectory]) -> dict[str, list[str]]:
    names = {t.key: t.trajectory_id for t in ts}
    return {b: sorted(names[k] for k in getattr(result, b)) for b in ("prevented", "broken", "near_miss", "missed")}


def corpus_a() -> list[ReplayTrajectory]:
    return trajs(
        rec("F1", "push branch", False, "git/push/non-fast-forward", "disk quota exceeded on volume data", "git"),
        rec("F2", "sync repo", False, "git/push/non-fast-forward", "disk quota exceeded on volume logs", "git"),
        rec("F3", "build image", False, "docker/build", "layer cache corrupted", "docker"),
        rec("S1", "copy files", True, None, None, "git", output="disk quota exceeded on volume data was fixed"),
        rec("S2", "retry copy after disk quota exceeded on volume", True, None, None, "git"),
        rec("S3", "list files", True, None, None, "git", output="all good"),
    )


def test_each_bucket_and_missed() -> None:
    ts = corpus_a()
    out = replay([rule("disk quota exceeded on volume")], ts, LEX)
    r = out.results[0]
    assert by_id(r, ts) == {
        "prevented": ["F1", "F2"], "broken": ["S1"], "near_miss": ["S2"], "missed": ["F3"],
    }
    buckets = {ts[o.trajectory_key].trajectory_id: o.bucket for o in r.outcomes}
    assert buckets == {"F1": "prevented", "F2": "prevented", "S1": "broken", "S2": "near_miss", "F3": "missed"}
    assert all(o.margin == round(o.score - o.threshold, 6) for o in r.outcomes)
    assert (r.verdict, r.reason) == ("pass", "pass")
    assert r.precision == 2 / 3 and r.recall == 2 / 3


def test_fail_blocked_by_broken_and_margin() -> None:
    ts = trajs(
        rec("F1", "t", False, "x/y", "quota exceeded alpha"),
        rec("S1", "quota exceeded alpha", True), rec("S2", "quota exceeded alpha beta", True),
        # shares one of three content tokens: below threshold + margin -> not broken
        rec("S3", "quota something", True),
    )
    r = replay([rule("quota exceeded alpha")], ts, LEX).results[0]
    assert by_id(r, ts)["broken"] == ["S1", "S2"]
    assert (r.verdict, r.reason) == ("fail", "blocked_by_broken")
    assert r.attribution is None


def test_margin_exact_boundary() -> None:
    # score exactly 0.70 at threshold 0.60: broken (0.6 + 0.1 == 0.7); at 0.65 it is not.
    # (the distinctive-phrase floor sets exactly 0.70)
    ts = trajs(rec("F1", "t", False, "x/y", "permission denied writing cache"),
               rec("S1", "chmod said permission denied once", True), rec("S2", "t", True))
    for thr, expect in ((0.6, ["S1"]), (0.65, [])):
        r = replay([rule("permission denied writing cache")], ts, REFERENCE_0_3_1.with_(threshold=thr)).results[0]
        scores = {ts[o.trajectory_key].trajectory_id: (o.score, o.floor) for o in r.outcomes}
        assert by_id(r, ts)["broken"] == expect, scores
        assert thr == 0.65 or scores["S1"] == (0.7, "distinctive_phrase")


def test_no_signal_and_matcher_gap() -> None:
    ts = corpus_a()
    r = replay([rule("completely unrelated zebra stampede")], ts, LEX).results[0]
    assert (r.verdict, r.reason, r.attribution) == ("inconclusive", "no_signal", "matcher_gap")
    assert r.precision == 0.0 and r.recall == 0.0  # 0.3.1 writes 0 for 0/0
    wb = replay([rule("completely unrelated zebra stampede")], ts, WB).results[0]
    assert wb.precision is None and wb.precision_ci is None  # null is not 0.0
    assert wb.recall == 0.0 and wb.recall_ci is not None and wb.recall_ci[1] < 0.75


def test_blocked_by_near_miss_and_broad_trigger() -> None:
    ts = trajs(rec("F1", "t", False, "a/b", "quota exceeded alpha beta"),
               *[rec(f"S{i}", f"retry quota exceeded alpha beta {i}", True) for i in range(3)])
    r = replay([rule("quota exceeded alpha beta")], ts, LEX).results[0]
    assert (r.verdict, r.reason, r.attribution) == ("inconclusive", "blocked_by_near_miss", "ambiguous_evidence")
    r2 = replay([rule("quota alpha")], ts, LEX).results[0]
    assert r2.attribution == "broad_trigger"


def test_recovery_class_segment() -> None:
    ts = trajs(rec("F1", "t", False, "a/b", "alpha beta gamma"),
               rec("S1", "alpha beta gamma", True, "net/flaky"), rec("S2", "alpha beta gamma", True, "net/unflaky"),
               rec("S3", "t", True))
    r = replay([rule("alpha beta gamma")], ts, LEX).results[0]
    assert by_id(r, ts)["near_miss"] == ["S1"] and by_id(r, ts)["broken"] == ["S2"]


def test_min_sample() -> None:
    ts = trajs(rec("F1", "t", False, "a/b", "alpha beta gamma"), rec("F2", "u", False, "a/b", "alpha beta gamma"))
    r = replay([rule("alpha beta gamma")], ts, LEX).results[0]
    assert r.verdict == "inconclusive" and r.reason == "min_sample: 2 < 3; computed=pass"
    assert r.computed_verdict == "pass" and r.attribution == "corpus_mismatch"


def test_domain_gate_failure_and_success() -> None:
    ts = trajs(
        rec("F1", "t", False, "git/push", "docker daemon not responding here"),
        rec("F2", "t", False, "docker/run", "docker daemon not responding here"),
        rec("S1", "docker daemon not responding here", True, "git/status"),
        rec("S2", "docker daemon not responding here", True, None, domain="git"),
    )
    r = replay([rule("docker daemon not responding")], ts, LEX).results[0]
    assert by_id(r, ts)["prevented"] == ["F2"]
    assert by_id(r, ts)["broken"] == ["S2"]  # 0.3.1 reads only failure_class
    wb = replay([rule("docker daemon not responding")], ts, WB).results[0]
    assert by_id(wb, ts)["broken"] == []  # Workbench falls back to the domain field


def test_partial_context_near_miss() -> None:
    ts = trajs(rec("F1", "deploy on prod", False, "ci/x", "alpha beta gamma"),
               rec("F2", "deploy on staging", False, "ci/x", "alpha beta gamma"),
               rec("F3", "t", False, "ci/x", "alpha beta gamma"))
    r = replay([rule("alpha beta gamma", context=("deploy", "prod"))], ts, LEX).results[0]
    assert by_id(r, ts) == {"prevented": ["F1"], "broken": [], "near_miss": ["F2"], "missed": ["F2", "F3"]}


def test_prefilter_recorded() -> None:
    r = replay([rule("error")], corpus_a(), LEX).results[0]
    assert r.prefilter == "generic" and r.prevented == ()


def test_pools_recorded_and_self_exclusion() -> None:
    ts = corpus_a()
    src = ts[0]
    rr = rule("disk quota exceeded on volume", source_trajectory_id="F1", source_key=0, domain="git",
              corpus="demo/failures/positive")
    ref = replay([rr], ts, REFERENCE_0_3_1).results[0]
    assert ref.threshold == 0.6
    assert src.key not in ref.prevented
    assert ref.recall_pool.kind == "domain" and ref.recall_pool.size == 4 and ref.recall_pool.failures == 1
    assert ref.precision_pool == ref.recall_pool
    wb = replay([rr], ts, WB).results[0]
    assert wb.recall_pool.kind == "domain" and wb.recall_pool.size == 4
    assert wb.precision_pool.kind == "all" and wb.precision_pool.size == 5
    assert by_id(wb, ts)["missed"] == []


def test_semantic_unavailable_is_honest() -> None:
    ts = corpus_a()
    out = replay([rule("disk quota exceeded on volume")], ts, WORKBENCH.with_(threshold=0.6))
    assert out.semantic_state == "unavailable"
    assert out.config["semantic"] == {"requested": True, "state": "unavailable", "model_id": None}
    assert all(o.cosine is None for o in out.results[0].outcomes)
    assert replay([rule("x y")], ts, LEX).semantic_state == "off"


def _constant_embed(texts: list[str]) -> np.ndarray:
    """An embedder that finds every text similar: topic similarity, nothing more."""
    return np.ones((len(texts), 4), dtype=np.float32) / 2.0


def test_topic_similarity_is_not_interference() -> None:
    ts = trajs(rec("F1", "t", False, "git/push", "rejected non fast forward"),
               rec("S1", "git status shows clean tree", True, None, None, "git"),
               rec("S2", "list branches", True), rec("S3", "git log", True))
    ref = replay([rule("git push fails with non-fast-forward")], ts, REFERENCE_0_3_1.with_(threshold=0.6, semantic=True),
                 embed=_constant_embed)
    assert ref.semantic_state == "on"
    assert by_id(ref.results[0], ts)["broken"] == ["S1", "S2", "S3"]  # the semantic floor lifts every pair to 0.70
    wb = replay([rule("git push fails with non-fast-forward")], ts, WORKBENCH.with_(threshold=0.6), embed=_constant_embed)
    assert by_id(wb.results[0], ts)["broken"] == []
    assert all(o.cosine == 1.0 for o in wb.results[0].outcomes)


def test_config_snapshot() -> None:
    ts = corpus_a()
    a = replay([rule("disk quota exceeded")], ts, WB)
    b = replay([rule("disk quota exceeded")], ts, WB)
    json.dumps(a.config)
    assert a.config_hash == b.config_hash
    assert a.config["profile"] == "workbench" and a.config["semantic"]["state"] == "off"
    ts2 = corpus_a()
    ts2[0].record["expected_rule"] = "label changed"
    assert replay([rule("disk quota exceeded")], ts2, WB).config_hash != a.config_hash
    assert replay([rule("disk quota exceeded")], ts, LEX).config_hash != a.config_hash


def test_empty_inputs() -> None:
    out = replay([], corpus_a(), WB)
    assert out.status == "complete" and out.results == [] and out.pairs == 0
    out = replay([rule("x y z")], [], WB)
    assert out.results[0].verdict == "inconclusive" and out.results[0].precision is None


def test_f001_lexical_shared_corpus(shared_corpus: Any) -> None:
    """F-001 lexically: neither profile counts S-022 / S-023 / NM-044 as broken (the 0.10
    margin already holds there); the semantic case is in tests/external."""
    import json as _json
    from pathlib import Path

    root = Path(shared_corpus)
    records = []
    for path in sorted(root.rglob("*.jsonl")):
        corpus = path.parent.relative_to(root).as_posix()
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                records.append((corpus, _json.loads(line)))
    ts = [ReplayTrajectory(i, r.get("trajectory_id") or r.get("id"), c, r.get("domain"), bool(r["success"]),
                           r.get("failure_class"), r) for i, (c, r) in enumerate(records)]
    src = next(t for t in ts if t.trajectory_id.startswith("F-001"))
    rr = ReplayRule("F-001", src.record["expected_rule"], source_trajectory_id=src.trajectory_id,
                    source_key=src.key, domain=src.domain, corpus=src.corpus)
    for prof in (REFERENCE_0_3_1, WORKBENCH.with_(semantic=False)):
        r = replay([rr], ts, prof).results[0]
        broken = [ts[k].trajectory_id for k in r.broken]
        assert not any(b.startswith(("S-022", "S-023", "NM-044")) for b in broken), (prof.name, broken)
        assert r.verdict == "pass"
