"""File ▸ Export rule store into a folder another export is writing (issue 24): one plain
sentence that says who holds it and what to do, never "ExportBusyError: …"."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from core.export import atomic

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.export_actions import export_rule_store_interactive
from cauterule_gui.jobs import JobRunner
from cauterule_gui.services import StoreServices


def test_a_busy_folder_is_one_sentence_naming_the_holder(qtbot: Any, services: StoreServices, runner: JobRunner,
                                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(atomic, "LOCK_WAIT_SECONDS", 0.2)  # the real wait is a minute
    out = tmp_path / "exported"
    taken, release = threading.Event(), threading.Event()

    def other_export() -> None:
        with atomic.export_lock(out):
            taken.set()
            release.wait(20)

    holder = threading.Thread(target=other_export)
    holder.start()
    reports: list[tuple[str, str, bool]] = []
    try:
        assert taken.wait(10)
        db = DatabaseExecutor(runner, lambda: services)
        export_rule_store_interactive(None, db, choose_folder=lambda _p: out,
                                      report=lambda _p, title, text, error: reports.append((title, text, error)))
        qtbot.waitUntil(lambda: bool(reports), timeout=15_000)
    finally:
        release.set()
        holder.join(10)
    title, text, is_error = reports[-1]
    assert is_error and "busy" in title
    assert "Error" not in text and "Traceback" not in text
    assert f"process {os.getpid()} " in text and str(out) in text and "export again" in text
    assert "\n" not in text  # one sentence
    runner.wait_for_done(5000)
