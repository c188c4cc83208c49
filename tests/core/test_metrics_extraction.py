"""Extraction accuracy: parts side by side, trigger-only agreement, null at n = 0."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from core.matching.profile import REFERENCE_0_3_1_SEMANTIC
from core.metrics.extraction import (
    EmbedFn,
    ExtractionAccuracy,
    ExtractionPair,
    aggregate,
    directive_f1,
    measure,
    parse_expected_rule,
    score_rule,
    semantic_f1,
    token_f1,
    tokens,
)
from core.stats.wilson import Rate

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


# --- the semantic path, with embeddings whose cosine is chosen by the test -----------------------------
# "zorp blag" and "quux frob" share no token, bigram or alias, so the matcher's lexical part is 0 and
# its semantic blend is 0.2 * cosine (0.3.1's weights 0.5 / 0.3 / 0.2), raised to 0.70 at a cosine >= 0.62.
def _fixed_cosine(first: list[float], second: list[float]) -> EmbedFn:
    """Every call embeds its two texts as these two vectors."""
    return lambda texts: np.array([first, second])


COSINE_0_3 = _fixed_cosine([1.0, 0.0], [0.3, math.sqrt(1 - 0.09)])


def test_a_semantic_profile_blends_the_embedding_cosine_into_the_score() -> None:
    assert semantic_f1("zorp blag", "quux frob", REFERENCE_0_3_1_SEMANTIC, COSINE_0_3) == pytest.approx(0.2 * 0.3)


def test_a_cosine_above_one_from_unnormalised_vectors_counts_as_one() -> None:
    # Clipped: 0.2 * 1 = 0.2, raised to the semantic floor 0.70 (unclipped it would be 0.2 * 4 = 0.8).
    embed = _fixed_cosine([2.0, 0.0], [2.0, 0.0])
    assert semantic_f1("zorp blag", "quux frob", REFERENCE_0_3_1_SEMANTIC, embed) == 0.70


def test_a_semantic_profile_without_a_model_scores_lexically() -> None:
    assert semantic_f1("zorp blag", "quux frob", REFERENCE_0_3_1_SEMANTIC, None) == 0.0
    assert semantic_f1("git push", "git push fails", REFERENCE_0_3_1_SEMANTIC, None) == 1.0


def test_a_lexical_profile_never_calls_the_model() -> None:
    calls: list[list[str]] = []

    def counting(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.array([[1.0, 0.0], [1.0, 0.0]])

    assert semantic_f1("zorp blag", "quux frob", embed=counting) == 0.0
    assert calls == []


def test_a_blank_side_scores_zero_even_when_the_model_finds_them_alike() -> None:
    same = _fixed_cosine([1.0, 0.0], [1.0, 0.0])
    assert semantic_f1("   ", "zorp blag", REFERENCE_0_3_1_SEMANTIC, same) == 0.0
    assert semantic_f1("zorp blag", " ", REFERENCE_0_3_1_SEMANTIC, same) == 0.0


def test_the_metrics_19_stop_words_are_no_tokens() -> None:
    assert tokens("a an the and or to of in on for with it is be then when before after if") == frozenset()
    assert tokens("check if it fails") == {"check", "fails"}


def test_a_single_letter_is_no_token() -> None:
    assert tokens("x y push") == {"push"}


def test_the_aggregate_as_json_names_each_part_in_the_registry_order() -> None:
    # The trigger verbatim (both F1s 1); directive {pull, latest, changes} of {pull, latest, changes, pushing}:
    # P = 1, R = 3/4, F1 = 6/7 = 0.8571.
    pair = ExtractionPair("git push fails with non-fast-forward", "pull latest changes", GIT)
    assert measure([pair, ExtractionPair("t", "d", None)]).to_dict() == {
        "n": 1, "excluded": 1, "token_f1": 1.0, "semantic_f1": 1.0, "directive_f1": 0.8571,
        "token_agree": Rate.of(1, 1).to_dict(), "agreement": Rate.of(1, 1).to_dict(),
    }


def test_an_aggregate_of_scores_alone_excludes_nothing() -> None:
    assert aggregate([score_rule("git push", "pull", GIT)]).excluded == 0
    empty = ExtractionAccuracy(0, None, None, None, Rate.of(0, 0), Rate.of(0, 0))
    assert empty.excluded == 0
