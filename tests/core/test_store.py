"""The store: schema upgrades, connection settings, append-only audit, the schema equals the classes."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

from core.store.engine import check_store_version, open_store
from core.store.migrations import LEGACY_VERSION, Migration, StoreTooNewError, migrate
from core.store.schema import head_revision, schema_differences, stored_revisions
from core.store.store_file import APPLICATION_ID


def test_new_store_is_at_latest_version(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite")
    store.close()
    assert check_store_version(tmp_path / "s.sqlite") == LEGACY_VERSION


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
    connection.execute(f"PRAGMA user_version = {LEGACY_VERSION + 5}")
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
    assert check_store_version(path) == LEGACY_VERSION


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


def test_a_new_store_equals_the_table_classes(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite")
    with store.engine.connect() as connection:
        assert schema_differences(connection) == []
    store.close()


def test_a_missing_index_is_a_difference(tmp_path: Path) -> None:
    # The comparison can fail: it sees what a store lacks compared with the classes.
    store = open_store(tmp_path / "s.sqlite")
    with store.session() as session:
        session.execute(text("DROP INDEX ix_trajectory_domain"))
    with store.engine.connect() as connection:
        found = schema_differences(connection)
    assert [diff[0] for diff in found] == ["add_index"] and found[0][1].name == "ix_trajectory_domain"
    store.close()


def test_a_new_store_is_at_the_head_revision(tmp_path: Path) -> None:
    open_store(tmp_path / "s.sqlite").close()
    connection = sqlite3.connect(tmp_path / "s.sqlite")
    assert stored_revisions(connection) == {head_revision()}
    connection.close()


def test_a_store_at_an_unknown_revision_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite"
    open_store(path).close()
    connection = sqlite3.connect(path)
    connection.execute("UPDATE alembic_version SET version_num = 'f00d_from_the_future'")
    connection.commit()
    connection.close()
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(StoreTooNewError, match="f00d_from_the_future"):
        open_store(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


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
