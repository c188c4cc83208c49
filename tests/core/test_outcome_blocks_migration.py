"""Revision 0009 turns a store's per-pair outcome rows into blocks; readers see the same rows.

The store is the 0.1 release fixture brought to the previous head (0008) and then given what a
0008 run could hold: a recall pool whose score-0 missed rows are derived (some with a domain and
an excluded source), cosines, floors and stored spans. The former ``replay_outcome`` view, read
before the upgrade, is the oracle.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, text

from core.store.engine import open_store
from core.store.outcome_reads import result_block
from core.store.replay_repo import ReplayRepository
from core.store.schema import alembic_config

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "store_v5_cab620b.sqlite"
_COLUMNS = ("result_id", "trajectory_pk", "bucket", "score", "token_f1", "bigram", "cosine", "view", "floor",
            "threshold", "margin", "spans_json")


def _at_0008(tmp_path: Path) -> Path:
    path = tmp_path / "at-0008.sqlite"
    shutil.copyfile(FIXTURE, path)
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, "0008_indexes")
    engine.dispose()
    connection = sqlite3.connect(path)
    with connection:
        # Result 4: its score-0 missed rows (all failures) are derived from a pool, like a 0008 run.
        max_pk = connection.execute("SELECT max(id) FROM trajectory").fetchone()[0]
        connection.execute("DELETE FROM replay_outcome_stored WHERE result_id = 4 AND bucket = 'missed' "
                           "AND score = 0 AND trajectory_pk % 3 <> 0")
        connection.execute("INSERT INTO replay_pool VALUES (4, NULL, NULL, NULL, ?, 'haystack', NULL, -0.6)", (max_pk,))
        # Result 5: a domain pool that excludes its source by key, with a cosine; result 8: all
        # failures but one excluded by trajectory id, and only those up to an earlier key.
        (pk, domain), (_, tid) = connection.execute(
            "SELECT id, domain FROM trajectory WHERE success = 0 ORDER BY id LIMIT 1").fetchone(), connection.execute(
            "SELECT id, trajectory_id FROM trajectory WHERE success = 0 ORDER BY id LIMIT 1 OFFSET 2").fetchone()
        connection.execute("DELETE FROM replay_outcome_stored WHERE result_id IN (5, 8) AND bucket = 'missed'")
        connection.execute("INSERT INTO replay_pool VALUES (5, ?, ?, NULL, ?, 'tail', 0.125, -0.5)", (domain, pk, max_pk))
        connection.execute("INSERT INTO replay_pool VALUES (8, NULL, NULL, ?, ?, NULL, NULL, -0.6)", (tid, max_pk // 2))
        # Stored rows with a cosine, spans left NULL (a lazy-spans run), a floor on a missed row.
        connection.execute("UPDATE replay_outcome_stored SET cosine = 0.75, spans_json = NULL WHERE result_id = 3")
    connection.close()
    return path


def _view(path: Path) -> tuple[list[tuple[object, ...]], dict[int, list[int]]]:
    """Every row of the former view, and each result's keys in the evidence order."""
    connection = sqlite3.connect(path)
    try:
        rows = sorted(connection.execute(f"SELECT {', '.join(_COLUMNS)} FROM replay_outcome").fetchall())
        order: dict[int, list[int]] = {}
        for result_id, pk in connection.execute(
                "SELECT o.result_id, o.trajectory_pk FROM replay_outcome o JOIN trajectory t ON t.id = o.trajectory_pk "
                "ORDER BY o.result_id, o.score DESC, t.id"):
            order.setdefault(result_id, []).append(pk)
        return rows, order
    finally:
        connection.close()


@pytest.fixture()
def store_0008(tmp_path: Path) -> Path:
    return _at_0008(tmp_path)


def test_the_fixture_exercises_derived_rows_and_spans(store_0008: Path) -> None:
    rows, _ = _view(store_0008)
    connection = sqlite3.connect(store_0008)
    stored = connection.execute("SELECT count(*) FROM replay_outcome_stored").fetchone()[0]
    connection.close()
    assert len(rows) > stored  # some rows are derived
    assert any(r[6] is not None for r in rows) and any(r[11] is None for r in rows) and any(r[11] for r in rows)


def test_every_outcome_row_reads_the_same_after_the_upgrade(store_0008: Path) -> None:
    before, order = _view(store_0008)
    store = open_store(store_0008)
    try:
        with store.read_session() as session:
            ids = [int(r[0]) for r in session.execute(text("SELECT id FROM replay_result")).all()]
            after = sorted(tuple(dict(r, result_id=i)[c] for c in _COLUMNS)
                           for i in ids for r in result_block(session, i).rows())
        assert after == before
        repo = ReplayRepository(store)
        assert {i: [o.trajectory_pk for o in repo.outcomes(i)] for i in order} == order
    finally:
        store.close()


def test_the_upgrade_drops_the_per_pair_table_and_the_view(store_0008: Path) -> None:
    connection = sqlite3.connect(store_0008)
    results, pairs = connection.execute("SELECT count(DISTINCT result_id), count(*) FROM replay_outcome_stored").fetchone()
    connection.close()
    open_store(store_0008).close()
    connection = sqlite3.connect(store_0008)
    names = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
    blocks = connection.execute("SELECT count(*), sum(n) FROM replay_outcome_block").fetchone()
    connection.close()
    assert "replay_outcome_stored" not in names and "replay_outcome" not in names
    assert blocks == (results, pairs)
