"""What is embedded (``MatcherProfile.semantic_target``, issue 26): the rule's condition and the
trajectory's error texts as options, the 0.3.1 default untouched (docs/matcher.md, docs/lab.md)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from core.lab.scores import ScoredPairs
from core.lab.settings import Setting
from core.matching.profile import REFERENCE_0_3_1, SemanticTarget
from core.matching.rule import RuleText, condition_of
from core.matching.semantic import semantic_pairs
from core.matching.views import TrajectoryViews
from core.replay.engine import replay
from core.replay.inputs import trajectory_from_record
from core.replay.profile_codec import ProfileFormatError, profile_from_dict, profile_to_dict
from core.replay.types import ReplayRule

RECORD = {"trajectory_id": "G-1", "task": "Ship the release", "success": False, "domain": "git",
          "failure_point": "step_1", "failure_class": "git/push/non-fast-forward",
          "steps": [{"step_number": 1, "tool": "bash", "input": "git push", "error": "Disk is full"},
                    {"step_number": 2, "tool": "bash", "output": "retried"}]}
RULE = RuleText("when the disk is full, free some space")


def test_the_condition_is_the_trigger_before_its_first_comma_normalised() -> None:
    assert condition_of("When git push fails with non-fast-forward, pull first") == \
        "when git push fails with non fast forward"
    assert condition_of("disk full") == "disk full"  # no comma: the whole trigger
    assert condition_of(", then retry") == "then retry"  # nothing before the comma: the whole trigger


def test_condition_vs_errors_embeds_the_condition_against_the_error_text_without_point_or_label() -> None:
    profile = replace(REFERENCE_0_3_1, semantic_target=SemanticTarget.CONDITION_VS_ERRORS)
    triggers, primary, secondary = semantic_pairs([RULE], [TrajectoryViews.from_record(RECORD)], profile)
    assert triggers == ["when the disk is full"]
    assert primary == ["disk is full"]
    assert secondary == [None]


def test_a_trajectory_without_an_error_text_falls_back_to_what_0_3_1_embeds() -> None:
    record = {**RECORD, "steps": [{"step_number": 1, "tool": "bash", "output": "done"}]}
    views = [TrajectoryViews.from_record(record)]
    errors = replace(REFERENCE_0_3_1, semantic_target=SemanticTarget.TRIGGER_VS_ERRORS)
    assert semantic_pairs([RULE], views, errors)[1:] == semantic_pairs([RULE], views, REFERENCE_0_3_1)[1:]


def test_condition_vs_haystack_embeds_the_whole_haystack() -> None:
    profile = replace(REFERENCE_0_3_1, semantic_target=SemanticTarget.CONDITION_VS_HAYSTACK)
    views = TrajectoryViews.from_record(RECORD)
    assert semantic_pairs([RULE], [views], profile)[1:] == ([views.haystack], [None])


class ExactTextEmbed:
    """Equal texts get the same unit vector, different texts orthogonal ones."""

    model_id = "exact-text-test"

    def __init__(self) -> None:
        self.slots: dict[str, int] = {}

    def __call__(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i, self.slots.setdefault(text, len(self.slots) % 64)] = 1.0
        return out


def _disk_full_run() -> tuple[list[ReplayRule], list]:  # type: ignore[type-arg]
    records = [{**RECORD, "trajectory_id": f"G-{i}", "task": f"Ship release number {i} of the product line"}
               for i in range(4)]
    trajectories = [trajectory_from_record(i, r, "golden") for i, r in enumerate(records)]
    return [ReplayRule(key="disk", trigger="Disk is full, free some space")], trajectories


def test_replay_itself_runs_the_option_the_condition_meets_the_error_where_the_default_does_not() -> None:
    rules, trajectories = _disk_full_run()
    default = Setting(base="reference-0.3.1", threshold=0.6).profile()
    condition = Setting(base="reference-0.3.1", threshold=0.6, semantic_target="condition_vs_errors").profile()
    assert replay(rules, trajectories, default, embed=ExactTextEmbed()).results[0].prevented == ()
    assert replay(rules, trajectories, condition, embed=ExactTextEmbed()).results[0].prevented == (0, 1, 2, 3)


def test_pair_scores_made_for_one_target_refuse_a_profile_that_embeds_another() -> None:
    rules, trajectories = _disk_full_run()
    scored = ScoredPairs.build(rules, trajectories, embed=ExactTextEmbed())
    with pytest.raises(ValueError, match="condition_vs_errors"):
        scored.decide(Setting(semantic_target="condition_vs_errors").profile())


def test_the_default_target_keeps_earlier_setting_names_and_pair_score_keys() -> None:
    rules, trajectories = _disk_full_run()
    embed = ExactTextEmbed()
    default = ScoredPairs.build(rules, trajectories, embed=embed)
    explicit = ScoredPairs.build(rules, trajectories, embed=embed, semantic_target=SemanticTarget.SIGNATURE_THEN_CLASSFREE)
    other = ScoredPairs.build(rules, trajectories, embed=embed, semantic_target=SemanticTarget.CONDITION_VS_ERRORS)
    assert default.key == explicit.key != other.key
    assert "embed=" not in Setting().name and "embed=haystack" in Setting(semantic_target="haystack").name


def test_a_profile_that_embeds_the_condition_round_trips_through_the_stored_profile_json() -> None:
    profile = Setting(read_failure_class=False, failure_gate_fallback=True,
                      semantic_target="condition_vs_haystack").profile("all-MiniLM-L6-v2")
    back = profile_from_dict(json.loads(json.dumps(profile_to_dict(profile))))
    assert back.matcher == profile.matcher
    assert back.matcher.semantic_target is SemanticTarget.CONDITION_VS_HAYSTACK


def test_a_stored_profile_naming_an_unknown_target_is_refused_in_one_line() -> None:
    data = profile_to_dict(Setting().profile())
    data["matcher"]["semantic_target"] = "telepathy"
    with pytest.raises(ProfileFormatError, match="semantic_target.*telepathy"):
        profile_from_dict(data)
