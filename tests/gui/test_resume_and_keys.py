"""Resume where you stopped, every tab on a key, the `?` sheet of the tab in front, themes."""

from __future__ import annotations

from typing import Any

from conftest import wait_idle
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QPalette
from PySide6.QtWidgets import QApplication

from cauterule_gui import theme
from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.services import open_services
from cauterule_gui.settings import make_settings


def _reopen(qtbot: Any, window: MainWindow, runner: JobRunner) -> MainWindow:
    path = window.services.path
    window.close()
    window.services.close()
    again = MainWindow(open_services(path), runner, make_settings(), open_services)
    qtbot.addWidget(again)
    again.show()
    qtbot.waitUntil(lambda: not again.first_pages_loading, timeout=10_000)  # read off the GUI thread
    return again


def _close(window: MainWindow) -> None:
    window.close()
    window.services.close()


def test_a_decision_on_rule_5_then_a_restart_opens_on_rule_5(qtbot: Any, review_window: MainWindow,
                                                             runner: JobRunner) -> None:
    rules = review_window.workspace.rules
    rules.select_row(4)
    rule_id = rules.current_rule_id()
    qtbot.keyClick(rules.view, Qt.Key.Key_Y, Qt.KeyboardModifier.ShiftModifier)  # the rule's verdict is right
    assert review_window.services.reviews is not None and rules.current_rule_id() == rule_id
    again = _reopen(qtbot, review_window, runner)
    try:
        assert again.tabs.currentWidget() is again.workspace
        assert again.workspace.rules.current_rule_id() == rule_id
    finally:
        _close(again)


def test_the_tab_the_evidence_row_and_the_label_position_come_back(qtbot: Any, review_window: MainWindow,
                                                                   runner: JobRunner) -> None:
    rules = review_window.workspace.rules
    row = next(r for r in range(rules.model.rowCount()) if rules.model.rule(r).prevented_n >= 2)
    rules.select_row(row)
    wait_idle(review_window)
    evidence = review_window.workspace.evidence
    evidence.move_row(1)  # the second prevented row
    wait_idle(review_window)
    wanted = evidence.current_outcome()
    labelling = review_window.workflows.labelling
    review_window.tabs.setCurrentWidget(labelling)  # the Label tab reads its list when first shown
    qtbot.waitUntil(lambda: labelling.model.rowCount() > 3, timeout=10_000)
    labelling.view.selectRow(3)
    label_pk = labelling.current_pk()
    again = _reopen(qtbot, review_window, runner)
    try:
        assert again.tabs.currentWidget() is again.workflows.labelling
        assert again.workflows.labelling.current_pk() == label_pk
        qtbot.waitUntil(lambda: again.workspace.evidence.current_outcome() is not None
                        and again.workspace.evidence.current_outcome().trajectory_pk == wanted.trajectory_pk,
                        timeout=5000)
        assert again.workspace.evidence.bucket == "prevented"
    finally:
        again.workflows.labelling.flush()
        _close(again)


def test_ctrl_1_to_8_reach_every_tab(qtbot: Any, window: MainWindow) -> None:
    assert window.tabs.count() == 8  # the Lab tab is the eighth
    for index, action in enumerate(window.tab_registry.actions):
        assert action.shortcut() == QKeySequence(f"Ctrl+{index + 1}")
        action.trigger()
        assert window.tabs.currentIndex() == index


def test_question_mark_lists_the_keys_of_the_label_tab(qtbot: Any, window: MainWindow) -> None:
    window.tabs.setCurrentWidget(window.workflows.labelling)
    window.show_shortcuts()
    rows = window.shortcuts_dialog.rows
    label_rows = [r for r in rows if r[0] == "Label"]
    keys = " ".join(r[2] for r in label_rows)
    assert "Ctrl+Return" in keys and "Alt+J" in keys and "Alt+K" in keys
    assert any("next" in r[1].lower() for r in label_rows)
    assert "Label" in window.shortcuts_dialog.windowTitle()
    assert not any(r[0] == "Decide" for r in rows)  # review keys are not the Label tab's
    window.shortcuts_dialog.close()


