"""The status bar (issue 24 item 5): a message never runs into the store path (separate
widgets), and a job's bar says what it counts ("368 / 469 pairs")."""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtWidgets import QLabel

from cauterule_gui.jobs import JobRunner
from cauterule_gui.jobs.runner import JobContext
from cauterule_gui.main_window import MainWindow
from cauterule_gui.panels.import_dialogs import JobProgressWidget


def test_a_long_message_and_the_store_path_are_separate_widgets(qtbot: Any, window: MainWindow) -> None:
    window.resize(1280, 800)
    message = "Replay run #7 complete: 469 rules, 12,345 pairs; trajectory F-010-deploy-" + "x" * 300
    window.statusBar().showMessage(message, 10_000)
    store = window.findChild(QLabel, "storePath")
    shown = window.findChild(QLabel, "statusMessage")
    assert store is not None and shown is not None and store is not shown
    assert store.text().startswith("Store: ")  # the path's own label, never the message's tail
    assert "Store:" not in shown.text()
    assert window.statusBar().currentMessage() == message
    assert shown.toolTip() == message  # elided on screen, whole in the tooltip
    assert not shown.geometry().intersects(store.geometry())
    reviewer = window.findChild(QLabel, "reviewerName")
    assert reviewer is not None and not reviewer.geometry().intersects(store.geometry())
    assert store.width() >= store.minimumWidth() > 0


def test_the_bar_names_its_unit(qtbot: Any, runner: JobRunner) -> None:
    widget = JobProgressWidget()
    qtbot.addWidget(widget)
    release = threading.Event()

    def job(ctx: JobContext) -> None:
        ctx.progress(368, 469, "pairs")
        release.wait(10)

    handle = runner.submit(job, name="progress unit")
    widget.track(handle, "Replaying everything", unit=lambda message: message or "pairs")
    qtbot.waitUntil(lambda: widget.bar.format() == "368 / 469 pairs", timeout=5000)
    release.set()
    qtbot.waitUntil(lambda: not handle.running, timeout=5000)
