"""GUI test fixtures: each test gets its own store, settings file and job runner.

Settings are redirected to ``tmp_path`` (INI), never the user's config. The runner fixture
cancels and waits for every job at teardown, and a guard checks after each test that no job
runner's pools (the app's own QThreadPools) still run work.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gui_records import trajectory, write_jsonl
from PySide6.QtCore import QSettings

from core.importing import import_paths

from cauterule_gui.jobs import JobRunner
from cauterule_gui.jobs.runner import work_left_behind
from cauterule_gui.main_window import MainWindow
from cauterule_gui.services import StoreServices, open_services
from cauterule_gui.settings import configure_application_names, make_settings


@pytest.fixture(autouse=True)
def temp_settings(tmp_path: Path) -> Iterator[Path]:
    settings_dir = tmp_path / "settings"
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(settings_dir))
    configure_application_names()
    # Tests start on the working tabs; the welcome page has its own tests.
    from cauterule_gui.settings import KEY_WELCOME

    settings = make_settings()
    settings.setValue(KEY_WELCOME, False)
    settings.sync()
    yield settings_dir


@pytest.fixture
def services(tmp_path: Path) -> Iterator[StoreServices]:
    opened = open_services(tmp_path / "store.sqlite")
    yield opened
    opened.close()


@pytest.fixture
def corpus_root(tmp_path: Path) -> Path:
    root = tmp_path / "corpora"
    write_jsonl(root / "failures" / "deploy.jsonl", [
        trajectory("F-001-rollout-timeout", task="Roll out the payments service", domain="k8s",
                   expected_rule="when a rollout times out, check the readiness probe"),
        trajectory("F-002-push-rejected", task="Push the release branch", domain="git",
                   failure_class="git/push/rejected", failure_point="step_1"),
        trajectory("F-003-pip-conflict", task="Install the test extras", domain="python",
                   failure_class="python/pip/conflict"),
    ])
    write_jsonl(root / "successes" / "ok.jsonl", [
        trajectory("S-001-clean-deploy", success=True, failure_class=None, failure_point=None, domain="k8s"),
        trajectory("S-002-status", task="Show git status", success=True, failure_class=None,
                   failure_point=None, domain="git"),
    ])
    return root


@pytest.fixture
def populated(services: StoreServices, corpus_root: Path) -> StoreServices:
    """The store with the small corpus imported synchronously (the core function, no Qt)."""
    import_paths(services.store, [corpus_root])
    return services


@pytest.fixture
def runner(qapp: Any) -> Iterator[JobRunner]:
    job_runner = JobRunner()
    yield job_runner
    assert job_runner.shutdown(5000), "jobs still running at teardown"


@pytest.fixture
def window(qtbot: Any, populated: StoreServices, runner: JobRunner) -> Iterator[MainWindow]:
    main_window = MainWindow(populated, runner, make_settings(), open_services)
    qtbot.addWidget(main_window)
    main_window.show()
    qtbot.waitUntil(lambda: not main_window.first_pages_loading, timeout=10_000)  # read off the GUI thread
    yield main_window
    main_window.close()


# -- review workspace fixtures ---------------------------------------------------------
REVIEWER = "tester"


def build_replayed_store(path: Path, corpora: list[Path], copies: int = 1) -> None:
    """Import ``corpora`` (each ``copies`` times, under different names), make candidates of
    every expected_rule and replay with the workbench profile, semantic off (hermetic, fast)."""
    import shutil

    from core.replay.profiles import WORKBENCH
    from core.replaying import materialise_expected_rules, run_replay
    from core.store.engine import open_store

    roots: list[Path] = []
    for corpus in corpora:
        for i in range(copies):
            if i == 0:
                roots.append(corpus)
                continue
            copy = path.parent / f"copy{i}" / corpus.name
            shutil.copytree(corpus, copy, dirs_exist_ok=True)
            roots.append(copy.parent)
    store = open_store(path)
    try:
        import_paths(store, roots)
        materialise_expected_rules(store)
        run_replay(store, WORKBENCH.with_(semantic=False), scope="test")
    finally:
        store.close()


@pytest.fixture(scope="session")
def replayed_template(tmp_path_factory: pytest.TempPathFactory, demo_corpus: Path) -> Path:
    path = tmp_path_factory.mktemp("template") / "replayed.sqlite"
    build_replayed_store(path, [demo_corpus])
    return path


@pytest.fixture
def replayed(tmp_path: Path, replayed_template: Path) -> Iterator[StoreServices]:
    """A private copy of the demo store, replayed once (run #1, complete)."""
    import shutil

    target = tmp_path / "replayed.sqlite"
    shutil.copy(replayed_template, target)
    opened = open_services(target)
    yield opened
    opened.close()


def preset_reviewer(name: str = REVIEWER) -> None:
    from cauterule_gui.reviewer import KEY_REVIEWER

    settings = make_settings()
    settings.setValue(KEY_REVIEWER, name)
    settings.sync()


def shown_window(qtbot: Any, services: StoreServices, runner: JobRunner) -> MainWindow:
    """A window over ``services`` as a reviewer sees it: lexical replay, shown, exposed and active."""
    main_window = MainWindow(services, runner, make_settings(), open_services)
    qtbot.addWidget(main_window)
    main_window.replay.set_semantic(False)
    main_window.show()
    qtbot.waitExposed(main_window)
    main_window.activateWindow()
    qtbot.waitUntil(lambda: not main_window.first_pages_loading, timeout=10_000)  # read off the GUI thread
    return main_window


@pytest.fixture
def review_window(qtbot: Any, replayed: StoreServices, runner: JobRunner) -> Iterator[MainWindow]:
    preset_reviewer()
    main_window = shown_window(qtbot, replayed, runner)
    main_window.workspace.rules.select_row(0)
    main_window.workspace.rules.view.setFocus()
    yield main_window
    main_window.close()


def assert_no_work_left(runners: list[JobRunner] | None = None, msecs: int = 5000) -> None:
    """Fail when a job runner's pools (default: every live runner's) still run work after ``msecs``."""
    left = work_left_behind(msecs, runners)
    assert not left, f"pool work left behind: {left}"


@pytest.fixture(autouse=True)
def nothing_left_behind(qapp: Any) -> Iterator[None]:
    """After each test (pytest-qt has closed its widgets by then): no pool work, no window."""
    yield
    from PySide6.QtWidgets import QApplication

    assert_no_work_left()
    qapp.processEvents()
    visible = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
    assert not visible, f"windows left open: {[type(w).__name__ + ':' + w.windowTitle() for w in visible]}"


def wait_idle(target: Any, timeout_ms: int = 30_000) -> None:
    """Wait (event loop running, no QTest.qWait) until a window's or runner's jobs are done: reads
    and writes go through the executor now, so what a key press shows arrives a turn later."""
    import time

    from PySide6.QtCore import QEventLoop, QTimer

    runner = getattr(target, "runner", target)
    deadline = time.monotonic() + timeout_ms / 1000
    quiet = 0
    while quiet < 2:  # idle twice in a row: a finished job's callback may start the next read
        loop = QEventLoop()
        QTimer.singleShot(15, loop.quit)
        loop.exec()
        quiet = quiet + 1 if not runner.is_busy() else 0
        if time.monotonic() > deadline:
            raise AssertionError(f"jobs still running: {[h.name for h in runner.active_jobs]}")
