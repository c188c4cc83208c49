"""The window names stores by the same rules as ``--store``: refused with a reason, never ignored,
never a crash, never a new empty store by a typo, never a password on screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QInputDialog, QMessageBox

from cauterule_gui import app, team_store_dialog
from cauterule_gui.recent_stores import KEY_RECENT, recent_stores
from cauterule_gui.team_store_dialog import team_store_url


def test_another_databases_url_is_refused_without_its_password() -> None:
    with pytest.raises(ValueError) as refused:
        team_store_url("mysql://ana:s3cret@db/team")
    assert "not a store" in str(refused.value) and "s3cret" not in str(refused.value)


def test_a_file_path_typed_as_a_team_store_is_refused() -> None:
    with pytest.raises(ValueError, match="not a postgresql:// URL"):
        team_store_url("/home/ana/workbench.sqlite")


def test_a_team_store_url_keeps_its_password_for_connecting_only() -> None:
    url = team_store_url(" postgresql://ana:s3cret@db/team ")
    assert str(url) == "postgresql://ana@db/team" and url.connect_url == "postgresql://ana:s3cret@db/team"


def test_a_refused_team_store_url_says_why_in_a_message(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("mysql://ana:s3cret@db/team", True))
    shown: list[QMessageBox] = []
    monkeypatch.setattr(QMessageBox, "open", lambda box: shown.append(box))
    assert team_store_dialog.ask_team_store_url(None) is None
    assert len(shown) == 1 and "not a store" in shown[0].text() and "s3cret" not in shown[0].text()


def test_recent_stores_skip_entries_the_store_rules_refuse(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    store.write_bytes(b"")
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue(KEY_RECENT, ["mysql://ana:pw@db/x", str(tmp_path), f"{tmp_path}/", str(store)])
    assert recent_stores(settings) == [store]


def test_a_missing_store_named_at_start_is_not_created_when_the_reviewer_declines(
        qapp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    typo = tmp_path / "stroe.sqlite"
    monkeypatch.setattr(app, "_confirm_new_store", lambda path: False)
    assert app.main(["--store", str(typo)]) == 1
    assert f"no store at {typo}" in capsys.readouterr().err
    assert not typo.exists()
