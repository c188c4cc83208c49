"""Decisions are never lost: across a restart, and when the process is killed right after."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.models.rule_table_model import COL_STATUS
from cauterule_gui.services import StoreServices, open_services
from cauterule_gui.settings import make_settings

HERE = Path(__file__).resolve().parent


def test_a_decision_is_still_there_after_closing_and_reopening(qtbot: Any, review_window: MainWindow,
                                                               runner: JobRunner) -> None:
    window = review_window
    rules = window.workspace.rules
    row = next(r for r in range(rules.model.rowCount()) if rules.model.rule(r).broken_n == 0)
    rules.select_row(row)
    rule_id = rules.current_rule().rule_id
    qtbot.keyClick(rules.view, Qt.Key.Key_D)
    path = window.services.path
    window.close()
    window.services.close()

    reopened_services = open_services(path)
    again = MainWindow(reopened_services, runner, make_settings(), open_services)
    qtbot.addWidget(again)
    again.show()
    qtbot.waitUntil(lambda: not again.first_pages_loading, timeout=10_000)  # read off the GUI thread
    try:
        assert again.tabs.currentWidget() is again.workspace  # replay results: the Review tab opens
        assert again.workspace.rules.select_rule(rule_id)
        row = again.workspace.rules.view.currentIndex().row()
        assert again.rule_model.index(row, COL_STATUS).data() == "… deferred"
        assert reopened_services.reviews.current(rule_id).reviewer == "tester"
    finally:
        again.close()
        reopened_services.close()


def test_a_decision_survives_the_process_being_killed_right_after(replayed: StoreServices, tmp_path: Path) -> None:
    path = replayed.path
    replayed.close()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=os.pathsep.join(
        [str(HERE.parent.parent), str(HERE)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    proc = subprocess.run(
        [sys.executable, str(HERE / "kill_after_decision.py"), str(path), str(tmp_path / "kill-settings")],
        capture_output=True, text=True, timeout=120, env=env,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    rule_id = int(proc.stdout.strip().splitlines()[-1])
    reopened = open_services(path)
    try:
        decision = reopened.reviews.current(rule_id)
        assert decision is not None and (decision.action, decision.reviewer) == ("approve", "killed-reviewer")
        assert [e.action for e in reopened.reviews.rule_audit(rule_id)] == ["approve"]
    finally:
        reopened.close()
