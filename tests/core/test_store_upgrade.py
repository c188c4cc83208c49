"""A store written by the 0.1 release (user_version 5, commit cab620b) opens, upgrades and loses nothing.

The fixture ``tests/fixtures/store_v5_cab620b.sqlite`` was made by that release's own code
(``tests/fixtures/build_store_v5.py``): the demo corpus, a bad file's import issues, a
replay, decisions, views, a waiver, a mark, labels, an adjudication, a blind session with a
judgement, a promotion, an embedding and a setting, so every table it had holds rows.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

from core.store.engine import StoreOpenError, open_store
from core.store.migrations import LEGACY_VERSION
from core.store.outcome_reads import result_block
from core.store.review_repo import ReviewRepository
from core.store.schema import head_revision, schema_differences, stored_revisions
from core.store.store_file import APPLICATION_ID

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "store_v5_cab620b.sqlite"
Rows = dict[str, list[tuple[object, ...]]]


def _columns(path: Path) -> dict[str, list[str]]:
    connection = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        names = [r[0] for r in connection.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")]
        return {name: [r[1] for r in connection.execute(f"PRAGMA table_info({name})")] for name in names}
    finally:
        connection.close()


def _contents(path: Path, columns_of: dict[str, list[str]] | None = None) -> Rows:
    """Every row of every table and view (or of the given ones, those columns only), in a stable order.

    replay_outcome is a table before the upgrade and a view after it; later steps add columns.
    """
    columns_of = columns_of or _columns(path)
    connection = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        contents: Rows = {}
        for name, columns in columns_of.items():
            order = ", ".join(f'"{c}"' for c in columns)
            contents[name] = connection.execute(f'SELECT {order} FROM "{name}" ORDER BY {order}').fetchall()
        return contents
    finally:
        connection.close()


@pytest.fixture()
def old_store(tmp_path: Path) -> Path:
    path = tmp_path / "release-0.1.sqlite"
    shutil.copyfile(FIXTURE, path)
    return path


def test_the_fixture_is_a_release_store_with_rows_in_every_table() -> None:
    connection = sqlite3.connect(f"{FIXTURE.absolute().as_uri()}?mode=ro", uri=True)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 5
    connection.close()
    assert all(_contents(FIXTURE)[name] for name in _contents(FIXTURE)), "a table of the fixture is empty"


_OUTCOME = ("result_id", "trajectory_pk", "bucket", "score", "token_f1", "bigram", "cosine", "view", "floor",
            "threshold", "margin", "spans_json")


def _outcomes_read(path: Path) -> list[tuple[object, ...]]:
    """Every outcome row as today's reader returns it (blocks plus derived rows)."""
    store = open_store(path)
    try:
        with store.read_session() as session:
            ids = [int(r[0]) for r in session.execute(text("SELECT id FROM replay_result")).all()]
            return sorted(tuple(dict(r, result_id=i)[c] for c in _OUTCOME)
                          for i in ids for r in result_block(session, i).rows())
    finally:
        store.close()


def test_every_row_of_every_table_survives_the_upgrade(old_store: Path) -> None:
    columns = _columns(old_store)
    before = _contents(old_store, columns)
    open_store(old_store).close()
    # replay_outcome's rows become one block per result (revision 0009): read back, not as a table.
    old_outcomes = sorted(tuple(row[columns["replay_outcome"].index(c)] for c in _OUTCOME)
                          for row in before.pop("replay_outcome"))
    del columns["replay_outcome"]
    after = _contents(old_store, columns)
    for name, rows in before.items():
        assert after[name] == rows, f"{name} changed in the upgrade"
    assert old_outcomes and _outcomes_read(old_store) == old_outcomes


def test_the_upgraded_store_is_at_the_head_and_marked(old_store: Path) -> None:
    open_store(old_store).close()
    connection = sqlite3.connect(old_store)
    assert stored_revisions(connection) == {head_revision()}
    assert connection.execute("PRAGMA user_version").fetchone()[0] == LEGACY_VERSION
    assert connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    connection.close()


def test_the_upgraded_store_equals_the_table_classes(old_store: Path) -> None:
    store = open_store(old_store)
    with store.engine.connect() as connection:
        assert schema_differences(connection) == []
    store.close()


def test_the_upgraded_store_is_read_by_todays_code(old_store: Path) -> None:
    store = open_store(old_store)
    decisions = ReviewRepository(store).current_all()
    assert sorted(d.action for d in decisions.values()) == ["approve", "reject"]
    store.close()


def test_opening_the_upgraded_store_again_changes_nothing(old_store: Path) -> None:
    open_store(old_store).close()
    before = _contents(old_store)
    open_store(old_store).close()
    assert _contents(old_store) == before


def test_a_failed_upgrade_leaves_the_store_as_it_was(old_store: Path) -> None:
    # A table in the way of legacy step 8 makes the upgrade fail halfway through its DDL.
    connection = sqlite3.connect(old_store)
    connection.execute("CREATE TABLE replay_pool (x)")
    connection.commit()
    connection.close()
    columns = _columns(old_store)
    before = _contents(old_store, columns)
    with pytest.raises(StoreOpenError, match="replay_pool"):
        open_store(old_store)
    connection = sqlite3.connect(old_store)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 5
    assert stored_revisions(connection) == set()
    connection.close()
    assert _columns(old_store) == columns and _contents(old_store, columns) == before
