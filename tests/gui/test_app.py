"""The composition root: ``cauterule-gui --screenshot`` and store errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage

from cauterule_gui import app
from cauterule_gui.jobs import JobRunner
from cauterule_gui.jobs.runner import work_left_behind


def test_screenshot_writes_a_png_of_the_loaded_window(qapp: Any, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[JobRunner] = []  # the app's own runner, kept to check its pools afterwards

    def runner(*args: Any, **kwargs: Any) -> JobRunner:
        made.append(JobRunner(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(app, "JobRunner", runner)
    png = tmp_path / "window.png"
    code = app.main(["--store", str(tmp_path / "s.sqlite"), "--screenshot", str(png)])
    assert code == 0
    image = QImage(str(png))
    assert png.stat().st_size > 0 and not image.isNull() and image.width() > 800
    assert len(made) == 1 and work_left_behind(0, made) == []


def test_first_start_never_imports_the_demo_into_the_store(qapp: Any, tmp_path: Path) -> None:
    from cauterule_gui.services import open_services

    store = tmp_path / "mine.sqlite"
    assert app.main(["--store", str(store), "--screenshot", str(tmp_path / "w.png")]) == 0
    services = open_services(store)
    try:
        assert services.corpora.list_corpora() == []
    finally:
        services.close()


def test_store_too_new_exits_1_with_a_message(qapp: Any, tmp_path: Path, capsys: Any) -> None:
    store = tmp_path / "future.sqlite"
    connection = sqlite3.connect(store)
    connection.execute("PRAGMA application_id = 1129469762")  # the Workbench's mark, from a future version
    connection.execute("PRAGMA user_version = 9999")
    connection.close()
    png = tmp_path / "never.png"
    assert app.main(["--store", str(store), "--screenshot", str(png)]) == 1
    assert "newer" in capsys.readouterr().err
    assert not png.exists()


def test_qt_calls_do_not_leak_references_to_none(qtbot) -> None:
    """PySide6 6.12.0 drops a reference to None on every void call under Python 3.11, which
    aborts the app after a few minutes of use; pyproject.toml excludes it. This fails if a
    release with that bug is installed."""
    import sys

    from PySide6.QtWidgets import QLabel

    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(500):
        label.setText("x")
    assert sys.getrefcount(None) - before > -50


def test_a_store_open_in_another_workbench_is_refused_and_left_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cauterule_gui.services import open_services

    path = tmp_path / "shared.sqlite"
    first = open_services(path)
    before = path.read_bytes()
    try:
        png = tmp_path / "never.png"
        assert app.main(["--store", str(path), "--screenshot", str(png)]) == 1
        assert "open in another Workbench" in capsys.readouterr().err
        assert not png.exists() and path.read_bytes() == before
    finally:
        first.close()
    second = open_services(path)  # released on close: the next window may open it
    second.close()
