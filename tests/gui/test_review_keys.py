"""Keyboard-first review: decide and advance, reasons, undo, J/K, `?`, focus guard, gate."""

from __future__ import annotations

from typing import Any

from conftest import REVIEWER, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from cauterule_gui.main_window import MainWindow


def press(qtbot: Any, window: MainWindow, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    if QApplication.activeWindow() is None:  # a closed dialog took the activation with it
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=5000)
        window.workspace.rules.view.setFocus()
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, key, modifier)
    wait_idle(window)  # what the key does is read and written through the executor


def current(window: MainWindow):  # type: ignore[no-untyped-def]
    rule = window.workspace.rules.current_rule()
    assert rule is not None
    return rule


def select_rule_without_broken(window: MainWindow) -> None:
    rules = window.workspace.rules
    for row in range(rules.model.rowCount()):
        rule = rules.model.rule(row)
        if rule is not None and rule.broken_n == 0 and rows_after(window, row) >= 2:
            rules.select_row(row)
            return
    raise AssertionError("no rule without broken evidence")


def rows_after(window: MainWindow, row: int) -> int:
    return window.workspace.rules.model.rowCount() - row - 1


def test_approve_reject_with_reason_undo_and_advance_by_keyboard(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    select_rule_without_broken(window)
    first = current(window)
    row = window.workspace.rules.view.currentIndex().row()

    press(qtbot, window, Qt.Key.Key_A)
    reviews = window.services.reviews
    assert reviews.current(first.rule_id).action == "approve"
    second = current(window)
    assert second.rule_id != first.rule_id and window.workspace.rules.view.currentIndex().row() == row + 1

    press(qtbot, window, Qt.Key.Key_R)
    dialog = window.review.reason_dialog
    assert dialog is not None and dialog.isVisible()
    assert not dialog.ok_button.isEnabled()  # no empty reason
    qtbot.keyClicks(dialog.edit, "trigger too broad")
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    wait_idle(window)
    decision = reviews.current(second.rule_id)
    assert decision.action == "reject" and decision.reason == "trigger too broad"
    assert current(window).rule_id not in (first.rule_id, second.rule_id)
    assert window.rule_model.index(row + 1, 11).data() == "✗ rejected"

    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert reviews.current(second.rule_id) is None  # the rejection is undone ...
    assert current(window).rule_id == second.rule_id  # ... and the reviewer is taken back to it
    actions = [e.action for e in reviews.rule_audit(second.rule_id)]
    assert actions == ["reject", "undo"]  # undo is a new event; nothing was erased

    press(qtbot, window, Qt.Key.Key_J)
    assert current(window).rule_id != second.rule_id
    press(qtbot, window, Qt.Key.Key_K)
    assert current(window).rule_id == second.rule_id
    press(qtbot, window, Qt.Key.Key_D)
    assert reviews.current(second.rule_id).action == "defer"


def test_no_decision_key_fires_while_a_text_field_has_focus(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    rule = current(window)
    edit = window.workspace.rules.text_edit
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    for key in (Qt.Key.Key_A, Qt.Key.Key_D, Qt.Key.Key_J):
        qtbot.keyClick(edit, key)
    assert edit.text() == "adj"
    assert window.services.reviews.current(rule.rule_id) is None
    # Esc leaves the text field; then the keys act again.
    qtbot.keyClick(edit, Qt.Key.Key_Escape)
    assert window.workspace.rules.view.hasFocus()


def test_question_mark_lists_every_shortcut(qtbot: Any, review_window: MainWindow) -> None:
    press(qtbot, review_window, Qt.Key.Key_Question)
    dialog = review_window.shortcuts_dialog
    assert dialog is not None and dialog.isVisible()
    keys = {row[2] for row in dialog.rows}
    for key in ("A", "R", "D", "J", "K", "Ctrl+Z", "?", "Y", "Shift+Y", "W", "E", "H", "]", "[", "1", "2"):
        assert any(key == k or k.startswith(key + " ") for k in keys), key
    dialog.close()


def test_approval_is_refused_until_every_broken_row_is_opened_or_waived(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    rules = window.workspace.rules
    rules.model.fetch_all()
    row = next(r for r in range(rules.model.rowCount()) if rules.model.rule(r).broken_n >= 2)
    rules.select_row(row)
    rule = current(window)
    reviews = window.services.reviews

    press(qtbot, window, Qt.Key.Key_A)
    assert reviews.current(rule.rule_id) is None
    assert current(window).rule_id == rule.rule_id  # refused: no advance
    banner = window.workspace.evidence.banner
    assert banner.isVisible() and "approval refused" in banner.text().lower()

    press(qtbot, window, Qt.Key.Key_2)  # Broken tab; opens its first row deliberately
    evidence = window.workspace.evidence
    assert evidence.bucket == "broken" and evidence.current_outcome() is not None
    first_broken = evidence.current_outcome()
    assert first_broken.trajectory_pk in reviews.viewed(REVIEWER, rule.result_id)
    press(qtbot, window, Qt.Key.Key_BracketRight)  # the next broken row
    second_broken = evidence.current_outcome()
    assert second_broken.trajectory_pk != first_broken.trajectory_pk
    remaining = reviews.unreviewed_broken(REVIEWER, rule.result_id)
    # Waive whatever is still unopened (W, a reason, Enter); approval then goes through.
    while remaining:
        target = next(o for o in window.services.replays.outcomes(rule.result_id, "broken")
                      if o.trajectory_id == remaining[0])
        evidence.view.setCurrentIndex(evidence.model.index(evidence.model.row_of(target.trajectory_pk), 0))
        window.workspace.rules.view.setFocus()
        press(qtbot, window, Qt.Key.Key_W)
        dialog = window.review.reason_dialog
        qtbot.keyClicks(dialog.edit, "same failure as the opened one")
        qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
        wait_idle(window)
        remaining = reviews.unreviewed_broken(REVIEWER, rule.result_id)
    window.workspace.rules.view.setFocus()
    press(qtbot, window, Qt.Key.Key_A)
    if rule.verdict != "pass":  # approving against replay's verdict asks for a reason first
        dialog = window.review.reason_dialog
        qtbot.keyClicks(dialog.edit, "the broken successes are unrelated pip runs")
        qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
        wait_idle(window)
    assert reviews.current(rule.rule_id).action == "approve"
    assert not banner.isVisible()


def test_marks_on_rows_and_on_the_verdict_are_stored_unblinded_and_shown(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    rules = window.workspace.rules
    rules.model.fetch_all()
    row = next(r for r in range(rules.model.rowCount()) if rules.model.rule(r).prevented_n >= 2)
    rules.select_row(row)
    rule = current(window)
    press(qtbot, window, Qt.Key.Key_1)  # Prevented, first row opened
    evidence = window.workspace.evidence
    marked = evidence.current_outcome()
    press(qtbot, window, Qt.Key.Key_Y)  # row: replay right, then on to the next row
    assert evidence.model.index(evidence.model.row_of(marked.trajectory_pk), 7).data() == "replay right"
    assert evidence.current_outcome().trajectory_pk != marked.trajectory_pk
    press(qtbot, window, Qt.Key.Key_N)
    press(qtbot, window, Qt.Key.Key_Y, Qt.KeyboardModifier.ShiftModifier)  # the verdict
    marks = window.services.reviews.marks(reviewer=REVIEWER)
    assert {(m.trajectory_pk, m.mark) for m in marks if m.result_id == rule.result_id} >= {
        (marked.trajectory_pk, "right"), (None, "right")}
    assert all(not m.blinded for m in marks)
    assert window.rule_model.index(window.workspace.rules.view.currentIndex().row(), 13).data() == "replay right"


def test_audit_log_dialog_lists_who_what_when_why_and_run(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    select_rule_without_broken(window)
    rule = current(window)
    press(qtbot, window, Qt.Key.Key_D)
    press(qtbot, window, Qt.Key.Key_K)
    press(qtbot, window, Qt.Key.Key_H)
    dialog = window.review.audit_dialog
    assert dialog is not None and dialog.isVisible()
    model = dialog.model
    assert model.rowCount() == 1
    values = [model.index(0, c).data() for c in range(model.columnCount())]
    assert values[1] == REVIEWER and values[2].startswith("defer") and values[4] == f"#{rule.run_id}"
    dialog.close()


def test_single_key_shortcuts_can_be_switched_off(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    rule = current(window)
    window.single_key_action.setChecked(False)
    press(qtbot, window, Qt.Key.Key_D)
    assert window.services.reviews.current(rule.rule_id) is None
    window.single_key_action.setChecked(True)
    press(qtbot, window, Qt.Key.Key_D)
    assert window.services.reviews.current(rule.rule_id).action == "defer"
