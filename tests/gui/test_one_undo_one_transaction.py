"""Undoing an approval from the window is one write transaction on the database thread: the undo
and the retirement of the standing rule the approval created commit together (issue 16)."""

from __future__ import annotations

import threading
from typing import Any

from conftest import wait_idle
from PySide6.QtCore import Qt
from sqlalchemy import event

from core.store.promotion_repo import PromotionRepository

from cauterule_gui.db import in_write_op
from cauterule_gui.main_window import MainWindow


def test_undoing_an_approval_is_one_write_transaction_on_the_database_thread(
        qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    rules = window.workspace.rules
    wait_idle(window)
    row = next(r for r in range(rules.model.rowCount())
               if rules.model.rule(r).broken_n == 0 and rules.model.rule(r).verdict == "pass")
    rules.select_row(row)
    approved = rules.current_rule_id()
    wait_idle(window)
    rules.view.setFocus()
    qtbot.keyClick(rules.view, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: rules.current_rule_id() not in (None, approved), timeout=10_000)
    wait_idle(window)
    assert PromotionRepository(window.services.store).active_for_rule(approved) is not None

    engine = window.services.store.engine
    begins: list[tuple[bool, bool, bool]] = []  # (write, on the GUI thread, inside an executor op)

    def on_begin(connection: Any) -> None:
        write = not connection.get_execution_options().get("workbench_read_only", False)
        begins.append((write, threading.current_thread() is threading.main_thread(), in_write_op()))

    event.listen(engine, "begin", on_begin)
    try:
        window.review.undo()  # what Edit > Undo last decision (Ctrl+Z) calls
        wait_idle(window)
    finally:
        event.remove(engine, "begin", on_begin)

    writes = [b for b in begins if b[0]]
    assert writes == [(True, False, True)], f"{len(writes)} write transactions for one undo: {begins}"
    assert window.services.reviews.current(approved) is None
    assert PromotionRepository(window.services.store).active_for_rule(approved) is None
