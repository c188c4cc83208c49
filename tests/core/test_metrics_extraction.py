"""Extraction accuracy: parts side by side, trigger-only agreement, null at n = 0."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from core.metrics.extraction import (
    ExtractionPair,
    aggregate,
    directive_f1,
    measure,
    parse_expected_rule,
    score_rule,
    semantic_f1,
    token_f1,
)

GIT = "when git push fails with non-fast-forward, pull latest changes before pushing"


def test_parse_expected_rule() -> None:
    assert parse_expected_rule(GIT) == (
        "git push fails with non-fast-forward",
        "pull latest changes before pushing",
    )
    assert parse_expected_rule("  When disk is full ") == ("disk is full", "")
    # Only the first comma splits (a known limit of the 0.3.1 format).
    assert parse_expected_rule("when a, b fails, do c") == ("a", "b fails, do c")


def test_token_f1_hand_values() -> None:
    # {git, push, fails, non, fast, forward} vs {git, push, rejected}: overlap 2 -> 2*(2/6*2/3)/(2/6+2/3)
    assert token_f1("git push fails with non-fast-forward", "git push rejected") == pytest.approx(
        2 * (2 / 6) * (2 / 3) / (2 / 6 + 2 / 3)
    )
    assert token_f1("", "x y") == 0.0
    assert directive_f1("anything", "") == 0.0


def test_semantic_f1_containment_is_one() -> None:
    assert semantic_f1("git push", "git push fails with non-fast-forward") == 1.0
    assert semantic_f1("", "git push") == 0.0


def test_correct_reworded_directive_does_not_lower_agreement() -> None:
    verbatim = score_rule("git push fails with non-fast-forward", "pull latest changes before pushing", GIT)
    reworded = score_rule("git push fails with non-fast-forward", "run a rebase or fetch-merge first", GIT)
    assert reworded.directive_f1 < 0.3 < verbatim.directive_f1
    assert verbatim.agreement and reworded.agreement
    assert reworded.semantic_f1 == verbatim.semantic_f1


def test_n_zero_is_null_not_zero() -> None:
    acc = measure([ExtractionPair("git push", "pull", None), ExtractionPair("x", "y", "")])
    assert acc.n == 0 and acc.excluded == 2
    assert acc.token_f1 is None and acc.semantic_f1 is None and acc.directive_f1 is None
    assert acc.agreement.value is None and acc.agreement.ci is None
    d = acc.to_dict()
    assert d["semantic_f1"] is None and d["agreement"]["value"] is None  # type: ignore[index]


def test_aggregate_rates_carry_denominator_and_ci() -> None:
    scores = [score_rule("git push fails with non-fast-forward", "pull first", GIT)] * 3 + [
        score_rule("disk quota exceeded on volume", "free space", GIT)
    ]
    acc = aggregate(scores)
    assert acc.n == 4
    assert acc.agreement.k == 3 and acc.agreement.n == 4
    assert acc.agreement.ci is not None and acc.agreement.ci[0] < 0.75 < acc.agreement.ci[1]


def _examples(root: Path) -> list[tuple[str, str, str]]:
    expected: list[str] = []
    for path in sorted(root.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rule = json.loads(line).get("expected_rule")
                if rule:
                    expected.append(rule)
    extracted: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("when"), dict):
            extracted.append((str(data["when"]["trigger"]), str(data.get("do", {}).get("directive", ""))))
    for rule in expected[:40]:
        trig, direc = parse_expected_rule(rule)
        extracted.append((trig, direc))
        extracted.append((trig.replace("fails", "failed").upper(), "do the fix"))
    pairs = []
    for i, rule in enumerate(expected):
        for j in range(0, len(extracted), 7):
            t, d = extracted[(i + j) % len(extracted)]
            pairs.append((t, d, rule))
    return pairs


@pytest.mark.external
def test_matches_reference_oracle(shared_corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ref = pytest.importorskip("cauterule.measurement.extraction_accuracy")
    from cauterule.replay import embeddings

    monkeypatch.delenv("CAUTERULE_SEMANTIC_MATCHING", raising=False)
    embeddings.reset_embedder()
    pairs = _examples(shared_corpus)
    assert len(pairs) > 500
    for trigger, directive, expected in pairs:
        ours = score_rule(trigger, directive, expected)
        theirs = ref.score_rule(trigger, directive, expected)
        assert math.isclose(ours.token_f1, theirs.token_f1, abs_tol=1e-12), (trigger, expected)
        assert ours.semantic_f1 == theirs.semantic_f1, (trigger, expected)
        assert math.isclose(ours.directive_f1, theirs.directive_f1, abs_tol=1e-12)
        assert ours.token_agree == theirs.token_agreement
        assert ours.agreement == theirs.agreement
    records = [ref.ExtractionRecord(t, d, e) for t, d, e in pairs]
    agg_ref = ref.measure_extraction_accuracy(records).to_dict()
    agg = measure([ExtractionPair(t, d, e) for t, d, e in pairs]).to_dict()
    for key in ("n", "token_f1", "semantic_f1", "directive_f1"):
        assert agg[key] == agg_ref[key], key
    assert agg["agreement"]["value"] == agg_ref["agreement"]  # type: ignore[index]
    assert agg["token_agree"]["value"] == agg_ref["token_agreement"]  # type: ignore[index]
