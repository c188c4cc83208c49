"""Damage found without a full read on open: big stores get cheap checks now, the full one later."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.store import store_file
from core.store.engine import open_store
from core.store.store_file import CheckCancelled, StoreCorruptError, inspect_store_file, integrity_problem

from tests.drills.bad_stores import VARIANTS, _good_store, damage_last_page, fingerprint


@pytest.fixture()
def big_store_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Treat every file as bigger than the eager-check limit (the path a 760 MB store takes)."""
    monkeypatch.setattr(store_file, "EAGER_CHECK_BYTES", 0)


@pytest.mark.parametrize("variant", ["truncated", "corrupted pages"])
def test_a_big_store_that_is_truncated_or_damaged_throughout_is_refused_on_open(
    tmp_path: Path, variant: str, big_store_rules: None
) -> None:
    path = tmp_path / "store.sqlite"
    VARIANTS[variant](path)
    before = fingerprint(path)
    with pytest.raises(StoreCorruptError, match="damaged"):
        open_store(path)
    assert fingerprint(path) == before


def test_a_truncated_store_names_its_expected_size(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    _good_store(path)
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.truncate(size - 4096)
    with pytest.raises(StoreCorruptError, match=f"truncated: {size - 4096:,} bytes, its header says {size:,}"):
        inspect_store_file(path)


def test_damage_off_the_first_rows_is_left_to_the_full_check(tmp_path: Path, big_store_rules: None) -> None:
    path = tmp_path / "store.sqlite"
    _good_store(path)
    damage_last_page(path)
    inspect_store_file(path)  # cheap: opening is not held up by reading every page
    problem = integrity_problem(path)
    assert problem is not None and problem != "ok"


def test_the_same_damage_is_refused_on_open_when_the_file_is_small(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    _good_store(path)
    damage_last_page(path)
    with pytest.raises(StoreCorruptError, match="damaged"):
        inspect_store_file(path)


def test_a_sound_store_passes_the_full_check(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    _good_store(path)
    assert integrity_problem(path) is None


def test_the_full_check_stops_when_cancelled_midway(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    _good_store(path)
    connection = sqlite3.connect(path)
    connection.executemany("INSERT INTO setting (key, value_json) VALUES (?, ?)",
                           [(f"big{i}", "z" * 500) for i in range(20_000)])  # ~10 MB: many polls
    connection.commit()
    connection.close()
    polls: list[int] = []

    def cancelled() -> bool:
        polls.append(1)
        return len(polls) > 2  # not at the start: after the check has begun reading

    with pytest.raises(CheckCancelled):
        integrity_problem(path, cancelled=cancelled)
    assert len(polls) == 3


def test_a_store_with_uncheckpointed_wal_pages_is_not_called_truncated(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    _good_store(path)
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.executemany("INSERT INTO setting (key, value_json) VALUES (?, ?)", [(f"w{i}", "y" * 900) for i in range(300)])
    writer.commit()
    try:
        assert Path(f"{path}-wal").stat().st_size > 0
        inspect_store_file(path)
        assert integrity_problem(path) is None
    finally:
        writer.close()
