"""Ctrl+1 … Ctrl+7 put the focus where the tab's keys work (issue 24 item 3): never on a
check box where Space starts work, nor a combo box, nor a text field where a key types."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLineEdit

from cauterule_gui.main_window import MainWindow


def _press_ctrl(qtbot: Any, window: MainWindow, digit: int) -> None:
    qtbot.keyClick(window, Qt.Key(Qt.Key.Key_0.value + digit), Qt.KeyboardModifier.ControlModifier)


def test_each_tab_key_focuses_the_widget_its_keys_act_on(qtbot: Any, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=5000)
    flows = window.workflows
    expected = {2: window.workspace.rules.view, 3: window.table_panel.view, 4: flows.labelling.view,
                5: flows.agreement.keys_home(), 6: flows.promotion.view}
    for digit, widget in expected.items():
        _press_ctrl(qtbot, window, digit)
        qtbot.waitUntil(lambda w=widget: w.hasFocus(), timeout=5000)


def test_no_tab_key_leaves_focus_on_a_check_box_combo_or_text_field(qtbot: Any, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=5000)
    for digit in range(1, 8):
        _press_ctrl(qtbot, window, digit)
        qtbot.waitUntil(lambda d=digit: window.tabs.currentIndex() == d - 1, timeout=5000)
        focused = window.focusWidget()
        assert not isinstance(focused, QComboBox | QLineEdit), (digit, focused)
        assert not (isinstance(focused, QAbstractButton) and focused.isCheckable()), (digit, focused)


def test_tab_leaves_the_label_queue_for_the_when_field(qtbot: Any, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=5000)
    labelling = window.workflows.labelling
    _press_ctrl(qtbot, window, 4)
    qtbot.waitUntil(lambda: labelling.model.rowCount() > 1 and labelling.view.hasFocus(), timeout=10_000)
    qtbot.keyClick(labelling.view, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: labelling.trigger.hasFocus(), timeout=5000)
