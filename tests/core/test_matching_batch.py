"""The batch path equals the scalar path, pair for pair, exactly."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.matching import (
    BLOCKED_CODES,
    FLOOR_CODES,
    REFERENCE_0_3_1,
    REFERENCE_0_3_1_SEMANTIC,
    VIEW_CODES,
    RuleText,
    TrajectoryViews,
    cosine_matrix,
    decide,
    explain,
    index_views,
    score_matrix,
    semantic_pairs,
)
from core.matching.batch import round_like_python
from core.matching.tables import ALIASES, DISTINCTIVE_PHRASES

WORDS = (
    "git push pull rebase remote rejected non-fast-forward docker build pip install pytest "
    "module import error failed timeout timed out deadline exceeded permission denied "
    "not found kubectl apply crd terraform state lock rate limit 429 the a when to is of "
    "step_1 step 2 ci/lint python/import git/push/temporary branch main feature/login "
    "Updates were REJECTED ModuleNotFoundError npm ERR! flaky intermittent checkout "
    "connection refused ssl certificate dns nxdomain cache miss x y İ Σ e501"
).split()
PHRASES = list(ALIASES) + [p for ps in ALIASES.values() for p in ps] + sorted(DISTINCTIVE_PHRASES)


def _text(rng: random.Random, lo: int, hi: int) -> str:
    parts = []
    for _ in range(rng.randint(lo, hi)):
        parts.append(rng.choice(PHRASES) if rng.random() < 0.25 else rng.choice(WORDS))
    joiner = rng.choice([" ", " ", "  ", "-", ": ", "\n"])
    return joiner.join(parts)


def _field(rng: random.Random, lo: int = 1, hi: int = 6) -> str | None:
    roll = rng.random()
    return None if roll < 0.3 else ("" if roll < 0.35 else _text(rng, lo, hi))


def random_record(rng: random.Random) -> dict[str, object]:
    steps: list[object] = []
    for number in range(rng.randint(0, 3)):
        if rng.random() < 0.1:
            steps.append("junk")
            continue
        step = {"tool": "bash", "input": _field(rng), "output": _field(rng), "error": _field(rng)}
        if rng.random() < 0.8:
            step["step_number"] = number + 1
        steps.append(step)
    return {
        "task": _text(rng, 1, 8),
        "success": rng.random() < 0.3,
        "failure_point": _field(rng, 1, 3),
        "failure_class": rng.choice([None, "git/push/non-fast-forward", "python/import", "ci/lint",
                                     "docker/build", "Selenium/x", "misc"]),
        "domain": rng.choice([None, "git", "python", "devops"]),
        "steps": steps,
    }


def random_rule(rng: random.Random) -> RuleText:
    roll = rng.random()
    trigger = rng.choice(["", "  ", "!!", "step_1", "error", "Error:"]) if roll < 0.1 else _text(rng, 1, 7)
    context = tuple(rng.choice(WORDS + ["devops", "!!!"]) for _ in range(rng.choice([0, 0, 1, 2])))
    signature = rng.choice([None, None, "", "error", "module-not-found", "git push", _text(rng, 1, 3)])
    return RuleText(trigger, context, signature)


def _dataset(seed: int, n_rules: int, n_records: int):
    rng = random.Random(seed)
    rules = [random_rule(rng) for _ in range(n_rules)]
    views = [TrajectoryViews.from_record(random_record(rng)) for _ in range(n_records)]
    cos = np.array([[rng.choice([0.0, 0.0, 0.62, 0.61999, rng.random()]) for _ in views] for _ in rules])
    return rules, views, cos


def _assert_equal(rules, views, profile, cos) -> None:
    batch = score_matrix(rules, views, profile, cos)
    decision_score = batch.decision_score()
    by_threshold = {t: (batch.matched(t), batch.blocked_by(t)) for t in (0.6, 0.7)}
    for i, rule in enumerate(rules):
        for j, view in enumerate(views):
            c = None if cos is None else float(cos[i, j])
            parts = explain(rule, view, profile, c)
            got = (batch.score[i, j], batch.token_f1[i, j], batch.bigram[i, j], batch.blend[i, j],
                   VIEW_CODES[batch.view[i, j]], FLOOR_CODES[batch.floor[i, j]],
                   batch.exact[i, j], batch.signature_hit[i, j])
            want = (parts.score, parts.token_f1, parts.bigram, parts.blend, parts.view, parts.floor,
                    parts.exact, parts.signature_hit)
            assert got == want, (rule, view.haystack)
            for threshold in (0.6, 0.7):
                decision = decide(rule, view, threshold, profile, c)
                matched, blocked = by_threshold[threshold]
                code = BLOCKED_CODES[blocked[i, j]]
                assert matched[i, j] == decision.matched
                expected = None if decision.blocked_by is None else decision.blocked_by.split(":")[0]
                assert code == expected
                assert decision_score[i, j] == decision.score


@pytest.mark.parametrize("seed", [1, 2])
def test_batch_equals_scalar_lexical(seed: int) -> None:
    rules, views, _ = _dataset(seed, 40, 50)
    _assert_equal(rules, views, REFERENCE_0_3_1, None)


def test_batch_equals_scalar_semantic() -> None:
    rules, views, cos = _dataset(3, 30, 40)
    _assert_equal(rules, views, REFERENCE_0_3_1_SEMANTIC, cos)


def test_view_index_is_reusable_across_rule_sets() -> None:
    rules, views, _ = _dataset(4, 10, 20)
    index = index_views(views)
    first = score_matrix(rules[:5], index).score
    assert np.array_equal(first, score_matrix(rules[:5], views).score)
    assert np.array_equal(score_matrix(rules[5:], index).score, score_matrix(rules[5:], views).score)


def test_empty_inputs() -> None:
    rules, views, _ = _dataset(5, 3, 3)
    assert score_matrix([], views).score.shape == (0, 3)
    assert score_matrix(rules, []).score.shape == (3, 0)


def test_semantic_pairs_and_cosine_matrix() -> None:
    record = {"task": "Lint the code", "success": False, "failure_class": "ci/lint",
              "failure_point": "Lint  FAILED!", "steps": [{"step_number": 1, "tool": "b", "error": "E501"}]}
    no_sig = {"task": "Just a task", "success": True, "steps": []}
    views = [TrajectoryViews.from_record(record), TrajectoryViews.from_record(no_sig)]
    triggers, primary, secondary = semantic_pairs([RuleText("When LINT fails!")], views)
    assert triggers == ["when lint fails"]
    assert primary == ["lint failed ci lint e501", "just a task"]
    assert secondary == ["lint failed e501", None]
    t = np.array([[1.0, 0.0]])
    p = np.array([[1.0, 1.0], [-1.0, 0.0]])
    s = np.array([[1.0, 0.0], [0.0, 0.0]])  # a zero row stands for "no secondary"
    assert np.allclose(cosine_matrix(t, p, s), [[1.0, 0.0]])
    assert np.allclose(cosine_matrix(t, p), [[2**-0.5, 0.0]])


@given(st.floats(min_value=0.0, max_value=1.0))
def test_round_like_python(value: float) -> None:
    halves = np.array([value, 0.00005, 0.12345, 0.70005, 0.99995, 0.5])
    assert list(round_like_python(halves, 4)) == [round(float(v), 4) for v in halves]
