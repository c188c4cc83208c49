"""Issue 12, defects 1 and 6 (in the Review tab).

1. A new reviewer's first deliberate evidence open asks the name; after it is given the open
   is recorded, the rule stays selected and nothing raises (pytest-qt fails the test on an
   exception in a slot). The status bar says when the name is really asked.
6. The approval-refused banner keeps the trajectory ids' case and updates as rows are opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import REVIEWER, preset_reviewer, shown_window, wait_idle
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QInputDialog
from test_review_keys import current, press

from cauterule_gui.jobs.runner import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.services import StoreServices

NEW_NAME = "First-Timer"


def _window(qtbot: Any, services: StoreServices, runner: JobRunner) -> MainWindow:
    window = shown_window(qtbot, services, runner)
    rules = window.workspace.rules
    rules.model.fetch_all()
    row = next(r for r in range(rules.model.rowCount()) if rules.model.rule(r).broken_n >= 2)
    rules.select_row(row)
    rules.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is rules.view, timeout=5_000)
    wait_idle(window)  # the first rule's evidence board is read off the GUI thread
    return window


@pytest.fixture
def new_reviewer_window(qtbot: Any, replayed: StoreServices, runner: JobRunner) -> Iterator[MainWindow]:
    window = _window(qtbot, replayed, runner)  # no reviewer name in the (fresh) settings
    yield window
    window.close()


def _answer_name_prompt(qtbot: Any, answered: list[str]) -> None:
    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QInputDialog):
            QTimer.singleShot(20, answer)
            return
        answered.append(dialog.labelText())
        dialog.setTextValue(NEW_NAME)
        dialog.accept()

    QTimer.singleShot(0, answer)


def test_the_first_evidence_open_asks_the_name_and_is_recorded(qtbot: Any, new_reviewer_window: MainWindow) -> None:
    window = new_reviewer_window
    assert "asked when you first open evidence" in window.reviewer_label.full_text()
    rule = current(window)
    answered: list[str] = []
    _answer_name_prompt(qtbot, answered)
    press(qtbot, window, Qt.Key.Key_2)  # the Broken tab, opening its first row deliberately
    qtbot.waitUntil(lambda: bool(answered), timeout=5_000)
    opened = window.workspace.evidence.current_outcome()
    assert opened is not None and opened.bucket == "broken"  # back on the row that was opened
    assert window.services.reviews.viewed(NEW_NAME, rule.result_id) == {opened.trajectory_pk}
    assert current(window).rule_id == rule.rule_id  # not reset to "No rule selected"
    assert window.reviewer_label.full_text() == f"Reviewer: {NEW_NAME}"


def test_the_refusal_banner_keeps_id_case_and_follows_the_opened_rows(
    qtbot: Any, replayed: StoreServices, runner: JobRunner,
) -> None:
    preset_reviewer()
    window = _window(qtbot, replayed, runner)
    rule = current(window)
    reviews = window.services.reviews
    press(qtbot, window, Qt.Key.Key_A)
    banner = window.workspace.evidence.banner
    missing = reviews.unreviewed_broken(REVIEWER, rule.result_id)
    assert banner.text().startswith(f"⚠ Approval refused: {len(missing)} broken trajectories")
    assert all(tid in banner.text() for tid in missing[:5])  # ids keep their case (no .capitalize())
    press(qtbot, window, Qt.Key.Key_2)  # opens the first broken row
    first = window.workspace.evidence.current_outcome()
    assert first is not None
    left = reviews.unreviewed_broken(REVIEWER, rule.result_id)
    assert len(left) == len(missing) - 1 and first.trajectory_id not in banner.text()
    assert f"{len(left)} broken trajector" in banner.text()
    while reviews.unreviewed_broken(REVIEWER, rule.result_id):
        press(qtbot, window, Qt.Key.Key_BracketRight)
    wait_idle(window)
    assert banner.text() == "⚠ Every broken row is now opened or waived: press A to approve."
    window.close()
