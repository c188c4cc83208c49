"""``store copy``: SQLite -> PostgreSQL -> SQLite is lossless (row counts and content hashes per table)."""

from __future__ import annotations

from pathlib import Path

import pytest
from every_kind import empty_tables, fill_every_table

from core.cli import main
from core.labels.service import save_label
from core.store.engine import open_store
from core.team.store_check import check_store
from core.team.store_copy import StoreCopyError, copy_store, store_digests


@pytest.fixture()
def full_sqlite(tmp_path: Path) -> Path:
    path = tmp_path / "full.sqlite"
    store = open_store(path)
    fill_every_table(store)
    assert empty_tables(store) == []  # every kind of row is there
    store.close()
    return path


def test_sqlite_to_postgresql_to_sqlite_keeps_every_hash(full_sqlite: Path, pg_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    url = pg_server.empty_database()
    there = copy_store(full_sqlite, url)
    back = copy_store(url, tmp_path / "back.sqlite")
    assert there.verified and back.verified
    assert back.destination_tables == there.tables  # the round trip: the same rows, hash for hash
    assert all(d.rows > 0 for d in there.tables)
    pg_server.drop(url)


def test_a_copied_postgresql_store_takes_new_rows_and_passes_its_checks(full_sqlite: Path, pg_server) -> None:  # type: ignore[no-untyped-def]
    from core.domain.labels import LabelText
    from core.store.corpus_repo import CorpusRepository

    url = pg_server.empty_database()
    copy_store(full_sqlite, url)
    store = open_store(url)
    assert all(result.ok for result in check_store(store)), check_store(store)
    pk = CorpusRepository(store).list_trajectories()[0].id
    saved = save_label(store, pk, "cy", LabelText("a new trigger", "a new directive"))
    assert saved  # a new label row: the id sequences continue past the copied ids
    store.close()
    pg_server.drop(url)


def test_copying_into_a_store_with_rows_is_refused(full_sqlite: Path, tmp_path: Path) -> None:
    with pytest.raises(StoreCopyError, match="not empty"):
        copy_store(full_sqlite, full_sqlite)
    store = open_store(full_sqlite)
    assert sum(d.rows for d in store_digests(store)) > 0  # still readable, unchanged by the refusal
    store.close()


def test_the_cli_prints_counts_and_hashes_per_table(full_sqlite: Path, pg_server, capsys) -> None:  # type: ignore[no-untyped-def]
    url = pg_server.empty_database()
    assert main(["store", "copy", str(full_sqlite), url]) == 0
    out = capsys.readouterr().out
    assert "trajectory" in out and "verified:" in out and "DIFFERS" not in out
    assert main(["store", "check", url]) == 0
    assert "ok   schema" in capsys.readouterr().out
    pg_server.drop(url)


def test_store_check_finds_a_broken_reference(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "s.sqlite"
    open_store(path).close()
    connection = sqlite3.connect(path)  # foreign keys are off on a plain connection
    connection.execute("INSERT INTO source_file (corpus_id, path, kind, content_hash, size, imported_at) "
                       "VALUES (42, 'p', 'k', 'h', 0, 'now')")
    connection.commit()
    connection.close()
    assert main(["store", "check", str(path)]) == 1


def test_a_mistyped_source_path_is_refused_and_no_store_is_created(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    missing = tmp_path / "typo.sqlite"
    assert main(["store", "copy", str(missing), str(tmp_path / "copy.sqlite")]) == 2
    assert main(["store", "check", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("does not exist") == 2 and "Traceback" not in err
    assert not missing.exists() and not (tmp_path / "copy.sqlite").exists()
