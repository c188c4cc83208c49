"""Floors, views and the 0.3.1 quirks the reference profile reproduces (§4.4)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.matching import (
    REFERENCE_0_3_1,
    REFERENCE_0_3_1_SEMANTIC,
    AliasPhraseMode,
    RuleText,
    TrajectoryViews,
    explain,
)
from core.matching.rule import prepare_rule


def _views(task: str, error: str | None = None, **fields: object) -> TrajectoryViews:
    step = {"step_number": 1, "tool": "bash", "input": "run", "error": error}
    return TrajectoryViews.from_record({"task": task, "success": False, "steps": [step], **fields})


TIMEOUT_VIEWS = _views(
    "Connection timeout to database", "timed out after 30s; database connection pool exhausted"
)


def test_alias_phrase_floor_sets_the_score_and_can_lower_it() -> None:
    parts = explain(RuleText("database connection timeout"), TIMEOUT_VIEWS)
    assert parts.blend > 0.70
    assert parts.score == 0.70 and parts.floor == "alias_phrase"
    assert parts.alias_keys == ("timeout",)


def test_alias_phrase_raise_mode_keeps_a_higher_blend() -> None:
    profile = replace(REFERENCE_0_3_1, name="raise", alias_phrase_mode=AliasPhraseMode.RAISE)
    parts = explain(RuleText("database connection timeout"), TIMEOUT_VIEWS, profile)
    assert parts.score == round(parts.blend, 4) and parts.floor is None


def test_alias_token_hit_raises_a_low_score_to_060() -> None:
    parts = explain(RuleText("push rejected by server"), _views("Port forward to the cluster"))
    assert parts.blend < 0.6 and parts.score == 0.60 and parts.floor == "alias_token"


def test_hyphenated_alias_key_never_fires_because_the_trigger_is_normalised() -> None:
    assert prepare_rule(RuleText("non-fast-forward push")).alias_keys == ("non fast forward",)


def test_mixed_case_distinctive_phrase_never_fires() -> None:
    views = _views("install deps", "npm ERR! code ELIFECYCLE")
    parts = explain(RuleText("npm ERR while building"), views)
    assert prepare_rule(RuleText("npm ERR while building")).distinctive == ()
    assert parts.floor is None and parts.score < 0.70


def test_distinctive_phrase_needs_eight_normalised_characters() -> None:
    views = _views("deploy", "Permission denied (publickey)")
    assert explain(RuleText("ssh permission denied on deploy key"), views).floor == "distinctive_phrase"
    flaky = _views("a flaky test")
    assert explain(RuleText("flaky x"), flaky).score == 0.2  # "flaky x": 7 characters
    assert explain(RuleText("flaky xy"), flaky).floor == "distinctive_phrase"


def test_substring_match_has_no_word_boundaries() -> None:
    parts = explain(RuleText("rror"), _views("x", "ModuleNotFoundError: no module"))
    assert parts.score == 1.0 and parts.exact and parts.view == "exact"


def test_exact_match_in_signature_only() -> None:
    parts = explain(RuleText("step_1"), _views("x", None, failure_point="step_1"))
    assert parts.score == 1.0 and parts.view == "exact_signature"


def test_structured_signature_hit_floors_at_070_unless_generic() -> None:
    views = _views("x", "boom", failure_class="python/import/module-not-found")
    hit = explain(RuleText("unrelated words here", signature="module not-found"), views)
    assert hit.score == 0.70 and hit.signature_hit and hit.floor == "signature"
    reordered = explain(RuleText("unrelated words here", signature="found module"), views)
    assert reordered.signature_hit
    assert not explain(RuleText("unrelated words here", signature="Error:"), views).signature_hit


def test_token_precision_can_exceed_one_because_alias_tokens_double_count() -> None:
    # "timeout" is both a content token and, through the "times out" key, an alias token.
    parts = explain(RuleText("job times out timeout"), _views("timeout"))
    assert parts.token_f1 > 0 and parts.view in ("haystack", "signature")


class TestSemantic:
    views = _views("unrelated task text", "the gateway stopped answering")

    def test_cosine_above_floor_raises_to_070(self) -> None:
        parts = explain(RuleText("service went silent"), self.views, REFERENCE_0_3_1_SEMANTIC, 0.65)
        assert parts.cosine == 0.65 and parts.score == 0.70 and parts.floor == "semantic"
        assert parts.blend == pytest.approx(0.2 * 0.65)

    def test_zero_cosine_falls_back_to_lexical_weights(self) -> None:
        rule = RuleText("gateway stopped responding")
        lexical = explain(rule, self.views)
        measured_zero = explain(rule, self.views, REFERENCE_0_3_1_SEMANTIC, 0.0)
        assert measured_zero.cosine == 0.0 and measured_zero.score == lexical.score

    def test_unmeasured_cosine_is_none_not_zero(self) -> None:
        assert explain(RuleText("x y"), self.views, REFERENCE_0_3_1_SEMANTIC, None).cosine is None
        assert explain(RuleText("x y"), self.views, REFERENCE_0_3_1, 0.9).cosine is None

    def test_semantic_blend_is_not_monotone(self) -> None:
        rule = RuleText("gateway stopped responding")
        lexical = explain(rule, self.views).score
        assert explain(rule, self.views, REFERENCE_0_3_1_SEMANTIC, 0.05).score < lexical


def test_not_found_alias_key_lists_itself_so_any_not_found_floors() -> None:
    views = TrajectoryViews.from_record(
        {"task": "t", "success": False, "steps": [{"tool": "b", "input": "grep 'not found' log"}]}
    )
    parts = explain(RuleText("service account not found here"), views)
    assert parts.score == 0.70 and parts.floor == "alias_phrase" and "not found" in parts.alias_keys


def test_signature_generic_check_runs_after_stemming() -> None:
    views = _views("t", "warning: deprecated", failure_class="ci/lint")
    assert explain(RuleText("zzz qqq", signature="warning"), views).signature_hit  # -> "warn"
    assert not explain(RuleText("zzz qqq", signature="errors!"), views).signature_hit  # -> "error"
