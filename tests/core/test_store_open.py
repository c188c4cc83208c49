"""Store files that are not usable stores are refused unchanged with one clear line (defects 7, 8)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from core import cli
from core.store.engine import StoreOpenError, check_store_version, open_store
from core.store.migrations import LEGACY_VERSION, MIGRATIONS, migrate
from core.store.store_file import APPLICATION_ID, StoreReadOnlyError

from tests.drills.bad_stores import VARIANTS, fingerprint

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_bad_store_file_is_refused_unchanged(tmp_path: Path, variant: str) -> None:
    path = tmp_path / "store.sqlite"
    phrase = VARIANTS[variant](path)
    before = fingerprint(path)
    with pytest.raises(StoreOpenError, match=phrase):
        open_store(path)
    assert fingerprint(path) == before
    # Nothing new beside it but SQLite's own read-side -wal/-shm of a WAL database.
    assert {p.name for p in tmp_path.iterdir()} <= {"store.sqlite", "store.sqlite-wal", "store.sqlite-shm"}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_cli_reports_a_bad_store_in_one_line_with_exit_code_2(
    tmp_path: Path, variant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "store.sqlite"
    VARIANTS[variant](path)
    before = fingerprint(path)
    corpus = tmp_path / "c" / "failures"
    corpus.mkdir(parents=True)
    (corpus / "a.jsonl").write_text('{"id": "x"}\n')
    assert cli.main(["import", str(corpus), "--store", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert fingerprint(path) == before


def test_an_empty_file_becomes_a_store(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    path.touch()
    open_store(path).close()
    assert check_store_version(path) == LEGACY_VERSION


def test_a_new_store_carries_the_workbench_application_id(tmp_path: Path) -> None:
    open_store(tmp_path / "s.sqlite").close()
    connection = sqlite3.connect(tmp_path / "s.sqlite")
    assert connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    connection.close()


@pytest.mark.parametrize("steps", [1, 5, 6, 7, 8])
def test_a_store_made_before_the_mark_opens_and_gets_it(tmp_path: Path, steps: int) -> None:
    path = tmp_path / "old.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    migrate(connection, MIGRATIONS[:steps])
    connection.execute("INSERT INTO corpus (name, role, role_source, created_at) VALUES ('c', 'x', 'folder', 't')")
    connection.close()
    open_store(path).close()
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert connection.execute("SELECT name FROM corpus").fetchall() == [("c",)]
    connection.close()


def test_a_read_only_store_file_is_reported_as_read_only_not_locked(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores file permissions; the read-only mount test covers root")
    path = tmp_path / "s.sqlite"
    open_store(path).close()
    path.chmod(0o444)
    with pytest.raises(StoreReadOnlyError, match="read-only"):
        open_store(path)


def _can_bind_mount_read_only(folder: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", f"mount --bind -o ro '{folder}' '{folder}' && ! touch '{folder}/probe'"],
        capture_output=True,
    )
    return probe.returncode == 0


def test_a_store_on_a_read_only_mount_is_reported_as_read_only(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "s.sqlite"
    open_store(path).close()
    if not _can_bind_mount_read_only(folder):
        pytest.skip("no unprivileged read-only bind mount here (unshare -rm)")
    before = fingerprint(path)
    # A command that writes (import) is refused; one that only reads opens it read-only (below).
    script = (f"mount --bind -o ro '{folder}' '{folder}' && exec '{sys.executable}' -m core.cli import "
              f"'{tmp_path}' --store '{path}'")
    result = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    assert result.returncode == 2
    assert "read-only" in result.stderr and "another" not in result.stderr and "Traceback" not in result.stderr
    assert fingerprint(path) == before


@pytest.mark.parametrize("command", [["corpora"], ["store", "check"], ["report", "--json"]])
def test_a_store_on_a_read_only_mount_is_opened_read_only_by_commands_that_only_read(
    tmp_path: Path, command: list[str]
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "s.sqlite"
    open_store(path).close()
    if not _can_bind_mount_read_only(folder):
        pytest.skip("no unprivileged read-only bind mount here (unshare -rm)")
    before, files = fingerprint(path), sorted(folder.iterdir())
    args = " ".join(command)
    script = f"mount --bind -o ro '{folder}' '{folder}' && exec '{sys.executable}' -m core.cli {args} --store '{path}'"
    result = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    assert "read-only" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1)  # report on a store without runs says so and exits 1
    assert fingerprint(path) == before and sorted(folder.iterdir()) == files


def test_a_write_through_a_store_opened_for_reading_is_one_line_saying_read_only(tmp_path: Path) -> None:
    import sqlalchemy.exc
    from sqlalchemy import text

    from core.store.engine import store_error_line
    from core.store.read_only import open_store_for_reading

    path = tmp_path / "s.sqlite"
    open_store(path).close()
    store = open_store_for_reading(path)
    try:
        with pytest.raises(sqlalchemy.exc.OperationalError) as caught, store.session() as session:
            session.execute(text("INSERT INTO corpus (name, role, role_source, created_at) VALUES ('x', 'r', 'f', 'now')"))
    finally:
        store.close()
    line = store_error_line(path, caught.value)
    assert "is read-only" in line and "was refused; nothing was changed" in line and "\n" not in line
