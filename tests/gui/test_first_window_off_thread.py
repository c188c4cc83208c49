"""Issue 13 item 5: the first window reads no table page on the GUI thread.

The window is built over a real replayed store with a session to resume (a rule, the Review
tab). Every SQL statement run on the GUI thread is recorded (``GuiThreadStatements``) from
before ``MainWindow(...)`` until the first pages are shown and the window is idle; the
repositories' page functions record the thread they ran on. The session's rule is selected
when its page arrives, and a reviewer's click made before the restore could land wins.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import build_replayed_store, preset_reviewer, wait_idle
from gui_records import trajectory, write_jsonl
from gui_thread_guard import GuiThreadStatements
from PySide6.QtCore import Qt

from cauterule_gui import session_state
from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.services import StoreServices, open_services
from cauterule_gui.settings import make_settings

MANY_RULES = 230  # more group rows than the rules table's first page (200)


def _record_threads(obj: Any, name: str, threads: list[str]) -> None:
    """Wrap a repository's page function (the real one still runs) to record its thread."""
    real: Callable[..., Any] = getattr(obj, name)

    def recorded(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name if threading.current_thread() is not threading.main_thread()
                       else "GUI")
        return real(*args, **kwargs)

    setattr(obj, name, recorded)


def _resume_at(services: StoreServices, rule_id: int) -> None:
    settings = make_settings()
    session_state.save(settings, services.path, session_state.SessionState(tab="Review", rule_id=rule_id))
    settings.sync()


def _window(qtbot: Any, services: StoreServices, runner: JobRunner) -> MainWindow:
    window = MainWindow(services, runner, make_settings(), open_services)
    qtbot.addWidget(window)
    window.show()
    return window


def _held(obj: Any, name: str) -> threading.Event:
    """Make ``obj.name`` wait (on its worker) until the returned event is set, at most 10 s."""
    gate = threading.Event()
    real = getattr(obj, name)
    setattr(obj, name, lambda *a, **k: (gate.wait(10), real(*a, **k))[1])
    return gate


def _rule_ids(services: StoreServices) -> list[int]:
    from core.store.workspace_query import WorkspaceFilter, WorkspaceScope

    page = services.results.page_groups(WorkspaceScope(), WorkspaceFilter(), None, order_by="rule", limit=1000)
    return [rule.rule_id for rule in page.rows]


def test_building_the_window_reads_no_table_page_on_the_gui_thread(qtbot: Any, replayed: StoreServices,
                                                                   runner: JobRunner) -> None:
    preset_reviewer()
    _resume_at(replayed, _rule_ids(replayed)[4])
    pages: list[str] = []
    _record_threads(replayed.results, "page_groups", pages)
    _record_threads(replayed.corpora, "list_trajectories", pages)
    _record_threads(replayed.corpora, "list_corpora", pages)
    with GuiThreadStatements(replayed.store.engine) as guard:
        window = _window(qtbot, replayed, runner)
        guard.step = "the first event-loop turns"
        qtbot.waitUntil(lambda: window.rule_model.rowCount() > 0 and window.trajectory_model.rowCount() > 0,
                        timeout=10_000)
        wait_idle(window)
    try:
        assert not guard.seen, guard.report()
        assert len(pages) >= 3 and "GUI" not in pages, pages
    finally:
        window.close()


def test_the_window_says_loading_until_the_pages_arrive(qtbot: Any, replayed: StoreServices,
                                                       runner: JobRunner) -> None:
    window = _window(qtbot, replayed, runner)
    try:
        assert window.first_pages_loading and window.rule_model.rowCount() == 0
        assert window.table_panel.count_label.text() == "loading…"
        assert window.workspace.rules.progress_label.text() == "loading rules…"
        qtbot.waitUntil(lambda: not window.first_pages_loading, timeout=10_000)
        assert window.table_panel.count_label.text().endswith("trajectories")
        assert window.workspace.rules.progress_label.text().endswith("reviewed")
    finally:
        window.close()


