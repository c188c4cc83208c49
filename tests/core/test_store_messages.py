"""Store messages that point the right way (issue 25 item 8, import/store part): a full disk
is called a full disk, and a refused store leaves no -wal/-shm beside it."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import core.importing
from core.cli import main
from core.store.engine import is_disk_full, open_store, store_error_line


def _sqlite_full_error(tmp_path: Path) -> sqlite3.OperationalError:
    """A real SQLITE_FULL: a database capped at a few pages, filled past them."""
    connection = sqlite3.connect(tmp_path / "tiny.sqlite")
    connection.execute("CREATE TABLE t (x TEXT)")
    connection.execute("PRAGMA max_page_count = 3")
    try:
        connection.execute("INSERT INTO t VALUES (?)", ("x" * 100_000,))
    except sqlite3.OperationalError as error:
        return error
    finally:
        connection.close()
    raise AssertionError("SQLite did not report a full database")


def test_a_full_disk_is_named_as_such(tmp_path: Path) -> None:
    error = _sqlite_full_error(tmp_path)
    assert is_disk_full(error)
    line = store_error_line(tmp_path / "s.sqlite", error)
    assert line.startswith("the disk is full") and "could not be used" not in line


def test_import_on_a_full_disk_says_the_disk_is_full_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    full = _sqlite_full_error(tmp_path)

    def fill_up(*_args: object, **_kwargs: object) -> None:
        import sqlalchemy.exc

        raise sqlalchemy.exc.OperationalError("INSERT INTO trajectory ...", {}, full)

    monkeypatch.setattr(core.importing, "import_paths", fill_up)
    (tmp_path / "corpus").mkdir()
    code = main(["import", str(tmp_path / "corpus"), "--store", str(tmp_path / "s.sqlite")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: the disk is full") and err.count("\n") == 1


def test_a_too_new_store_is_refused_without_creating_wal_or_shm(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    open_store(path).close()
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA user_version = 999")
    connection.close()
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["corpora", "--store", str(path)]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == before == ["s.sqlite"]


def _can_mount_tmpfs(folder: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o size=1m tmpfs '{folder}'"],
                           capture_output=True)
    return probe.returncode == 0


def test_an_import_onto_a_really_full_disk_says_the_disk_is_full(tmp_path: Path) -> None:
    from tests.drills.stores import record

    mount = tmp_path / "small"
    mount.mkdir()
    if not _can_mount_tmpfs(mount):
        pytest.skip("no unprivileged tmpfs mount here (unshare -rm)")
    corpus = tmp_path / "corpus" / "failures"
    corpus.mkdir(parents=True)
    for f in range(20):  # ~4 MB of records for a 2 MB disk
        rows = [json.dumps(dict(record(i, "full", success=False), task="t" * 2_000)) for i in range(f * 100, f * 100 + 100)]
        (corpus / f"part-{f}.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    script = (f"mount -t tmpfs -o size=2m tmpfs '{mount}' && exec '{sys.executable}' -m core.cli import "
              f"'{tmp_path / 'corpus'}' --store '{mount / 's.sqlite'}'")
    result = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert result.returncode == 2
    assert result.stderr.startswith("error: the disk is full") and result.stderr.count("\n") == 1, result.stderr
