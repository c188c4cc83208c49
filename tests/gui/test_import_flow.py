"""Import from the window: a job off the GUI thread, progress, and the rejection list."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import wait_idle
from gui_records import trajectory, write_jsonl

import core.importing

from cauterule_gui.main_window import MainWindow


@pytest.fixture
def folder_with_bad_lines(tmp_path: Path) -> Path:
    root = tmp_path / "incoming"
    write_jsonl(root / "mixed" / "a.jsonl", [
        trajectory("M-001-good"),
        '{"trajectory_id": "M-002-no-success", "timestamp": "2026-01-01T00:00:00Z", "task": "x", "steps": []}',
        "{not json",
        trajectory("M-004-good"),
    ])
    for i in range(3):
        write_jsonl(root / "more" / f"f{i}.jsonl", [trajectory(f"X-{i}")])
    return root


def test_import_job_runs_off_gui_thread_reports_progress_and_rejections(
    qtbot: Any, window: MainWindow, folder_with_bad_lines: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    original = core.importing.import_paths

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread())
        return original(*args, **kwargs)

    monkeypatch.setattr(core.importing, "import_paths", spy)
    progress: list[tuple[int, int, str]] = []
    with qtbot.waitSignal(window.importer.import_done, timeout=10_000):
        handle = window.importer.start([folder_with_bad_lines])
        assert handle is not None
        handle.progress.connect(lambda done, total, name: progress.append((done, total, name)))

    assert threads and threads[0] is not threading.main_thread()
    assert progress and progress[-1][0] == progress[-1][1] == 4  # four trajectory files
    dialog = window.importer.last_dialog
    assert dialog is not None and dialog.isVisible()
    rows = [
        tuple(dialog.model.index(r, c).data() for c in range(4)) for r in range(dialog.model.rowCount())
    ]
    assert {(file, line) for file, line, _field, _reason in rows} == {("mixed/a.jsonl", 2), ("mixed/a.jsonl", 3)}
    assert any(field == "success" for _f, _l, field, _r in rows)
    assert all(reason for *_rest, reason in rows)
    # The navigator was refreshed with the new corpora (read through the executor).
    wait_idle(window)
    names = [window.corpus_model.index(r, 0).data() for r in range(window.corpus_model.rowCount())]
    assert "mixed" in names and "more" in names
    dialog.close()
