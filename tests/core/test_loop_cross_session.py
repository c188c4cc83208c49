"""Cross-session repeat failures: agreement with cauterule.measurement.cross_session on
generated data, then each Workbench addition on its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.loop.cross_session import SessionFileError, compare, count_arm, parse_window, read_sessions

CLASSES = st.sampled_from(["git/push", "k8s/pod", "pip/conflict", "py/import", None])
# Odd values on purpose: success "false" (not exactly true -> a failure), session as text or bool.
RECORD = st.fixed_dictionaries({
    "session": st.one_of(st.integers(1, 6), st.sampled_from(["4", True, None])),
    "failure_class": CLASSES,
    "success": st.one_of(st.booleans(), st.sampled_from(["false", 1, None])),
})
WINDOWS = st.one_of(st.none(), st.sets(st.integers(1, 6), min_size=1, max_size=3))


@settings(max_examples=400, deadline=None)
@given(base=st.lists(RECORD, max_size=25), inter=st.lists(RECORD, max_size=25), window=WINDOWS)
def test_rates_and_reduction_agree_with_the_reference(base: list[dict[str, Any]], inter: list[dict[str, Any]],
                                                       window: set[int] | None) -> None:
    from cauterule.measurement.cross_session import cross_session_delta, repeat_failure_rate

    ref = cross_session_delta(base, inter, late_sessions=window)
    ours = compare(base, inter, window)
    assert ours.baseline.failures == ref.baseline_failures
    assert ours.baseline.repeats == ref.baseline_repeats
    assert ours.intervention.failures == ref.intervention_failures
    assert ours.intervention.repeats == ref.intervention_repeats
    assert ours.reduction == pytest.approx(ref.reduction)
    assert ours.meets_target == ref.meets_target
    assert count_arm(base, window).repeat_rate == pytest.approx(repeat_failure_rate(base, sessions=window))


def _s(session: int, klass: str | None, success: bool = False) -> dict[str, Any]:
    return {"session": session, "failure_class": klass, "success": success}


EARLY_THEN_LATE = [_s(1, "a"), _s(2, "b"), _s(4, "a"), _s(5, "b"), _s(5, "c")]


def test_reference_forgets_history_before_the_window() -> None:
    assert count_arm(EARLY_THEN_LATE, {4, 5}).repeats == 0


def test_history_can_be_carried_into_the_window() -> None:
    counts = count_arm(EARLY_THEN_LATE, {4, 5}, carry_history=True)
    assert (counts.failures, counts.repeats) == (3, 2)


def test_exact_counts_and_a_wilson_interval() -> None:
    counts = count_arm([_s(1, "a")] * 7)
    assert (counts.rate.k, counts.rate.n) == (6, 7)
    assert counts.rate.ci is not None and counts.rate.ci[0] < 6 / 7 < counts.rate.ci[1]


def test_per_class_table() -> None:
    result = compare(EARLY_THEN_LATE + [_s(5, "a")], [_s(4, "a")], None)
    rows = {r["failure_class"]: r for r in result.per_class()}
    assert rows["a"] == {"failure_class": "a", "baseline_failures": 3, "baseline_repeats": 2,
                         "intervention_failures": 1, "intervention_repeats": 0}
    assert rows["c"]["intervention_failures"] == 0


def test_absolute_failures_per_session_cover_every_session() -> None:
    counts = count_arm(EARLY_THEN_LATE + [_s(3, None), _s(3, "x", success=True)], {4, 5})
    assert counts.per_session == {1: 1, 2: 1, 4: 1, 5: 2}


def test_session_file_errors_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(_s(1, "a")) + "\n" + '{"session": "two", "success": "no"}\n' + "not json\n")
    with pytest.raises(SessionFileError) as error:
        read_sessions(path)
    text = [str(i) for i in error.value.issues]
    assert text[0].startswith(f"{path}:2 [session]") and "got 'two'" in text[0]
    assert text[1].startswith(f"{path}:2 [success]")
    assert text[2].startswith(f"{path}:3 []: not JSON")


def test_window_syntax() -> None:
    assert parse_window("4-5") == (4, 5) and parse_window("1,3") == (1, 3) and parse_window("") is None
    with pytest.raises(ValueError, match="expected session numbers"):
        parse_window("late")


def test_demo_files_show_a_reduction(demo_corpus: Path) -> None:
    base = read_sessions(demo_corpus / "cross-session" / "baseline.sessions.ndjson")
    inter = read_sessions(demo_corpus / "cross-session" / "intervention.sessions.ndjson")
    result = compare(base, inter, (4, 5))
    assert result.baseline.failures > 0 and result.reduction > 0
