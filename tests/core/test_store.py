"""The store: migrations, connection settings, append-only audit, schema mirrors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import SQLModel

import core.store.tables  # noqa: F401  (registers the table classes)
from core.store.engine import check_store_version, open_store
from core.store.migrations import LATEST_VERSION, Migration, StoreTooNewError, migrate
from core.store.store_file import APPLICATION_ID


def test_new_store_is_at_latest_version(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite")
    store.close()
    assert check_store_version(tmp_path / "s.sqlite") == LATEST_VERSION


def test_every_connection_has_wal_foreign_keys_and_busy_timeout(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite")
    with store.session() as session:
        assert session.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
        assert session.execute(text("PRAGMA foreign_keys")).scalar_one() == 1
        assert session.execute(text("PRAGMA busy_timeout")).scalar_one() >= 1000
    store.close()


def test_store_from_newer_version_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE keep (x)")
    connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # a future Workbench's store
    connection.execute(f"PRAGMA user_version = {LATEST_VERSION + 5}")
    connection.commit()
    connection.close()
    before = path.read_bytes()
    with pytest.raises(StoreTooNewError, match="newer"):
        open_store(path)
    assert path.read_bytes() == before


def test_an_older_store_is_migrated_forward_keeping_its_data(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    from core.store.migrations import MIGRATIONS

    migrate(connection, MIGRATIONS[:1])
    connection.execute(
        "INSERT INTO corpus (name, role, role_source, created_at) VALUES ('c', 'extraction', 'folder', 'now')"
    )
    connection.close()
    store = open_store(path)
    with store.session() as session:
        assert session.execute(text("SELECT name FROM corpus")).scalar_one() == "c"
        session.execute(text("SELECT count(*) FROM replay_run")).scalar_one()
    store.close()
    assert check_store_version(path) == LATEST_VERSION


def test_a_failing_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    connection = sqlite3.connect(tmp_path / "s.sqlite", isolation_level=None)
    broken = (Migration(1, "ok", ("CREATE TABLE a (x)",)), Migration(2, "bad", ("CREATE TABLE b (x)", "NOT SQL")))
    with pytest.raises(sqlite3.OperationalError):
        migrate(connection, broken)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 1
    tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "b" not in tables


def test_audit_log_refuses_updates_and_deletes(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite")
    with store.session() as session:
        session.execute(
            text(
                "INSERT INTO audit_event (at, actor, action, target_kind, target_id) "
                "VALUES ('t', 'ana', 'approve', 'rule', '1')"
            )
        )
    for statement in ("UPDATE audit_event SET actor = 'bob'", "DELETE FROM audit_event"):
        with pytest.raises(Exception, match="append-only"):
            with store.session() as session:
                session.execute(text(statement))
    store.close()


def test_table_classes_mirror_the_migrated_schema(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite")
    connection = sqlite3.connect(tmp_path / "s.sqlite")
    for table in SQLModel.metadata.sorted_tables:
        columns = {r[1] for r in connection.execute(f"PRAGMA table_info({table.name})")}
        assert columns, f"table {table.name} missing from the migrated schema"
        assert {c.name for c in table.columns} == columns, table.name
    connection.close()
    store.close()


def test_foreign_keys_are_enforced(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite")
    with pytest.raises(Exception, match="FOREIGN KEY"):
        with store.session() as session:
            session.execute(
                text(
                    "INSERT INTO source_file (corpus_id, path, kind, content_hash, size, imported_at) "
                    "VALUES (999, 'p', 'k', 'h', 0, 'now')"
                )
            )
    store.close()


def test_a_write_session_inside_another_is_refused_at_once(tmp_path: Path) -> None:
    # It would otherwise wait for its own thread's lock and fail only after the busy timeout.
    from core.store.engine import NestedWriteSessionError

    store = open_store(tmp_path / "nested.sqlite")
    with store.session():
        with pytest.raises(NestedWriteSessionError):
            with store.session():
                pass
        with store.read_session() as reader:  # reads inside a write are fine
            reader.execute(text("SELECT 1")).all()
    with store.session():  # and the flag is released afterwards
        pass
    store.close()
