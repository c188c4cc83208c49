"""Approving a one-sentence rule (an expected_rule copy: trigger = directive) in the Review tab
(issue 28 item 5): the split is offered; "Split…" opens the what-if on the proposed halves (Run
saves and replays them), "Approve unsplit…" asks why and records the acknowledgement."""

from __future__ import annotations

from typing import Any

from conftest import REVIEWER, preset_reviewer, wait_idle
from PySide6.QtCore import Qt
from test_review_first_open import _window
from test_review_keys import current, press

from core.store.review_repo import ReviewRepository

from cauterule_gui.jobs.runner import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.services import StoreServices


def _one_sentence_rule(window: MainWindow) -> None:
    rules = window.workspace.rules
    # Not a duplicate group (A on one of those approves the group through bulk decisions).
    row = next(r for r in range(rules.model.rowCount()) if rules.model.rule(r).origin == "failures/k8s.jsonl:1")
    rules.select_row(row)
    rules.view.setFocus()
    wait_idle(window)


def test_the_split_is_offered_and_opens_the_what_if_on_the_proposed_halves(
        qtbot: Any, replayed: StoreServices, runner: JobRunner) -> None:
    preset_reviewer()
    window = _window(qtbot, replayed, runner)
    _one_sentence_rule(window)
    rule = current(window)
    press(qtbot, window, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: window.review.split_box is not None and window.review.split_box.isVisible(), timeout=10_000)
    box = window.review.split_box
    assert "Proposed trigger: a pod is OOMKilled\n" in box.text()
    assert ReviewRepository(replayed.store).current(rule.rule_id) is None  # nothing written
    split = next(b for b in box.buttons() if b.text().replace("&", "").startswith("Split"))
    split.click()
    qtbot.waitUntil(lambda: window.whatif.dialog is not None, timeout=10_000)
    assert window.whatif.dialog.trigger_edit.toPlainText() == "a pod is OOMKilled"
    assert window.whatif.dialog.directive_edit.toPlainText().startswith("raise the container memory limit")
    window.whatif.dialog.reject()
    window.close()


def test_approving_unsplit_records_the_acknowledgement(qtbot: Any, replayed: StoreServices, runner: JobRunner) -> None:
    preset_reviewer()
    window = _window(qtbot, replayed, runner)
    _one_sentence_rule(window)
    rule = current(window)
    press(qtbot, window, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: window.review.split_box is not None and window.review.split_box.isVisible(), timeout=10_000)
    unsplit = next(b for b in window.review.split_box.buttons() if b.text().replace("&", "").startswith("Approve unsplit"))
    unsplit.click()
    dialog = window.review.reason_dialog
    assert dialog is not None and dialog.windowTitle() == "Approve a rule that fires on no task"
    qtbot.keyClicks(dialog.edit, "the team wants it on record")
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    wait_idle(window)
    [event] = [e for e in ReviewRepository(replayed.store).audit("rule", rule.rule_id) if e.action == "approve"]
    assert event.after["acknowledgement"].startswith(f"{REVIEWER} acknowledged: trigger and directive are one sentence")
    assert event.after["gates"]["injection"]["state"] in ("fail", "warn")
    window.close()


def test_the_split_offer_is_answered_with_keys(qtbot: Any, replayed: StoreServices, runner: JobRunner) -> None:
    """A keyboard-only reviewer: A, then U in the offer (no mouse), a reason and Return approve
    the rule unsplit with the acknowledgement; the offer's default (Return) is the split."""
    preset_reviewer()
    window = _window(qtbot, replayed, runner)
    _one_sentence_rule(window)
    rule = current(window)
    press(qtbot, window, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: window.review.split_box is not None and window.review.split_box.isVisible(), timeout=10_000)
    box = window.review.split_box
    assert box.defaultButton().text().replace("&", "").startswith("Split")
    qtbot.keyClick(box, Qt.Key.Key_U)
    qtbot.waitUntil(lambda: window.review.reason_dialog is not None and window.review.reason_dialog.isVisible(),
                    timeout=10_000)
    dialog = window.review.reason_dialog
    assert dialog.windowTitle() == "Approve a rule that fires on no task"
    qtbot.keyClicks(dialog.edit, "kept as one sentence on purpose")
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    wait_idle(window)
    decision = ReviewRepository(replayed.store).current(rule.rule_id)
    assert decision is not None and decision.action == "approve"
    window.close()
