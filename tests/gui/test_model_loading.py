"""The window is usable while the embedding model loads in the background."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from cauterule_gui.main_window import MainWindow


def test_the_window_works_while_the_model_is_still_loading(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    with qtbot.waitSignal(window.replay.model_state_changed, timeout=60_000,
                          check_params_cb=lambda text: "loading" in text):
        window.replay.load_model()
    # The model is loading in the replay process; the reviewer keeps working meanwhile.
    rules = window.workspace.rules
    first = rules.current_rule()
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_J)
    assert rules.current_rule() is not None and rules.current_rule().rule_id != first.rule_id
    assert "loading" in window.model_label.full_text()  # the status bar says so
    with qtbot.waitSignal(window.replay.model_state_changed, timeout=180_000):
        pass
    assert "semantic matching ready" in window.model_label.full_text()
