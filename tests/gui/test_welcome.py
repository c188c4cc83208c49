"""First run: the welcome page offers import, the demo store, the next step and the three workflows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import wait_idle

from cauterule_gui.main_window import MainWindow
from cauterule_gui.settings import KEY_WELCOME, make_settings


def _window(qtbot: Any, populated: Any, runner: Any) -> MainWindow:
    settings = make_settings()
    settings.setValue(KEY_WELCOME, True)
    from cauterule_gui.services import open_services

    window = MainWindow(populated, runner, settings, open_services)
    qtbot.addWidget(window)
    window.show()
    wait_idle(window)  # the store's summary is read off the GUI thread
    return window


def test_the_welcome_page_is_shown_first_with_three_workflows(qtbot: Any, populated: Any, runner: Any) -> None:
    window = _window(qtbot, populated, runner)
    assert window.tabs.currentWidget() is window.welcome
    assert set(window.welcome.buttons) == {"import", "demo", "review", "label", "agreement"}
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


def test_the_next_step_of_a_store_without_results_is_to_replay(qtbot: Any, populated: Any, runner: Any) -> None:
    window = _window(qtbot, populated, runner)
    assert window.welcome.next_key == "replay"
    assert "replay every rule" in window.welcome.next_label.text()
    window.close()


def test_an_empty_store_stays_empty_at_start_and_offers_import(qtbot: Any, services: Any, runner: Any) -> None:
    from cauterule_gui.services import open_services

    settings = make_settings()
    window = MainWindow(services, runner, settings, open_services)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=10_000)
    assert services.corpora.list_corpora() == []  # nothing is imported into the reviewer's store
    assert window.welcome.next_key == "import"
    window.close()


def test_the_demo_store_is_its_own_file_with_the_demo_corpus(qtbot: Any, populated: Any, runner: Any) -> None:
    from cauterule_gui.services import open_services
    from cauterule_gui.start_flow import demo_store_path

    window = _window(qtbot, populated, runner)
    user_store = populated.path
    before = {c.name for c in populated.corpora.list_corpora()}
    window.welcome.buttons["demo"].click()
    assert window.services is not None and window.services.path == demo_store_path()
    qtbot.waitUntil(lambda: window.services.results.has_results() and not runner.is_busy(), timeout=60_000)
    assert window.tabs.currentWidget() is window.workspace
    assert window.start.is_demo_store()
    window.close()
    window.services.close()
    reopened = open_services(user_store)
    try:
        assert {c.name for c in reopened.corpora.list_corpora()} == before  # the user's store got nothing
    finally:
        reopened.close()
