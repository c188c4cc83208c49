"""Run by test_review_persistence: approve a rule with the A key in a real window, then die.

argv: store path, settings directory. Prints the decided rule id, then SIGKILLs itself as soon
as the window shows the rule as decided (the decision is written on the database thread; the
screen says "saved" once it has committed): no close, no atexit, no flush of anything but what
the decision itself committed.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

os.environ["QT_QPA_PLATFORM"] = "offscreen"

from PySide6.QtCore import QEventLoop, QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from cauterule_gui.jobs import JobRunner  # noqa: E402
from cauterule_gui.main_window import MainWindow  # noqa: E402
from cauterule_gui.reviewer import KEY_REVIEWER  # noqa: E402
from cauterule_gui.services import open_services  # noqa: E402
from cauterule_gui.settings import KEY_WELCOME, configure_application_names, make_settings  # noqa: E402


def main() -> None:
    store, settings_dir = Path(sys.argv[1]), sys.argv[2]
    app = QApplication([])
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, settings_dir)
    configure_application_names()
    settings = make_settings()
    settings.setValue(KEY_REVIEWER, "killed-reviewer")
    settings.setValue(KEY_WELCOME, False)  # start on the Review tab, as a returning reviewer does
    window = MainWindow(open_services(store), JobRunner(), settings, open_services)
    window.show()
    deadline = time.monotonic() + 30
    while window.first_pages_loading and time.monotonic() < deadline:  # the first pages, read off the GUI thread
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 20)
    window.runner.wait_for_done(10_000)  # the window's other first reads
    app.processEvents()
    rules = window.workspace.rules
    row = next(r for r in range(rules.model.rowCount()) if rules.model.rule(r).broken_n == 0)
    rules.select_row(row)
    rules.view.setFocus()
    app.processEvents()
    rule_id = rules.current_rule().rule_id
    QTest.keyClick(rules.view, Qt.Key.Key_A)
    deadline = time.monotonic() + 30
    while "(saved)" not in window.statusBar().currentMessage() and time.monotonic() < deadline:
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 20)
    print(rule_id, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


main()
