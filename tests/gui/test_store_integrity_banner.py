"""A big store's full integrity check runs after the window opened; damage shows a banner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.store import store_file

from cauterule_gui.main_window import MainWindow
from tests.drills.bad_stores import _good_store, damage_last_page


@pytest.fixture()
def every_store_is_big(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file takes the big-store path (cheap checks on open, the full one in the background)."""
    monkeypatch.setattr(store_file, "EAGER_CHECK_BYTES", 0)


def test_damage_found_after_opening_shows_a_banner(
    qtbot: Any, window: MainWindow, tmp_path: Path, every_store_is_big: None
) -> None:
    path = tmp_path / "damaged.sqlite"
    _good_store(path)
    damage_last_page(path)
    assert window.switch_store(path) is True  # the window opens at once
    qtbot.waitUntil(lambda: window.integrity.banner.isVisible(), timeout=10_000)
    text = window.integrity.label.text()
    assert str(path) in text and "damaged" in text and "restore it from a backup" in text


def test_a_sound_big_store_shows_no_banner(
    qtbot: Any, window: MainWindow, tmp_path: Path, every_store_is_big: None
) -> None:
    path = tmp_path / "sound.sqlite"
    _good_store(path)
    assert window.switch_store(path) is True
    assert window.integrity.running
    qtbot.waitUntil(lambda: not window.integrity.running, timeout=10_000)
    assert not window.integrity.banner.isVisible()


def test_a_small_store_is_not_read_twice(window: MainWindow) -> None:
    # Opened through the fixture: a small file was read in full by the open itself.
    assert not window.integrity.running and not window.integrity.banner.isVisible()
