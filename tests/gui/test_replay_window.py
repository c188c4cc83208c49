"""Replay from the window: a CPU job with progress, ETA and cancel; results appear as they
finish; run history; what-if; and the GUI thread keeps turning (its worst stall, in
milliseconds, is benchmarks/gui_stall.py's figure)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import build_replayed_store, preset_reviewer, wait_idle
from PySide6.QtCore import Qt, QTimer

from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.services import open_services
from cauterule_gui.settings import make_settings


class Heartbeat:
    """A 10 ms timer on the GUI thread, counting its ticks: ticks during a run mean the event loop
    kept turning. How long the worst gap was is a figure of ``benchmarks/gui_stall.py`` (a shared
    machine makes any bound on it here a test of the machine, not of the code)."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self._tick)
        self.ticks = 0

    def start(self) -> None:
        self.timer.start()

    def _tick(self) -> None:
        self.ticks += 1

    def stop(self) -> None:
        self.timer.stop()


@pytest.fixture
def big_window(qtbot: Any, tmp_path: Path, demo_corpus: Path, runner: JobRunner) -> Iterator[MainWindow]:
    """The demo corpus imported twice (86 trajectories, 62 rules: 5,332 pairs per full replay)."""
    path = tmp_path / "big.sqlite"
    build_replayed_store(path, [demo_corpus], copies=2)
    services = open_services(path)
    preset_reviewer()
    window = MainWindow(services, runner, make_settings(), open_services)
    qtbot.addWidget(window)
    window.replay.set_semantic(False)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: not window.first_pages_loading, timeout=10_000)  # read off the GUI thread
    yield window
    window.close()
    services.close()


