"""Trajectory views are built from raw record dicts the way the 0.3.1 model builds them."""

from __future__ import annotations

from core.matching import TrajectoryViews


def test_views_from_a_messy_record() -> None:
    record = {
        "task": "Deploy: the app",
        "success": "false",
        "failure_point": "",  # falsy: not part of S
        "failure_class": "ci/lint",
        "domain": "devops",
        "steps": [
            "not a step",  # non-dict steps are skipped, but keep their index
            {"tool": "bash", "input": "make lint", "output": None, "error": "E501 line too long"},
            {"step_number": 3, "tool": "bash", "input": "", "output": "ok", "error": None},
        ],
    }
    views = TrajectoryViews.from_record(record)
    assert views.haystack == "deploy the app ci lint e501 line too long make lint ok"
    assert views.signature == "ci lint e501 line too long"
    assert views.classfree_signature == "e501 line too long"
    assert views.reference_signature == "ci lint e501 line too long"
    assert views.success is False and views.domain == "devops" and views.failure_class == "ci/lint"
    assert [name for name, _ in views.haystack_sources] == [
        "task", "failure_class", "steps[1].error", "steps[1].input", "steps[2].output",
    ]


def test_include_input_false_drops_step_input_from_the_haystack_only() -> None:
    record = {"task": "t", "success": True,
              "steps": [{"step_number": 1, "tool": "b", "input": "secret input", "error": "boom"}]}
    views = TrajectoryViews.from_record(record, include_input=False)
    assert views.haystack == "t boom" and views.signature == "boom" and views.success is True


def test_punctuation_only_fields_leave_no_double_spaces() -> None:
    record = {"task": "!!!", "success": 0, "failure_class": "---",
              "steps": [{"step_number": 1, "tool": "b", "error": "x"}], "domain": None}
    views = TrajectoryViews.from_record(record)
    assert views.haystack == "x" and views.signature == "x" and views.domain is None
    assert views.locate("haystack", 0, 1)[0].field == "steps[0].error"


def test_missing_steps_and_task_are_tolerated() -> None:
    views = TrajectoryViews.from_record({"success": True, "steps": None})
    assert views.haystack == "" and views.signature == ""
