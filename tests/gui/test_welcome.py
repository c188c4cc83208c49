"""First run: the welcome page offers the three workflows on the demo store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cauterule_gui.main_window import MainWindow
from cauterule_gui.settings import KEY_WELCOME, make_settings


def _window(qtbot: Any, populated: Any, runner: Any) -> MainWindow:
    settings = make_settings()
    settings.setValue(KEY_WELCOME, True)
    from cauterule_gui.services import open_services

    window = MainWindow(populated, runner, settings, open_services)
    qtbot.addWidget(window)
    window.show()
    return window


def test_the_welcome_page_is_shown_first_with_three_workflows(qtbot: Any, populated: Any, runner: Any) -> None:
    window = _window(qtbot, populated, runner)
    assert window.tabs.currentWidget() is window.welcome
    assert set(window.welcome.buttons) == {"review", "label", "agreement"}
    assert "5 trajectories" in window.welcome.store_label.text()
    window.close()


def test_choosing_labelling_opens_the_label_tab(qtbot: Any, populated: Any, runner: Any) -> None:
    window = _window(qtbot, populated, runner)
    window.welcome.buttons["label"].click()
    assert window.tabs.currentWidget() is window.workflows.labelling
    window.close()


def test_turning_the_page_off_is_remembered(qtbot: Any, populated: Any, runner: Any, tmp_path: Path) -> None:
    window = _window(qtbot, populated, runner)
    window.welcome.show_at_start.setChecked(False)
    assert make_settings().value(KEY_WELCOME) in (False, "false")
    window.close()
