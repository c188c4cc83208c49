"""A store on a PostgreSQL server: same schema, same refusals, same guarantees as the SQLite file."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import text

from core.store.engine import StoreUrl, open_store, store_location
from core.store.migrations import StoreTooNewError
from core.store.schema import head_revision, schema_differences
from core.store.store_file import NotAStoreError, StoreOpenError


@pytest.fixture()
def url(pg_server):  # type: ignore[no-untyped-def]
    location = pg_server.new_database()
    yield location
    pg_server.drop(location)


@pytest.fixture()
def empty_url(pg_server):  # type: ignore[no-untyped-def]
    location = pg_server.empty_database()
    yield location
    pg_server.drop(location)


def test_an_empty_database_gets_the_schema_of_the_table_classes(empty_url: str) -> None:
    store = open_store(empty_url)
    with store.engine.connect() as connection:
        assert schema_differences(connection) == []
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == head_revision()
    store.close()


def test_a_missing_index_is_a_difference_on_postgresql(url: str) -> None:
    store = open_store(url)
    with store.session() as session:
        session.execute(text("DROP INDEX ix_trajectory_domain"))
    with store.engine.connect() as connection:
        found = schema_differences(connection)
    assert [diff[0] for diff in found] == ["add_index"] and found[0][1].name == "ix_trajectory_domain"
    store.close()


def test_a_database_at_an_unknown_revision_is_refused_and_left_unchanged(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("UPDATE alembic_version SET version_num = 'f00d_from_the_future'")
    with pytest.raises(StoreTooNewError, match="f00d_from_the_future"):
        open_store(url)
    with psycopg.connect(url) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == ("f00d_from_the_future",)


def test_another_applications_database_is_refused_untouched(empty_url: str) -> None:
    import psycopg

    with psycopg.connect(empty_url, autocommit=True) as connection:
        connection.execute("CREATE TABLE invoices (id integer)")
    with pytest.raises(NotAStoreError, match="another application"):
        open_store(empty_url)
    with psycopg.connect(empty_url) as connection:
        tables = connection.execute("SELECT table_name FROM information_schema.tables "
                                    "WHERE table_schema = 'public'").fetchall()
    assert tables == [("invoices",)]


def test_an_unreachable_server_is_one_line_naming_the_url(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(StoreOpenError) as raised:
        open_store(f"postgresql://nobody:secret@/nowhere?host={tmp_path}")
    message = str(raised.value)
    assert "\n" not in message and "nowhere" in message and "secret" not in message


def test_a_url_never_shows_its_password() -> None:
    assert str(StoreUrl("postgresql://ana:s3cret@db.example/team")) == "postgresql://ana@db.example/team"
    assert isinstance(store_location("postgresql://ana@/team?host=/tmp/x"), StoreUrl)
    assert not isinstance(store_location("/tmp/team.sqlite"), StoreUrl)


def test_the_audit_log_is_append_only(url: str) -> None:
    store = open_store(url)
    with store.session() as session:
        session.execute(text("INSERT INTO audit_event (at, actor, action, target_kind, target_id) "
                             "VALUES ('t', 'ana', 'approve', 'rule', '1')"))
    for statement in ("UPDATE audit_event SET actor = 'bob'", "DELETE FROM audit_event"):
        with pytest.raises(Exception, match="audit_event is append-only"):
            with store.session() as session:
                session.execute(text(statement))
    store.close()


def test_foreign_keys_are_enforced(url: str) -> None:
    store = open_store(url)
    with pytest.raises(Exception, match="foreign key"):
        with store.session() as session:
            session.execute(text("INSERT INTO source_file (corpus_id, path, kind, content_hash, size, imported_at) "
                                 "VALUES (999, 'p', 'k', 'h', 0, 'now')"))
    store.close()


def test_a_run_records_this_process_as_its_owner_and_a_dead_owners_run_is_closed(url: str) -> None:
    from core.store.run_owner import current_owner

    store = open_store(url)
    with store.session() as session:
        run_id = session.execute(text(
            "INSERT INTO replay_run (started_at, status, profile, config_json, config_hash, corpus_hash, "
            "semantic_state, pairs) VALUES ('t', 'running', 'p', '{}', 'h', 'h', 'off', 0) RETURNING id")).scalar_one()
        owner = session.execute(text("SELECT owner FROM replay_run_owner WHERE run_id = :r"), {"r": run_id}).scalar_one()
        assert owner == current_owner()
        # A process on this host that no longer exists.
        host = owner.split("|")[0]
        session.execute(text("UPDATE replay_run_owner SET owner = :o WHERE run_id = :r"),
                        {"o": f"{host}|999999999|1", "r": run_id})
    store.close()
    store = open_store(url)
    with store.read_session() as session:
        assert session.execute(text("SELECT status FROM replay_run WHERE id = :r"), {"r": run_id}).scalar_one() == "failed"
    store.close()


def test_write_sessions_take_turns(url: str) -> None:
    # Like BEGIN IMMEDIATE on SQLite: a second writer waits for the first to commit.
    store = open_store(url)
    spans: list[tuple[float, float]] = []

    def write() -> None:
        with store.session() as session:
            session.execute(text("SELECT 1"))  # the transaction (and its lock) begins here
            began = time.monotonic()
            time.sleep(0.3)
            spans.append((began, time.monotonic()))

    threads = [threading.Thread(target=write) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    (a_start, a_end), (b_start, b_end) = sorted(spans)
    assert b_start >= a_end - 0.01
    store.close()


def test_a_record_with_a_nul_character_is_an_import_issue_not_a_failed_import(url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from core.importing import import_paths

    folder = tmp_path / "root" / "c"
    folder.mkdir(parents=True)
    record = '{{"trajectory_id": "{tid}", "timestamp": "2026-01-01T00:00:00Z", "task": "{task}", "steps": [], "success": false}}'
    (folder / "a.jsonl").write_text(record.format(tid="T-1", task="a\\u0000b") + "\n"
                                    + record.format(tid="T-2", task="fine") + "\n")
    store = open_store(url)
    summary = import_paths(store, [tmp_path / "root"])
    assert summary.imported == 1
    assert [(i.line, "NUL" in i.reason) for i in summary.issues] == [(1, True)]
    store.close()
