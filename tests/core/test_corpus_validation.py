"""validate_trajectory: field paths, readable reasons, and the reference model's acceptance."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.corpus.validation import FieldProblem, validate_trajectory

GOOD: dict[str, Any] = {
    "trajectory_id": "T-1",
    "timestamp": "2026-09-07T23:16:12Z",
    "task": "push the branch",
    "steps": [{"step_number": 1, "tool": "bash", "input": "git push", "output": None, "error": "rejected"}],
    "success": False,
    "quality_label": "clear",
    "severity": "high",
    "tags": ["git"],
    "expected_outcome": "should_extract",
}


def with_(**changes: Any) -> dict[str, Any]:
    record = copy.deepcopy(GOOD)
    for key, value in changes.items():
        if value is _DELETE:
            record.pop(key, None)
        else:
            record[key] = value
    return record


_DELETE = object()


def errors(obj: object) -> list[FieldProblem]:
    return [p for p in validate_trajectory(obj) if p.severity == "error"]


def notes(obj: object) -> list[FieldProblem]:
    return [p for p in validate_trajectory(obj) if p.severity == "note"]


def reference_accepts(obj: object) -> bool:
    from cauterule.models.trajectory import Trajectory

    try:
        Trajectory.from_dict(obj)  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 — any refusal counts
        return False
    return True


def test_good_record_has_no_problems() -> None:
    assert validate_trajectory(GOOD) == []


def test_success_maybe_is_an_error_that_says_what_was_expected() -> None:
    [problem] = errors(with_(success="maybe"))
    assert problem.field == "success"
    assert "expected a boolean" in problem.reason and "'maybe'" in problem.reason


@pytest.mark.parametrize("value", [True, 0, 1, "true", " FALSE ", "1", "0"])
def test_success_strict_coercions_are_accepted(value: object) -> None:
    assert errors(with_(success=value)) == []


@pytest.mark.parametrize("value", [None, "yes", 2, 1.0, [], _DELETE])
def test_success_missing_null_or_loose_is_refused(value: object) -> None:
    assert [p.field for p in errors(with_(success=value))] == ["success"]


def test_step_without_tool_is_reported_with_its_index() -> None:
    steps = [{"step_number": 1, "tool": "bash"}, {"step_number": 2, "input": "ls"}]
    [problem] = errors(with_(steps=steps))
    assert problem.field == "steps[1].tool"
    assert "missing" in problem.reason


def test_step_number_below_one_is_an_error() -> None:
    [problem] = errors(with_(steps=[{"step_number": 0, "tool": "bash"}]))
    assert problem.field == "steps[0].step_number" and "≥ 1" in problem.reason


def test_missing_step_number_is_numbered_by_position_with_a_note() -> None:
    record = with_(steps=[{"tool": "bash"}])
    assert errors(record) == []
    assert [p.field for p in notes(record)] == ["steps[0].step_number"]


def test_non_object_steps_are_kept_visible_as_notes_not_dropped_silently() -> None:
    record = with_(steps=["oops", {"step_number": 1, "tool": "bash"}])
    assert errors(record) == []
    assert [p.field for p in notes(record)] == ["steps[0]"]


def test_all_problems_are_reported_not_just_the_first() -> None:
    record = with_(task="  ", success="maybe", severity="critical", tags="git")
    assert {p.field for p in errors(record)} == {"task", "success", "severity", "tags"}


def test_id_falls_back_to_id_field_when_trajectory_id_is_empty() -> None:
    assert errors(with_(trajectory_id="", id="T-2")) == []
    assert errors(with_(trajectory_id=_DELETE, id=_DELETE))[0].field == "trajectory_id"


def test_nested_list_items_get_indexed_paths() -> None:
    record = with_(agent_config={"model": "m", "tools": ["bash", " "]}, tags=["ok", 3])
    assert {p.field for p in errors(record)} == {"agent_config.tools[1]", "tags[1]"}


def test_not_an_object_is_a_record_level_error() -> None:
    [problem] = errors([1, 2])
    assert problem.field == "" and "expected a JSON object" in problem.reason


HAND_MADE_BAD_AND_ODD: list[object] = [
    GOOD,
    [],
    "text",
    with_(success="maybe"),
    with_(success=None),
    with_(success=_DELETE),
    with_(success=2),
    with_(success=" True "),
    with_(trajectory_id="   "),
    with_(trajectory_id="", id="x"),
    with_(trajectory_id=None, id=None),  # the reference reads str(None) == "None"
    with_(trajectory_id=_DELETE, id=_DELETE),
    with_(trajectory_id=0, id=""),
    with_(trajectory_id=42),
    with_(timestamp=_DELETE),
    with_(timestamp=None),
    with_(timestamp=""),
    with_(task=12),
    with_(task="\u00a0"),
    with_(steps=_DELETE),
    with_(steps=None),
    with_(steps="abc"),
    with_(steps={"a": 1}),
    with_(steps=5),
    with_(steps=[1, "x", None]),
    with_(steps=[{"tool": "bash"}]),
    with_(steps=[{"step_number": "3", "tool": "bash"}]),
    with_(steps=[{"step_number": "x", "tool": "bash"}]),
    with_(steps=[{"step_number": None, "tool": "bash"}]),
    with_(steps=[{"step_number": 2.7, "tool": "bash"}]),
    with_(steps=[{"step_number": 0.5, "tool": "bash"}]),
    with_(steps=[{"step_number": True, "tool": "bash"}]),
    with_(steps=[{"step_number": 1, "tool": 7}]),
    with_(steps=[{"step_number": 1, "tool": 0}]),
    with_(steps=[{"step_number": 1, "tool": None}]),
    with_(steps=[{"step_number": 1, "tool": ""}]),
    with_(steps=[{"step_number": 1}]),
    with_(quality_label="unlabeled"),
    with_(quality_label=""),
    with_(quality_label=["clear"]),
    with_(quality_label="open-ended"),
    with_(severity="critical"),
    with_(expected_outcome="should_promote"),
    with_(expected_outcome=None),
    with_(tags="git"),
    with_(tags=None),
    with_(tags=["a", ""]),
    with_(tags=["a", None]),
    with_(agent_config={"tools": "bash"}),
    with_(agent_config={"tools": None}),
    with_(agent_config={"tools": ["bash", 1]}),
    with_(agent_config="gpt"),
    with_(environment=[1]),
    with_(redacted=None),
    with_(redacted="no"),
    with_(redacted="0"),
    with_(injection_signal=1),
    with_(injection_signal=3),
    with_(failure_class=5, expected_rule=["x"]),
]


@pytest.mark.parametrize("obj", HAND_MADE_BAD_AND_ODD)
def test_no_errors_iff_reference_model_accepts(obj: object) -> None:
    assert (errors(obj) == []) == reference_accepts(obj), validate_trajectory(obj)


_json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", " ", "x", "true", "0", "None"]))
_json_values = st.recursive(
    _json_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6)
_maybe = lambda values: st.one_of(st.just(_DELETE), st.sampled_from(values), _json_values)  # noqa: E731
_step = st.fixed_dictionaries(
    {},
    optional={
        "step_number": st.one_of(st.integers(-1, 3), st.sampled_from(["2", "x", 1.5]), _json_values),
        "tool": st.one_of(st.sampled_from(["bash", "", " "]), _json_values),
        "output": _json_values,
    },
)
_records = st.builds(
    lambda parts: {k: v for k, v in parts.items() if v is not _DELETE},
    st.fixed_dictionaries(
        {
            "trajectory_id": _maybe(["T-1", "", "  "]),
            "id": _maybe(["T-2", ""]),
            "timestamp": _maybe(["2026-01-01T00:00:00Z"]),
            "task": _maybe(["do it"]),
            "steps": st.one_of(st.just(_DELETE), st.lists(st.one_of(_step, _json_values), max_size=3), _json_values),
            "success": _maybe([True, False, "False", 0, 1, 2]),
            "quality_label": _maybe(["clear", "noisy", "unlabeled"]),
            "severity": _maybe(["low", "critical"]),
            "expected_outcome": _maybe(["should_extract", "should_reject", "bogus"]),
            "tags": _maybe([["a"], ["a", ""], "a"]),
            "agent_config": _maybe([{"tools": ["bash"]}, {"tools": "bash"}, {"tools": [""]}]),
            "redacted": _maybe([True, "false", None]),
            "injection_signal": _maybe([False, "1"]),
        }
    ),
)


@settings(max_examples=150, deadline=None)
@given(_records)
def test_generated_records_agree_with_the_reference_model(obj: dict[str, Any]) -> None:
    assert (errors(obj) == []) == reference_accepts(obj), validate_trajectory(obj)