def test_question_mark_on_the_review_tab_lists_the_review_keys(qtbot: Any, window: MainWindow) -> None:
    window.show_review()
    window.show_shortcuts()
    areas = {r[0] for r in window.shortcuts_dialog.rows}
    assert {"Decide", "Window"} <= areas
    window.shortcuts_dialog.close()


def test_the_dark_theme_recolours_and_is_remembered(qtbot: Any, window: MainWindow) -> None:
    try:
        window.workflows.promotion.set_message("Approved rule 3", "ok")
        window.set_theme("dark")
        assert theme.is_dark()
        strip = window.workflows.promotion.message.palette().color(QPalette.ColorRole.Window)
        assert strip == theme.swatch("pass").background
        assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128
        assert make_settings().value("appearance/theme") == "dark"
        assert theme.swatch("pass").background.lightness() < 128
        window.workflows.promotion.set_message("Approved rule 3", "ok")
        window.set_theme("light")
        assert not theme.is_dark()
        strip = window.workflows.promotion.message.palette().color(QPalette.ColorRole.Window)
        assert strip == theme.swatch("pass").background  # the success strip follows the switch
        assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() > 128
    finally:
        window.set_theme("system")


def test_the_label_tab_splitter_is_remembered(qtbot: Any, review_window: MainWindow,
                                                          runner: JobRunner) -> None:
    label = review_window.workflows.labelling.splitter
    review_window.tabs.setCurrentWidget(review_window.workflows.labelling)
    qtbot.waitUntil(lambda: sum(label.sizes()) > 1000, timeout=3000)  # laid out at the window's width
    label.setSizes([300, 600, 500])
    wanted = label.sizes()
    again = _reopen(qtbot, review_window, runner)
    try:
        again.resize(review_window.size())  # the offscreen screen is small: restoreGeometry clamps to it
        again.tabs.setCurrentWidget(again.workflows.labelling)
        qtbot.waitUntil(lambda: sum(again.workflows.labelling.splitter.sizes()) >= sum(wanted) - 20, timeout=3000)
        got = again.workflows.labelling.splitter.sizes()
        share = [round(x / sum(got), 2) for x in got]
        assert share == [round(x / sum(wanted), 2) for x in wanted]
    finally:
        again.workflows.labelling.flush()
        _close(again)


def test_evidence_column_widths_the_reviewer_dragged_are_remembered(qtbot: Any, review_window: MainWindow,
                                                                    runner: JobRunner) -> None:
    header = review_window.workspace.evidence.view.horizontalHeader()
    header.resizeSection(1, 211)  # the Corpus column, dragged wider
    again = _reopen(qtbot, review_window, runner)
    try:
        assert again.workspace.evidence.view.horizontalHeader().sectionSize(1) == 211
        assert again.workspace.evidence.column_fit.user_resized
    finally:
        _close(again)


def test_the_evidence_viewer_follows_a_switch_to_dark(qtbot: Any, review_window: MainWindow) -> None:
    viewer = review_window.workspace.viewer
    try:
        review_window.set_theme("dark")
        qtbot.waitUntil(lambda: viewer.palette().color(QPalette.ColorRole.Base).lightness() < 128, timeout=2000)
        document = viewer.text.document()
        qtbot.waitUntil(lambda: any(
            fmt.background().style() != Qt.BrushStyle.NoBrush and fmt.background().color().lightness() < 128
            for fmt in _block_formats(document)), timeout=2000)
        assert not any(fmt.background().style() != Qt.BrushStyle.NoBrush and fmt.background().color().lightness() > 200
                       for fmt in _block_formats(document))  # no light error / failure strips left on dark
    finally:
        review_window.set_theme("system")


def _block_formats(document: Any) -> list[Any]:
    block, found = document.begin(), []
    while block.isValid():
        found.append(block.blockFormat())
        block = block.next()
    return found
