"""The Lab tab (issue 26 item 7): the sweep is a job off the GUI thread with progress and cancel;
Adopt… writes one profile and one audit event; Ctrl+8 lands on its settings table."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import make_settings, preset_reviewer

from core.lab.settings import REFERENCE_SEMANTIC, REFERENCE_WITHHELD
from core.store.profile_repo import ProfileRepository
from core.store.review_repo import ReviewRepository

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.models.lab_model import MARK_CHOSEN, choice_text, lab_rows
from cauterule_gui.panels.lab_panel import LabOutput, LabPanel
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices


@pytest.fixture
def panel(qtbot: Any, replayed: StoreServices, runner: JobRunner) -> Iterator[LabPanel]:
    preset_reviewer("lee")
    db = DatabaseExecutor(runner, lambda: replayed)
    made = LabPanel(db, runner, ReviewerIdentity(make_settings()))
    qtbot.addWidget(made)
    made.resize(1280, 760)
    made.show()
    yield made
    made.cancel()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=60_000)
    db.close()


def _run(qtbot: Any, panel: LabPanel) -> LabOutput:
    with qtbot.waitSignal(panel.lab_finished, timeout=300_000) as blocker:
        panel.run()
    return blocker.args[0]


def test_the_sweep_runs_off_the_gui_thread_and_shows_the_chosen_and_reference_rows(
    qtbot: Any, panel: LabPanel
) -> None:
    progress: list[tuple[int, int, str]] = []
    handle = panel.run()
    assert handle is not None
    handle.progress.connect(lambda d, t, phase: progress.append((d, t, phase)))
    qtbot.waitUntil(lambda: panel.output is not None, timeout=300_000)
    output = panel.output
    assert output is not None
    assert all(r.thread != threading.main_thread().name for r in output.curves.values())  # drawn on the worker
    assert any(phase == "sweep" for _d, _t, phase in progress)
    assert panel.model.rowCount() == len(output.result["settings"])
    first = panel.model.row_at(0)
    chosen = output.result["choices"][panel.truth_combo.currentData()]["chosen"]
    assert first is not None and (first.name == chosen) == (MARK_CHOSEN in first.marks)
    assert "Split by" in panel.choice.text() or "no data" in panel.choice.text()
    assert [r["seed"] for r in output.result["choices"]["failure_class_proxy"]["resplits"]] == list(range(1, 10))


def test_cancel_stops_the_sweep_and_keeps_nothing(qtbot: Any, panel: LabPanel) -> None:
    handle = panel.run()
    assert handle is not None
    handle.progress.connect(lambda *_a: panel.cancel())
    with qtbot.waitSignal(handle.finished, timeout=300_000):
        pass
    assert handle.outcome == "cancelled"
    assert panel.output is None and panel.model.rowCount() == 0
    assert "cancelled" in panel.status.text()
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_adopt_writes_one_profile_and_one_audit_event(qtbot: Any, panel: LabPanel, replayed: StoreServices) -> None:
    with qtbot.waitSignal(panel.refresh().finished, timeout=30_000):  # type: ignore[union-attr]
        pass
    _run(qtbot, panel)
    qtbot.waitUntil(panel.adopt_button.isEnabled, timeout=30_000)  # once the job has finished
    asked: list[str] = []
    panel.ask_name = lambda candidate, current: (asked.append(candidate.describe("team", current)), "team")[1]
    selected = panel.model.row_at(panel.table.currentIndex().row())
    assert selected is not None
    with qtbot.waitSignal(panel.adopted, timeout=30_000) as blocker:
        panel.adopt_button.click()
    assert blocker.args == ["team@1"]
    assert "in place of lab-2026-12" in asked[0]
    repo = ProfileRepository(replayed.store)
    stored = [p for p in repo.list_profiles() if not p.builtin]
    assert [p.label for p in stored] == ["team@1"] and stored[0].lab_setting == selected.name
    assert repo.adopted_label() == "team@1"
    [event] = ReviewRepository(replayed.store).audit("replay_profile", "team@1")
    assert event.actor == "lee" and event.action == "adopt_profile"
    assert "Adopted team@1" in panel.status.text()


def test_ctrl_8_lands_on_the_lab_settings_table(qtbot: Any, window: MainWindow) -> None:
    from PySide6.QtCore import Qt

    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=5000)
    lab = window.workflows.lab
    assert window.tabs.indexOf(lab) == 7 and window.tab_registry.title(lab) == "Lab"
    qtbot.keyClick(window, Qt.Key.Key_8, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: lab.table.hasFocus(), timeout=5000)


def test_the_choice_text_shows_the_reference_with_the_label_withheld_under_the_proxy() -> None:
    result = {
        "truths": {"failure_class_proxy": {"proxy": True, "empty": False, "built_from": "failure_class", "rules": 4,
                                           "pairs": 20, "caveat": "coarse"}},
        "splits": {"failure_class_proxy": {"group_by": "failure_class", "seed": 26,
                                           "rules": {"tuning": 2, "held_back": 2}}},
        "choices": {"failure_class_proxy": {
            "chosen": None, "reason": "nothing", "shippable": False, "chosen_held_back": None,
            "reference_held_back": {"f1": _figure(0.8), "false_accept": _figure(0.01)},
            "withheld_held_back": {"f1": _figure(0.6), "false_accept": _figure(0.0)}}},
    }
    text = choice_text(result, "failure_class_proxy")
    assert "reference-0.3.1 semantic, failure_class withheld, held-back: F1 0.600" in text


def test_the_choice_text_says_how_the_choice_fares_on_other_seeds_splits() -> None:
    rows = [{"seed": s, "chosen": "x", "f1": f, "reference_f1": 0.7, "false_accept": 0.0,
             "reference_false_accept": 0.0, "above": f > 0.7} for s, f in ((1, 0.8), (2, 0.6), (3, 0.75))]
    result = {
        "truths": {"expected_rule": {"proxy": False, "empty": False, "built_from": "expected_rule", "rules": 4,
                                     "pairs": 20, "caveat": "sparse"}},
        "splits": {"expected_rule": {"group_by": "failure_class", "seed": 26, "rules": {"tuning": 2, "held_back": 2}}},
        "choices": {"expected_rule": {"chosen": "x", "reason": "beats", "shippable": False, "chosen_held_back": None,
                                      "reference_held_back": None, "resplits": rows}},
    }
    text = choice_text(result, "expected_rule")
    assert "Re-splits (3 other seeds" in text and "F1 in 2 of 3, mean gap +0.017" in text


def _figure(value: float) -> dict[str, Any]:
    return {"value": value, "k": 1, "n": 2, "ci": [value - 0.1, value + 0.05], "floor": 0.1}


def test_the_rows_open_with_the_chosen_setting_then_the_reference_then_it_with_the_label_withheld() -> None:
    names = ["other", REFERENCE_WITHHELD.name, "chosen one", REFERENCE_SEMANTIC.name]
    figures = {m: _figure(0.5) for m in ("precision", "recall", "f1", "false_accept")}
    result = {
        "choices": {"failure_class_proxy": {"chosen": "chosen one"}},
        "settings": [{"name": n, "readouts": {"failure_class_proxy": {"tuning": figures}}, "circular_for": {},
                      "canaries": {"blind_to": []}} for n in names],
    }
    rows = lab_rows(result, "failure_class_proxy", "tuning")
    assert [r.name for r in rows] == ["chosen one", REFERENCE_SEMANTIC.name, REFERENCE_WITHHELD.name, "other"]