def test_the_gui_thread_keeps_turning_and_results_arrive_while_replaying(
        qtbot: Any, big_window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    window = big_window
    window.workspace.rules.select_row(3)
    window.replay.process.start()  # as the app does at start-up
    arrivals: list[int] = []
    live: list[bool] = []
    ended: list[bool] = []

    def on_loaded() -> None:
        # The table's rows are read off the GUI thread after each arrival: results are in the
        # table before the window has handled the run's end.
        rows = [window.rule_model.rule(r) for r in range(window.rule_model.rowCount())]
        live.append(not ended and any(r.run_id in arrivals for r in rows))

    window.replay.results_arrived.connect(arrivals.append)
    window.rule_model.loaded.connect(on_loaded)
    # A short run can end before a chunk's table read lands (more so on a loaded machine): the
    # window's handling of the end is held (up to 60 s) until a read has shown the run's rows.
    finish = window.replay._on_finished
    deadline = time.monotonic() + 60

    def finish_after_a_live_read() -> None:
        if any(live) or time.monotonic() > deadline:
            ended.append(True)
            finish()
        else:
            QTimer.singleShot(50, finish_after_a_live_read)

    monkeypatch.setattr(window.replay, "_on_finished", finish_after_a_live_read)  # connected by start()
    beat = Heartbeat()
    beat.start()
    with qtbot.waitSignal(window.replay.replay_done, timeout=120_000):
        handle = window.replay.start("everything", None, materialise_expected=True)
        assert handle is not None
    beat.stop()
    done = window.replay.last_done
    assert done is not None and done.status == "complete" and done.pairs >= 3000
    assert arrivals, "results must arrive as chunks finish, before the run ends"
    assert any(live), (done.seconds, live)
    assert beat.ticks > 10
    # The table now shows the new run's results; the history lists both runs (both re-read
    # through the executor after the run: wait for them).
    wait_idle(window)
    assert {window.rule_model.rule(r).run_id for r in range(window.rule_model.rowCount())} == {done.run_id}
    assert window.history.model.rowCount() == 2


def test_cancel_stops_the_run_and_the_table_keeps_complete_results(qtbot: Any, big_window: MainWindow) -> None:
    window = big_window
    with qtbot.waitSignal(window.replay.replay_done, timeout=120_000):
        window.replay.start("everything", None)
        assert window.replay_progress.cancel_button.isEnabled()
        window.replay_progress.cancel_button.click()
    # Cancelled before its first chunk: no complete run was added, and the table still
    # reviews the complete results it had.
    wait_idle(window)
    assert window.replay.last_done is None or window.replay.last_done.status == "cancelled"
    runs = window.services.replays.runs()
    assert [r.status for r in runs if r.status == "complete"] == ["complete"]
    assert {window.rule_model.rule(r).run_status for r in range(window.rule_model.rowCount())} == {"complete"}
    assert not window.replay.running


def test_replaying_the_selection_shows_progress_and_a_second_run(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    rules = window.workspace.rules
    rules.view.selectRow(0)
    rules.view.selectionModel().select(rules.model.index(1, 0), rules.view.selectionModel().SelectionFlag.Select |
                                       rules.view.selectionModel().SelectionFlag.Rows)
    assert len(rules.selected_rule_ids()) == 2
    progress: list[tuple[int, int]] = []
    with qtbot.waitSignal(window.replay.replay_done, timeout=60_000):
        qtbot.keyClick(rules.view, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
        assert window.replay.handle is not None
        window.replay.handle.progress.connect(lambda d, t, _m: progress.append((d, t)))
    assert window.replay.last_done.rules == 2 and window.replay.last_done.status == "complete"
    assert progress and progress[-1][0] == progress[-1][1]
    wait_idle(window)  # the history and the table are read through the executor
    assert window.history.model.rowCount() == 2
    assert window.history.model.index(0, 9).data().startswith("gui: selection (2 rules)")  # Scope, after By
    # Choosing the new run in the history shows only its two rules.
    window.history.run_activated.emit(window.replay.last_done.run_id)
    wait_idle(window)
    assert window.rule_model.rule_total == 2 and "run #2" in rules.scope_label.text()
    rules.latest_button.click()
    wait_idle(window)
    assert window.rule_model.rule_total == 31


def test_what_if_saves_a_version_replays_it_and_lists_moves(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    rules = window.workspace.rules
    rules.model.fetch_all()
    row = next(r for r in range(rules.model.rowCount()) if rules.model.rule(r).prevented_n >= 2)
    rules.select_row(row)
    rule = rules.current_rule()
    qtbot.keyClick(rules.view, Qt.Key.Key_E)
    qtbot.waitUntil(lambda: window.whatif.dialog is not None, timeout=10_000)  # the rule's text is read first
    dialog = window.whatif.dialog
    assert dialog is not None and dialog.isVisible()
    dialog.trigger_edit.setPlainText("when the moon is blue and the owls are singing")
    with qtbot.waitSignal(window.replay.replay_done, timeout=60_000):
        dialog.apply_button.click()
    qtbot.waitUntil(lambda: dialog.moves.count() > 0, timeout=5000)
    lines = [dialog.moves.item(i).text() for i in range(dialog.moves.count())]
    assert any("✓ prevented → ○ missed" in line for line in lines), lines  # the failures it no longer catches
    assert any("→ · no effect" in line for line in lines), lines
    assert "v1 → v2" in dialog.state_label.text()
    versions = window.services.rules.versions(rule.rule_id)
    assert [v.version for v in versions] == [1, 2] and versions[1].author == "tester"
    assert "edit_rule" in [e.action for e in window.services.reviews.rule_audit(rule.rule_id)]
    wait_idle(window)
    assert rules.select_rule(rule.rule_id)
    assert rules.current_rule().version == 2  # the table shows the new version's result
    dialog.close()


def test_a_replay_from_the_window_runs_the_adopted_profile_and_says_which(qtbot: Any,
                                                                          review_window: MainWindow) -> None:
    """Issue 26: the window's default is the store's adopted profile; the status line names the run's profile."""
    from core.replay.profiles import WORKBENCH
    from core.store.profile_repo import ProfileRepository

    window = review_window
    ProfileRepository(window.services.store).add("team", WORKBENCH.with_(threshold=0.7), "lee")
    messages: list[str] = []
    window.replay.status_message.connect(messages.append)
    rules = window.workspace.rules
    rules.view.selectRow(0)
    with qtbot.waitSignal(window.replay.replay_done, timeout=60_000):
        qtbot.keyClick(rules.view, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert window.replay.last_done.status == "complete"
    assert any(m.startswith(f"Replay run #{window.replay.last_done.run_id} complete (profile team@1)")
               for m in messages), messages
