"""The loop's gate scan stays off the first window: it starts only when the Corpus tab shows
it, and closing the window (or switching the store) stops it at once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.importing import import_paths
from core.store.engine import open_store

from benchmarks.make_scale_corpus import generate
from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.services import StoreServices, open_services
from cauterule_gui.settings import make_settings

SCAN = "gate and taint"


def _started(runner: JobRunner) -> list[str]:
    names: list[str] = []
    runner.job_started.connect(lambda handle: names.append(handle.name))
    return names


def test_opening_the_window_does_not_start_the_gate_scan_until_its_view_is_shown(
        qtbot: Any, replayed: StoreServices, runner: JobRunner) -> None:
    started = _started(runner)
    window = MainWindow(replayed, runner, make_settings(), open_services)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert window.tabs.currentWidget() is not window.splitter
    qtbot.waitUntil(lambda: window.rule_model.rowCount() > 0 and not runner.is_busy(), timeout=30_000)
    assert SCAN not in started and window.loop.data is None
    window.tabs.setCurrentWidget(window.splitter)  # the gate panel and the Gate column appear
    qtbot.waitUntil(lambda: window.loop.data is not None, timeout=30_000)
    assert started.count(SCAN) == 1
    window.close()


@pytest.fixture
def big_services(tmp_path: Path, shared_corpus: Path) -> Iterator[StoreServices]:
    generate(3000, 5, seed=5, out=tmp_path / "corpus", source=shared_corpus)
    store = open_store(tmp_path / "big.sqlite")
    import_paths(store, [tmp_path / "corpus"])
    store.close()
    services = open_services(tmp_path / "big.sqlite")
    yield services
    services.close()


def test_closing_the_window_stops_a_running_gate_scan_at_once(
        qtbot: Any, big_services: StoreServices, runner: JobRunner) -> None:
    window = MainWindow(big_services, runner, make_settings(), open_services)
    qtbot.addWidget(window)
    window.show()
    window.tabs.setCurrentWidget(window.splitter)
    qtbot.waitUntil(lambda: window.loop.scanning, timeout=10_000)
    scan = window.loop._scan  # noqa: SLF001 - the handle under test
    progress: list[tuple[int, int]] = []
    scan.progress.connect(lambda done, total, _msg: progress.append((done, total)))
    qtbot.waitUntil(lambda: bool(progress), timeout=30_000)  # well inside the 3,000 records
    window.close()  # runner.shutdown: cancels every job, then waits for the pools
    assert runner.wait_for_done(30_000), f"work still running after close: {runner.work_left(0)}"
    # "At once" as work, not seconds: the scan stopped far from its end.
    done, total = progress[-1]
    assert done < total, progress[-3:]
    assert window.loop.data is None  # nothing was shown from a stopped scan


def test_switching_the_store_stops_a_running_gate_scan(
        qtbot: Any, big_services: StoreServices, runner: JobRunner, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    open_store(other).close()
    window = MainWindow(big_services, runner, make_settings(), open_services)
    qtbot.addWidget(window)
    window.show()
    window.tabs.setCurrentWidget(window.splitter)
    qtbot.waitUntil(lambda: window.loop.scanning, timeout=10_000)
    assert window.switch_store(other)  # refused ("work in progress") if the scan did not stop
    assert window.services is not big_services
    window.close()
    window.services.close()
