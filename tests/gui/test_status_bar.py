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
    assert message in shown.toolTip().replace("\xa0", " ")  # elided on screen, whole in the (plain-text) tooltip
    assert not shown.geometry().intersects(store.geometry())
    reviewer = window.findChild(QLabel, "reviewerName")
    assert reviewer is not None and not reviewer.geometry().intersects(store.geometry())
    assert store.width() >= store.minimumWidth() > 0


def test_the_status_bar_never_makes_the_window_wider(qtbot: Any, window: MainWindow) -> None:
    """Every section at its longest and both jobs on screen: the tabs, not the status bar, set
    the window's minimum width (the bar used to ask 1,000 px for a reviewer name and a model
    state), and at 1280 px no two sections overlap."""
    long = "a-very-long-reviewer-name-" * 8
    window.reviewer_label.set_full_text(f"Reviewer: {long}")
    window.model_label.set_full_text("semantic matching unavailable: " + "the model could not be loaded " * 6)
    window.store_label.set_full_text("Store: /home/reviewer/" + "deeply/nested/" * 20 + "store.sqlite")
    window.statusBar().showMessage("Replay run #7 complete: " + "x" * 400)
    for progress in (window.progress, window.replay_progress):
        progress.label.set_full_text("Replaying every rule of every corpus: scoring 368 / 469 pairs, ETA 3 min")
        progress.eta_label.set_full_text("ETA 3 min")
        progress.show()
    assert window.statusBar().minimumSizeHint().width() <= window.centralWidget().minimumSizeHint().width()
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    sections = [window.statusBar().findChild(QLabel, name) for name in ("storePath", "reviewerName", "modelState")]
    assert all(s is not None and s.width() >= s.minimumWidth() > 0 for s in sections)
    for left, right in zip(sections, sections[1:]):
        assert left is not None and right is not None and not left.geometry().intersects(right.geometry())
    assert long in window.reviewer_label.toolTip()  # elided on screen, whole in the tooltip


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
