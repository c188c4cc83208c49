"""A trajectory's free text of any length is stored on either back end (no index holds it whole
on PostgreSQL, whose b-tree entries stop at ~2.7 KB)."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from core.store.corpus_repo import CorpusRepository, TrajectoryFilter
from core.store.engine import open_store


@pytest.mark.parametrize("field", ["task", "expected_rule"])
def test_a_10_kb_text_is_imported_and_found(store_location: Path | str, field: str) -> None:
    store = open_store(store_location)
    try:
        corpora = CorpusRepository(store)
        corpus_id = corpora.ensure_corpus("c", "extraction", "folder")
        file_id = corpora.upsert_file(corpus_id, "c/a.jsonl", "trajectories", "h", 1)
        # Random letters: a repeated string would compress under the limit and prove nothing.
        long_text = "".join(random.Random(7).choices(string.ascii_lowercase + " ", k=10_000)) + " needle"
        values = dict(corpus_id=corpus_id, line=1, end_line=1, trajectory_id="F-1", success=False, task="t",
                      raw_text="{}", record_json="{}", content_hash="x")
        values[field] = long_text
        corpora.apply_file_changes(file_id, [values], [], [])
        if field == "task":  # the text filter tests task (expected_rule is a column, sorted on)
            assert [t.trajectory_id for t in corpora.list_trajectories(TrajectoryFilter(text="needle"))] == ["F-1"]
        rows = corpora.list_trajectories(TrajectoryFilter(), order_by=field)
        assert [t.trajectory_id for t in rows] == ["F-1"]
        assert getattr(corpora.get_trajectory(rows[0].id), field) == long_text
    finally:
        store.close()
