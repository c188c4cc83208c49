"""Usable from 1280×800: no tab widens the window, every column of the tables is on screen,
long text is elided in the middle with the full text in the tooltip."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTableView

from cauterule_gui.main_window import MainWindow
from cauterule_gui.models import rule_table_model as cols

LONG = ("Run 12 (workbench, semantic on), 4,812 rules, corpus 65cb33da1f2b; ruler: semantic on, 5 comparator(s) "
        "flagged: match_decision, token_f1, semantic_f1, agreement, directive_f1 " * 3)


def _columns_fit(view: QTableView) -> bool:
    header = view.horizontalHeader()
    used = sum(header.sectionSize(c) for c in range(header.count()) if not header.isSectionHidden(c))
    return used <= view.viewport().width()


def test_no_tab_makes_the_window_wider_than_1280(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    window.resize(1280, 800)
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        QApplication.processEvents()
    window.workflows.metrics.panel.status.setText(LONG)  # the one-line run summary that forced 1,802 px
    assert window.minimumSizeHint().width() <= 1280
    assert window.width() == 1280
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=60_000)


def test_every_review_column_is_on_screen_at_1280(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    window.resize(1280, 800)
    window.show_review()
    qtbot.waitUntil(lambda: _columns_fit(window.workspace.rules.view), timeout=2000)
    window.workspace.evidence.set_bucket("prevented", select_first=True)
    qtbot.waitUntil(lambda: _columns_fit(window.workspace.evidence.view), timeout=2000)
    header = window.workspace.rules.view.horizontalHeader()
    assert header.sectionSize(cols.COL_TRIGGER) >= 3 * header.sectionSize(cols.COL_RUN)  # the text that matters


def test_long_triggers_are_elided_in_the_middle_with_the_full_text_in_the_tooltip(
        qtbot: Any, review_window: MainWindow) -> None:
    view = review_window.workspace.rules.view
    assert view.textElideMode() == Qt.TextElideMode.ElideMiddle
    model = review_window.rule_model
    rule = model.rule(0)
    tip = model.index(0, cols.COL_TRIGGER).data(Qt.ItemDataRole.ToolTipRole)
    assert rule is not None and " ".join(rule.trigger.split()) in " ".join(str(tip).split())
    evidence = review_window.workspace.evidence.view
    assert evidence.textElideMode() == Qt.TextElideMode.ElideMiddle


def test_column_widths_the_reviewer_set_are_remembered(qtbot: Any, review_window: MainWindow) -> None:
    rules = review_window.workspace.rules
    assert rules.header_state().isEmpty()  # still fitting itself: nothing to remember
    rules.view.horizontalHeader().resizeSection(cols.COL_DIRECTIVE, 333)
    assert not rules.header_state().isEmpty()
