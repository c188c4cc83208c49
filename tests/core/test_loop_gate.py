"""The gate: parity with cauterule.extraction.gate.run_gate on every shared-corpus record,
then the Workbench's per-corpus summary (tested on its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from loop_corpus import shared_records

from core.loop.gate import (
    FAILURE_WITHOUT_SIGNAL,
    NEARMISS_RECOVERED,
    NO_FAILURE_SIGNAL,
    GateRow,
    gate_record,
    summarise,
)


@pytest.mark.external
@pytest.mark.parametrize("mode", ["strict", "relaxed"])
def test_gate_matches_reference_on_every_shared_record(shared_corpus: Path, mode: str) -> None:
    from cauterule.extraction.gate import run_gate
    from cauterule.models.trajectory import Trajectory

    records = shared_records(str(shared_corpus))
    assert len(records) > 300
    mismatches = []
    for where, data in records:
        ours = gate_record(data, mode)  # type: ignore[arg-type]
        ref = run_gate(Trajectory.from_dict(data), mode)  # type: ignore[arg-type]
        if (ours.extract, ours.reason, ours.signals) != (ref.should_extract, ref.reason, ref.failure_signals):
            mismatches.append(where)
    assert mismatches == []


@pytest.mark.external
def test_shared_corpus_exercises_every_silence_reason(shared_corpus: Path) -> None:
    reasons = {gate_record(d, "strict").reason for _w, d in shared_records(str(shared_corpus))}
    assert {NO_FAILURE_SIGNAL, NEARMISS_RECOVERED, None} <= reasons


def test_a_failure_without_any_signal_is_silenced_as_the_reference_does() -> None:
    from cauterule.extraction.gate import run_gate
    from cauterule.models.trajectory import Trajectory

    record = _rec(False, steps=[{"step_number": 1, "tool": "bash", "output": "done", "state": {"exit_code": "n/a"}}])
    ours, ref = gate_record(record, "strict"), run_gate(Trajectory.from_dict(record), "strict")
    assert (ours.reason, ref.reason) == (FAILURE_WITHOUT_SIGNAL, FAILURE_WITHOUT_SIGNAL)


def _rec(success: bool, **extra: Any) -> dict[str, Any]:
    return {"trajectory_id": "t", "timestamp": "x", "task": "t", "success": success, "steps": [], **extra}


def test_failure_text_printed_to_output_is_not_a_recovery() -> None:
    record = _rec(True, steps=[{"step_number": 1, "tool": "bash", "error": "boom"},
                               {"step_number": 2, "tool": "bash", "output": "fatal: refused"}])
    assert gate_record(record, "strict").extract


def test_relaxed_mode_never_checks_recovery() -> None:
    record = _rec(True, failure_class="net/retry", steps=[])
    assert gate_record(record, "strict").reason == NEARMISS_RECOVERED
    assert gate_record(record, "relaxed").extract


def _row(pk: int, corpus: str, expected: str | None, record: dict[str, Any]) -> GateRow:
    return GateRow(pk, corpus, f"T-{pk}", expected, gate_record(record, "strict"))


def test_summary_counts_silence_with_a_wilson_interval_and_lists_disagreements() -> None:
    clean, failing = _rec(True), _rec(False, failure_class="git/push")
    rows = [_row(1, "ok", "should_silence", clean), _row(2, "ok", "should_silence", failing),
            _row(3, "ok", "should_extract", clean), _row(4, "ok", "should_reject", clean)]
    (summary,) = summarise(rows)
    assert (summary.silenced.k, summary.silenced.n) == (3, 4)
    assert summary.silenced.ci is not None and summary.silenced.ci[0] < 0.75 < summary.silenced.ci[1]
    assert summary.expected == {"should_extract": 1, "should_reject": 1, "should_silence": 2}
    assert [r.pk for r in summary.disagreements] == [2, 3]


def test_should_reject_records_never_count_as_disagreements() -> None:
    rows = [_row(1, "nm", "should_reject", _rec(True)), _row(2, "nm", "should_reject", _rec(False, failure_class="a"))]
    assert summarise(rows)[0].disagreements == ()


def test_a_non_object_state_is_read_as_empty_where_the_reference_crashes() -> None:
    from cauterule.extraction.gate import run_gate
    from cauterule.models.trajectory import Trajectory

    record = _rec(False, failure_class="x", steps=[{"step_number": 1, "tool": "bash", "state": ["exit", 1]}])
    with pytest.raises(AttributeError):
        run_gate(Trajectory.from_dict(record), "strict")
    assert gate_record(record, "strict").signals == ("failure_class: x",)
