"""Issue 16 acceptance: no SQL runs on the GUI thread while a reviewer works.

A listener on the store's engine (``before_cursor_execute``) records every statement run on
the main thread while the test drives, through the real widgets and keys, review decisions,
"evidence opened" marks, agreement marks, a waiver, undo, a what-if edit, a label, a blind
judgement and a promotion decision. Excluded, explicitly: opening the store and building the
window (before the listener is installed), and the test's own checks of what was written
(``guard.paused()``). Nothing else is excused: the replay job's run id comes from its child
process (``ctx.post``), no longer from a look-up on the GUI thread. The sibling
``test_gui_thread_free_paging.py`` drives evidence paging, bucket switches, G on a group
larger than a page and the loop's views the same way.
"""

from __future__ import annotations

from typing import Any

from conftest import REVIEWER
from gui_thread_guard import GuiThreadStatements
from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication

from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.panels.agreement import TAB_JUDGE
from cauterule_gui.panels.reason_dialog import ReasonDialog


def settle(ms: int = 50) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def idle(qtbot: Any, runner: JobRunner) -> None:
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=30_000)
    settle()


def answer_reason_dialog(reason: str) -> None:
    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ReasonDialog):
            QTimer.singleShot(20, answer)
            return
        qtbot_free_type(dialog, reason)

    QTimer.singleShot(0, answer)


def qtbot_free_type(dialog: ReasonDialog, reason: str) -> None:
    dialog.edit.setText(reason)
    dialog.ok_button.click()


def refocus(qtbot: Any, window: MainWindow) -> None:
    """A closed dialog gave the focus back to the window; the keys act in the rules table."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    window.workspace.rules.view.setFocus()


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
            marks = window.services.reviews.evidence_marks(REVIEWER, broken.result_id)
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
            assert waived.trajectory_pk in window.services.reviews.waivers(REVIEWER, broken.result_id)

        # A verdict mark (Shift+Y) refreshes the table.
        guard.step = "marking the verdict"
        refocus(qtbot, window)
        qtbot.keyClick(rules.view, Qt.Key.Key_Y, Qt.KeyboardModifier.ShiftModifier)
        qtbot.waitUntil(lambda: rules.current_rule() is not None and rules.current_rule().verdict_mark == "right",
                        timeout=10_000)
        idle(qtbot, runner)

        # What if (E): an edited trigger tried as a draft, then saved as v2, replayed alone, the moves listed.
        guard.step = "editing a rule (what if)"
        row = next(r for r in range(rules.model.rowCount()) if rules.model.rule(r).prevented_n >= 2)
        rules.select_row(row)
        edited = rules.current_rule_id()
        refocus(qtbot, window)
        qtbot.keyClick(rules.view, Qt.Key.Key_E)
        qtbot.waitUntil(lambda: window.whatif.dialog is not None, timeout=10_000)
        dialog = window.whatif.dialog
        dialog.trigger_edit.setPlainText("when the moon is blue and the owls are singing")
        with qtbot.waitSignal(window.whatif.draft_shown, timeout=60_000):  # the draft first: nothing saved
            dialog.draft_button.click()
        with qtbot.waitSignal(window.replay.replay_done, timeout=60_000):
            dialog.apply_button.click()
        qtbot.waitUntil(lambda: dialog.moves.count() > 0, timeout=10_000)
        with guard.paused():
            assert [v.version for v in window.services.rules.versions(edited)] == [1, 2]
        dialog.close()
        idle(qtbot, runner)

        # Label (Ctrl+4): a label typed and saved with Ctrl+Enter.
        guard.step = "labelling"
        window.tab_registry.actions[3].trigger()
        labelling = window.workflows.labelling
        assert window.tabs.currentWidget() is labelling
        qtbot.waitUntil(lambda: labelling.model.rowCount() > 0 and labelling.current_pk() is not None
                        and not labelling._loading, timeout=20_000)
        labelling.trigger.setFocus()
        qtbot.keyClicks(labelling.trigger, "when git push is rejected as non-fast-forward")
        qtbot.keyClicks(labelling.directive, "pull with rebase, then push")
        with qtbot.waitSignal(labelling.label_saved, timeout=20_000):
            qtbot.keyClick(labelling.directive, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        idle(qtbot, runner)

        # Agreement (Ctrl+5): a blind session, one judgement by keys.
        guard.step = "judging blind"
        window.tab_registry.actions[4].trigger()
        agreement = window.workflows.agreement
        qtbot.waitUntil(lambda: agreement.run_combo.count() > 0, timeout=20_000)
        created: list[Any] = []
        agreement.session_created.connect(created.append)
        agreement.size_spin.setValue(6)
        agreement.create_session()
        qtbot.waitUntil(lambda: bool(created), timeout=20_000)
        qtbot.waitUntil(lambda: agreement.tabs.currentIndex() == TAB_JUDGE and agreement.current is not None
                        and agreement.reveal is None and bool(agreement._answer_buttons), timeout=20_000)
        item = agreement.current.item
        qtbot.keyClick(agreement.judge_page, "0")  # can't tell
        if item is not None and item.scope_choices and agreement.reveal is None:
            qtbot.keyClick(agreement.judge_page, "1")
        qtbot.waitUntil(lambda: agreement.reveal is not None, timeout=20_000)
        qtbot.keyClick(agreement.judge_page, Qt.Key.Key_Return)
        idle(qtbot, runner)

        # Promotion (Ctrl+6): defer the selected rule with D.
        guard.step = "deciding in the promotion queue"
        window.tab_registry.actions[5].trigger()
        promotion = window.workflows.promotion
        qtbot.waitUntil(lambda: not promotion.busy and promotion.current_item() is not None, timeout=30_000)
        deferred = promotion.current_item().rule_id
        promotion.view.setFocus()
        answer_reason_dialog("needs a second look")  # the real dialog, answered when it is up
        qtbot.keyClick(promotion.view, Qt.Key.Key_D)
        idle(qtbot, runner)
        with guard.paused():
            assert window.services.reviews.current(deferred).action == "defer"
    assert not guard.seen, guard.report()
