"""Bad store files in the GUI: a dialog naming the problem, the file unchanged (defects 7, 8)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox

from core.store.engine import StoreLockedError

from cauterule_gui import app
from cauterule_gui.main_window import MainWindow
from cauterule_gui.services import open_services
from tests.drills.bad_stores import VARIANTS, fingerprint

TITLES = {
    "random bytes": "Not a Workbench store", "text file": "Not a Workbench store", "folder": "Not a Workbench store",
    "truncated": "Store is damaged", "corrupted pages": "Store is damaged",
    "foreign database": "Not a Workbench store", "foreign database with a version": "Not a Workbench store",
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_opening_a_bad_store_shows_a_dialog_and_keeps_the_current_store(
    qtbot: Any, window: MainWindow, tmp_path: Path, variant: str
) -> None:
    path = tmp_path / "bad.sqlite"
    VARIANTS[variant](path)
    before = fingerprint(path)
    current = window.services
    assert window.switch_store(path) is False
    qtbot.waitUntil(lambda: any(b.isVisible() for b in window.findChildren(QMessageBox)), timeout=5000)
    box = next(b for b in window.findChildren(QMessageBox) if b.isVisible())
    assert box.windowTitle() == TITLES[variant]
    assert str(path) in box.text()
    box.close()
    assert window.services is current
    assert fingerprint(path) == before
    assert not Path(str(path) + ".lock").exists()


def test_a_foreign_database_given_at_start_exits_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "photos.sqlite"
    VARIANTS["foreign database"](path)
    before = fingerprint(path)
    png = tmp_path / "never.png"
    assert app.main(["--store", str(path), "--screenshot", str(png)]) == 1
    err = capsys.readouterr().err
    assert "Not a Workbench store" in err and err.count("\n") == 1
    assert fingerprint(path) == before and not png.exists()


def test_the_lock_owner_is_named_with_its_pid_and_host(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    first = open_services(path)
    try:
        with pytest.raises(StoreLockedError) as caught:
            open_services(path)
    finally:
        first.close()
    assert f"process {os.getpid()} on {socket.gethostname()}" in str(caught.value)
