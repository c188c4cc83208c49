"""Replay ▸ Embedding runtime: the replay children run the model with the chosen embedder
(given to each child in its environment when it starts); a child started under another choice
is never leased again, and a running job is never cut off by the change."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import make_settings, open_services

from core.embeddings import EMBEDDER_SETTING_ENV

from cauterule_gui.jobs import JobRunner
from cauterule_gui.jobs.replay_process import ReplayProcess
from cauterule_gui.main_window import MainWindow
from cauterule_gui.replay_controller import KEY_EMBEDDER
from cauterule_gui.services import StoreServices


@pytest.fixture
def process() -> Iterator[ReplayProcess]:
    made = ReplayProcess()
    yield made
    made.stop()


def _environment(pid: int) -> dict[str, str]:
    """The child's environment. Popen returns once exec has begun, a moment before the kernel
    has set the new environment's bounds (/proc reads empty then): wait for it to be there."""
    deadline = time.monotonic() + 10.0
    while True:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
        if raw or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    return dict(item.decode(errors="replace").split("=", 1) for item in raw.split(b"\0") if b"=" in item)


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_child_started_after_the_choice_runs_the_chosen_embedder(process: ReplayProcess) -> None:
    process.set_embedder("onnx")
    with process.lease() as worker:
        assert _environment(worker.pid)[EMBEDDER_SETTING_ENV] == "onnx"


def test_an_idle_child_started_under_another_choice_is_quit_not_leased(qtbot: Any, process: ReplayProcess) -> None:
    process.start()
    (before,) = process.pids
    process.set_embedder("onnx")
    with process.lease() as worker:
        assert worker.pid != before
    qtbot.waitUntil(lambda: _gone(before), timeout=15_000)


def test_a_busy_child_finishes_its_job_and_is_not_kept_after_the_choice_changes(process: ReplayProcess) -> None:
    with process.lease() as worker:
        busy = worker.pid
        process.set_embedder("onnx")
        assert worker.alive  # the running job is not cut off
    assert busy not in process.pids
    with process.lease() as worker:
        assert worker.pid != busy and _environment(worker.pid)[EMBEDDER_SETTING_ENV] == "onnx"


def test_without_a_choice_a_child_inherits_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                          process: ReplayProcess) -> None:
    monkeypatch.setenv(EMBEDDER_SETTING_ENV, "onnx-int8")
    with process.lease() as worker:
        assert _environment(worker.pid)[EMBEDDER_SETTING_ENV] == "onnx-int8"


def _window(qtbot: Any, services: StoreServices, runner: JobRunner) -> MainWindow:
    made = MainWindow(services, runner, make_settings(), open_services)
    qtbot.addWidget(made)
    return made


def test_the_menu_choice_is_saved_and_given_to_the_replay_children(
    qtbot: Any, populated: StoreServices, runner: JobRunner
) -> None:
    window = _window(qtbot, populated, runner)
    assert window.embedder_actions["torch"].isChecked()
    window.embedder_actions["onnx"].trigger()
    assert make_settings().value(KEY_EMBEDDER) == "onnx"
    assert window.replay.process.embedder == "onnx"
    assert window.embedder_actions["onnx"].isChecked() and not window.embedder_actions["torch"].isChecked()


def test_the_next_window_starts_with_the_saved_choice(qtbot: Any, populated: StoreServices, runner: JobRunner) -> None:
    settings = make_settings()
    settings.setValue(KEY_EMBEDDER, "onnx")
    settings.sync()
    window = _window(qtbot, populated, runner)
    assert window.embedder_actions["onnx"].isChecked()
    assert window.replay.process.embedder == "onnx"


def test_without_a_choice_the_menu_shows_the_environments_embedder(
    monkeypatch: pytest.MonkeyPatch, qtbot: Any, populated: StoreServices, runner: JobRunner
) -> None:
    monkeypatch.setenv(EMBEDDER_SETTING_ENV, "onnx")
    window = _window(qtbot, populated, runner)
    assert window.embedder_actions["onnx"].isChecked()
    assert window.replay.process.embedder is None  # the children inherit the environment's


def test_a_damaged_saved_choice_is_ignored_not_handed_to_the_children(
    qtbot: Any, populated: StoreServices, runner: JobRunner
) -> None:
    settings = make_settings()
    settings.setValue(KEY_EMBEDDER, "onnx; rm -rf ~\x1b[31m")
    settings.sync()
    window = _window(qtbot, populated, runner)
    assert window.embedder_actions["torch"].isChecked()
    assert window.replay.process.embedder is None
