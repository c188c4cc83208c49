"""Issue 16 acceptance: one approval from the GUI is one write transaction, on the database thread.

SQLAlchemy's ``begin`` event (every transaction, read or write) and ``connect`` event (every
new DBAPI connection; the store's engine uses ``NullPool``, so one per session) are counted
from the key press until the table has moved on and every job is done. A write transaction
is one whose connection is not the store's read-only view.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QEventLoop, Qt, QTimer
from sqlalchemy import event

from cauterule_gui.db import in_write_op
from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow


def settle(ms: int = 50) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def test_one_approval_is_one_write_transaction_on_the_database_thread(
        qtbot: Any, review_window: MainWindow, runner: JobRunner) -> None:
    window = review_window
    rules = window.workspace.rules
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=30_000)
    settle()
    row = next(r for r in range(rules.model.rowCount())
               if rules.model.rule(r).broken_n == 0 and rules.model.rule(r).verdict == "pass")
    rules.select_row(row)
    approved = rules.current_rule_id()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=30_000)
    settle()

    engine = window.services.store.engine
    begins: list[tuple[bool, bool, bool]] = []  # (write, on the GUI thread, inside an executor op)
    connects: list[bool] = []  # on the GUI thread

    def on_begin(connection: Any) -> None:
        write = not connection.get_execution_options().get("workbench_read_only", False)
        begins.append((write, threading.current_thread() is threading.main_thread(), in_write_op()))

    def on_connect(_dbapi: Any, _record: Any) -> None:
        connects.append(threading.current_thread() is threading.main_thread())

    event.listen(engine, "begin", on_begin)
    event.listen(engine, "connect", on_connect)
    try:
        rules.view.setFocus()
        qtbot.keyClick(rules.view, Qt.Key.Key_A)
        qtbot.waitUntil(lambda: rules.current_rule_id() not in (None, approved), timeout=10_000)
        qtbot.waitUntil(lambda: not runner.is_busy(), timeout=30_000)
        settle()
    finally:
        event.remove(engine, "begin", on_begin)
        event.remove(engine, "connect", on_connect)

    writes = [b for b in begins if b[0]]
    assert len(writes) == 1, f"{len(writes)} write transactions for one approval"
    assert writes[0] == (True, False, True)  # off the GUI thread, inside the executor's op
    assert not any(gui for _write, gui, _op in begins), "a transaction ran on the GUI thread"
    assert not any(connects), "a connection was opened on the GUI thread"
    assert window.services.reviews.current(approved).action == "approve"
    print(f"\none approval: {len(writes)} write transaction, {len(begins) - len(writes)} read transactions "
          f"(the table's refresh), {len(connects)} connections, none on the GUI thread")