def test_the_session_rule_is_selected_once_its_page_arrives(qtbot: Any, replayed: StoreServices,
                                                           runner: JobRunner) -> None:
    preset_reviewer()
    wanted = _rule_ids(replayed)[4]
    _resume_at(replayed, wanted)
    window = _window(qtbot, replayed, runner)
    try:
        assert window.workspace.rules.current_rule_id() is None  # nothing read at construction
        qtbot.waitUntil(lambda: window.workspace.rules.current_rule_id() == wanted, timeout=10_000)
        assert window.tabs.currentWidget() is window.workspace
        qtbot.waitUntil(lambda: window.review.rule is not None and window.review.rule.rule_id == wanted,
                        timeout=10_000)
    finally:
        window.close()


@pytest.fixture(scope="module")
def many_rules_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """More rules than one page: each failure carries its own expected_rule (no duplicates)."""
    path = tmp_path_factory.mktemp("many-rules") / "store.sqlite"
    root = path.parent / "corpus"
    write_jsonl(root / "failures" / "many.jsonl", [
        trajectory(f"F-{i:03d}", task=f"Task number {i}", expected_rule=f"when job {i} fails, rerun stage {i} alone")
        for i in range(MANY_RULES)])
    build_replayed_store(path, [root])
    return path


@pytest.fixture()
def many_rules(many_rules_template: Path, tmp_path: Path) -> Iterator[tuple[StoreServices, int]]:
    """A copy of the many-rules store whose session resumes at its last rule (beyond the
    first page: that rule's group is read after the page lands)."""
    shutil.copy(many_rules_template, tmp_path / "store.sqlite")
    services = open_services(tmp_path / "store.sqlite")
    try:
        preset_reviewer()
        restored = _rule_ids(services)[-1]
        _resume_at(services, restored)
        yield services, restored
    finally:
        services.close()


def test_a_click_before_the_restore_lands_wins(qtbot: Any, many_rules: tuple[StoreServices, int],
                                              runner: JobRunner) -> None:
    services, _restored = many_rules
    gate = _held(services.results, "rule_group")
    window = _window(qtbot, services, runner)
    try:
        rules = window.workspace.rules
        qtbot.waitUntil(lambda: rules.model.rowCount() > 0, timeout=10_000)
        target = rules.model.index(3, 1)
        rect = rules.view.visualRect(target)
        qtbot.mouseClick(rules.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        clicked = rules.model.rule(3).rule_id
        assert rules.current_rule_id() == clicked
        gate.set()  # the restore's look-up of the session rule now lands
        wait_idle(window)
        assert rules.current_rule_id() == clicked
    finally:
        gate.set()
        window.close()


def test_without_a_click_the_session_rule_beyond_the_first_page_is_selected(
        qtbot: Any, many_rules: tuple[StoreServices, int], runner: JobRunner) -> None:
    services, restored = many_rules
    window = _window(qtbot, services, runner)
    try:
        qtbot.waitUntil(lambda: window.workspace.rules.current_rule_id() == restored, timeout=15_000)
    finally:
        window.close()


def test_a_rule_asked_for_while_the_page_is_read_wins_over_the_session_rule(
        qtbot: Any, replayed: StoreServices, runner: JobRunner) -> None:
    preset_reviewer()
    ids = _rule_ids(replayed)
    _resume_at(replayed, ids[4])
    gate = _held(replayed.results, "page_groups")
    window = _window(qtbot, replayed, runner)
    try:
        rules = window.workspace.rules
        assert rules.model.loading and rules.model.rowCount() == 0
        rules.select_rule(ids[6])  # e.g. "show in Review" from another tab, before the page is in
        gate.set()
        qtbot.waitUntil(lambda: not window.first_pages_loading, timeout=10_000)
        wait_idle(window)
        assert rules.current_rule_id() == ids[6]
    finally:
        gate.set()
        window.close()
