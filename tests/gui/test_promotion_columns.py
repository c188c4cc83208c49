"""The promotion queue at 1280 px: ten columns do not fit whole, so Stale (then Near-duplicates,
then Conflicts) give way and the rule and its trigger are read, not "G-00…ff-a" and
"when gi…pushing"; the gate words stay whole; a hidden column is still read in the Rule and
Trigger tooltips; the header's context menu shows or hides any column, kept across a restart."""

from __future__ import annotations

from typing import Any

from conftest import wait_idle
from PySide6.QtCore import Qt
from test_no_elided_code_words import elided_cells
from test_resume_and_keys import _close, _reopen

from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.models import promotion_queue_model as pq

GATE_COLUMNS = (pq.COL_GROUP, pq.COL_VERDICT, pq.COL_BROKEN, pq.COL_AGREEMENT, pq.COL_DUPLICATES,
                pq.COL_CONFLICTS, pq.COL_DECISION, pq.COL_STALE)
TRIGGER_CHARS = 30  # what the Trigger column shows at least at 1280 px (it showed 14)


def promotion_at(qtbot: Any, window: MainWindow, width: int, height: int) -> Any:
    window.resize(width, height)
    window.tab_registry.show_tab(window.workflows.promotion)
    promotion = window.workflows.promotion
    qtbot.waitUntil(lambda: promotion.model.rowCount() > 5, timeout=60_000)
    wait_idle(window)
    return promotion


def test_at_1280_the_rule_and_trigger_are_read_and_gate_words_stay_whole(qtbot: Any,
                                                                         review_window: MainWindow) -> None:
    promotion = promotion_at(qtbot, review_window, 1280, 800)
    view, model = promotion.view, promotion.model
    fit = review_window.workflows.promotion_fit
    qtbot.waitUntil(lambda: view.isColumnHidden(pq.COL_STALE), timeout=5000)  # the first to give way
    assert not elided_cells(view, (pq.COL_RULE,))  # every rule's name whole, not "G-00…ff-a"
    assert view.columnWidth(pq.COL_TRIGGER) >= view.fontMetrics().averageCharWidth() * TRIGGER_CHARS
    assert not elided_cells(view, GATE_COLUMNS)
    assert not view.isColumnHidden(pq.COL_DECISION) and not view.isColumnHidden(pq.COL_GROUP)
    assert pq.COL_STALE in fit.gave_way
    # A hidden column is still read: the Rule and Trigger tooltips list every other column.
    for row in range(min(model.rowCount(), 10)):
        tip = str(model.index(row, pq.COL_TRIGGER).data(Qt.ItemDataRole.ToolTipRole))
        assert "Near-duplicates:" in tip and "Decision:" in tip

    promotion_at(qtbot, review_window, 1920, 1080)
    qtbot.waitUntil(lambda: not any(view.isColumnHidden(c) for c in range(model.columnCount())), timeout=5000)
    assert not fit.gave_way and not elided_cells(view, GATE_COLUMNS)


def test_the_header_menu_shows_and_hides_columns_and_a_restart_keeps_them(qtbot: Any, review_window: MainWindow,
                                                                         runner: JobRunner) -> None:
    promotion = promotion_at(qtbot, review_window, 1280, 800)
    fit = review_window.workflows.promotion_fit
    menu = fit.column_menu()
    actions = {a.text().split(" (")[0]: a for a in menu.actions() if a.isCheckable()}
    assert not actions["Rule"].isEnabled()  # the rule stays: a row needs a name
    assert "no room" in next(a.text() for a in menu.actions() if a.text().startswith("Stale"))
    actions["Stale"].setChecked(True)  # the reviewer wants it, room or not
    actions["Verdict"].setChecked(False)
    assert not promotion.view.isColumnHidden(pq.COL_STALE) and promotion.view.isColumnHidden(pq.COL_VERDICT)

    again = _reopen(qtbot, review_window, runner)
    try:
        view = promotion_at(qtbot, again, 1280, 800).view
        assert not view.isColumnHidden(pq.COL_STALE) and view.isColumnHidden(pq.COL_VERDICT)
        again.workflows.promotion_fit.reset()  # Fit columns to the window: the fit decides again
        assert not view.isColumnHidden(pq.COL_VERDICT) and view.isColumnHidden(pq.COL_STALE)
    finally:
        _close(again)
