"""Numbers that agree with each other (issue 24 item 6, window side): the Promotion Agreement
cell shows the numbers its detail shows, says when it carries the run's pooled gate, and the
Label tab's semantic state is worded like the status bar's."""

from __future__ import annotations

from typing import Any

from conftest import preset_reviewer

from core.promotion.gates import Gate

from cauterule_gui.main_window import MainWindow
from cauterule_gui.models import promotion_queue_model as pq

SPANNING = {"value": 0.6667, "ci_low": 0.2077, "ci_high": 0.9385}


def _blind_gate(state: str, **extra: Any) -> Gate:
    data = {"source": "blind sessions", "blind": {"agreement": SPANNING, "threshold": 0.8, "sessions": [1]}, **extra}
    return Gate("agreement", state, "human approval required: blind agreement 0.67 [0.21–0.94] spans 0.80; "
                                    "judge more items to decide the gate", data)


def test_a_measured_gate_that_spans_the_threshold_shows_its_numbers() -> None:
    for state in ("not_measured", "warn"):  # today's core says not_measured; the new one says warn
        gate = _blind_gate(state)
        cell = pq.agreement_text(gate)
        assert cell == "⚠ 0.67 [0.21–0.94] spans 0.80"
        assert "0.67 [0.21–0.94]" in gate.detail  # the cell and the detail read the same numbers


def test_an_unmeasured_gate_still_says_not_measured() -> None:
    gate = Gate("agreement", "not_measured", "no blind agreement", {"source": "blind sessions", "blind": {}})
    assert pq.agreement_text(gate) == "— not measured"


def test_a_rule_with_no_judged_item_says_it_carries_the_runs_gate() -> None:
    assert pq.agreement_text(_blind_gate("warn", scope="run_pooled")).endswith("· run")
    assert not pq.agreement_text(_blind_gate("warn", scope="rule_items")).endswith("run")


def test_label_feedback_words_the_model_state_like_the_status_bar(qtbot: Any, window: MainWindow) -> None:
    preset_reviewer()
    window.replay._set_model_state("semantic matching ready (all-MiniLM-L6-v2)")
    labelling = window.workflows.labelling
    window.tab_registry.show_tab(labelling)
    qtbot.waitUntil(lambda: labelling._context is not None, timeout=10_000)
    labelling.semantic_box.setChecked(False)  # the reviewer's choice; the status bar still says ready
    qtbot.waitUntil(lambda: "tick Semantic" in labelling.feedback_note.text(), timeout=10_000)
    note = labelling.feedback_note.text()
    assert "no model" not in note
    assert "the model is ready" in note and "tick Semantic" in note
