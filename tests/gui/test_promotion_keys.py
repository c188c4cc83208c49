"""Issue 12 (stretch, with issue 17): the promotion queue driven by keys — J/K move, A/R/D
decide through the one decision path, / filters, Esc clears the filter."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from test_promotion_panel import demo, demo_template, make_panel, wait_idle  # noqa: F401  (fixtures)

from core.store.review_repo import ReviewRepository

from cauterule_gui.jobs.runner import JobRunner
from cauterule_gui.panels.promotion import ApprovalInput, PromotionPanel
from cauterule_gui.services import StoreServices


@pytest.fixture
def panel(qtbot: Any, demo: StoreServices, runner: JobRunner) -> Iterator[PromotionPanel]:  # noqa: F811
    made = make_panel(qtbot, demo, runner)
    made.show()
    qtbot.waitExposed(made)
    made.view.setFocus()
    made.view.selectRow(0)
    yield made
    wait_idle(qtbot, made)


def test_j_and_k_move_and_the_window_shortcuts_do_not_steal_them(qtbot: Any, panel: PromotionPanel) -> None:
    stolen: list[bool] = []
    for letter in ("J", "A"):
        action = QAction(f"window {letter}", panel)
        action.setShortcut(letter)
        action.triggered.connect(lambda: stolen.append(True))
        panel.addAction(action)
    first = panel.current_item()
    qtbot.keyClick(panel.view, Qt.Key.Key_J)
    second = panel.current_item()
    assert first is not None and second is not None and second.rule_id != first.rule_id
    qtbot.keyClick(panel.view, Qt.Key.Key_K)
    assert panel.current_item() == first
    assert not stolen


def test_a_r_d_decide_the_selected_row(qtbot: Any, panel: PromotionPanel, demo: StoreServices) -> None:  # noqa: F811
    item = panel.current_item()
    assert item is not None and item.decision is None
    panel.prompts.answers.append("needs a second look")  # type: ignore[attr-defined]
    qtbot.keyClick(panel.view, Qt.Key.Key_D)
    wait_idle(qtbot, panel)
    decision = ReviewRepository(demo.store).current(item.rule_id)
    assert decision is not None and decision.action == "defer" and decision.reason == "needs a second look"
    panel.select_rule(item.rule_id)
    panel.prompts.answers.append("too broad")  # type: ignore[attr-defined]
    qtbot.keyClick(panel.view, Qt.Key.Key_R)
    wait_idle(qtbot, panel)
    assert ReviewRepository(demo.store).current(item.rule_id).action == "reject"  # type: ignore[union-attr]
    passing = next(i for i in panel.model.items() if i.verdict == "pass" and i.decision is None
                   and not i.gate("broken_reviewed").data.get("unreviewed"))
    panel.select_rule(passing.rule_id)
    panel.prompts.answers.append(ApprovalInput("evidence read"))  # type: ignore[attr-defined]
    qtbot.keyClick(panel.view, Qt.Key.Key_A)
    wait_idle(qtbot, panel)
    assert ReviewRepository(demo.store).current(passing.rule_id).action == "approve"  # type: ignore[union-attr]


def test_slash_filters_and_escape_clears(qtbot: Any, panel: PromotionPanel) -> None:
    total = panel.model.rowCount()
    qtbot.keyClick(panel.view, Qt.Key.Key_Slash)
    assert panel.filter_edit.hasFocus()
    qtbot.keyClicks(panel.filter_edit, "oomkilled")
    shown = panel.model.items()
    assert 0 < len(shown) < total and all("oomkilled" in (i.origin + i.trigger + i.directive).lower() for i in shown)
    qtbot.keyClick(panel.filter_edit, Qt.Key.Key_Escape)
    assert panel.model.rowCount() == total and panel.view.hasFocus()
