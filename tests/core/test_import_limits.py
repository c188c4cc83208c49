"""Indexed text over the store's limits is refused the same way on SQLite and PostgreSQL: one
specific issue (file, line, field, limit, length found), and every record around it imported.
On PostgreSQL a 10 KB id used to fail the whole import (a b-tree entry stops at ~2.7 KB)."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.corpus.limits import MAX_KEY_BYTES, MAX_PATH_BYTES
from core.importing import import_paths
from core.store.corpus_repo import CorpusRepository, TrajectoryFilter
from core.store.dto import ImportSummary
from core.store.engine import Store, open_store
from core.store.rule_repo import RuleRepository

# Random letters: a repeated string would compress under PostgreSQL's limit and prove nothing.
HUGE = "".join(random.Random(14).choices(string.ascii_letters, k=10_000))


def _record(tid: str, **extra: object) -> str:
    record: dict[str, object] = {
        "trajectory_id": tid, "timestamp": "2026-09-01T00:00:00Z", "task": f"task of {tid}",
        "steps": [{"step_number": 1, "tool": "bash", "input": "git push"}], "success": False,
        "domain": "git", "failure_class": "git/push",
    }
    record.update(extra)
    return json.dumps(record)


@pytest.fixture()
def store(store_location: Path | str) -> Iterator[Store]:
    opened = open_store(store_location)  # on each back end
    yield opened
    opened.close()


def _import_huge_fields(tmp_path: Path, store: Store) -> ImportSummary:
    lines = [
        _record("T-1"),
        _record(HUGE),
        _record("T-3"),
        _record("T-4", domain=HUGE),
        _record("T-5", failure_class=HUGE),
        _record("T-6"),
    ]
    path = tmp_path / "root" / "c" / "a.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return import_paths(store, [tmp_path / "root"])


def test_huge_indexed_fields_are_refused_with_file_line_field_limit_and_length(tmp_path: Path, store: Store) -> None:
    summary = _import_huge_fields(tmp_path, store)
    found = [(i.file, i.line, i.field) for i in summary.issues]
    assert found == [("c/a.jsonl", 2, "trajectory_id"), ("c/a.jsonl", 4, "domain"), ("c/a.jsonl", 5, "failure_class")]
    for issue in summary.issues:
        assert f"{MAX_KEY_BYTES:,}-byte limit" in issue.reason
        assert "10,000 bytes" in issue.reason


def test_the_records_around_huge_fields_are_all_imported(tmp_path: Path, store: Store) -> None:
    summary = _import_huge_fields(tmp_path, store)
    stored = CorpusRepository(store).list_trajectories(TrajectoryFilter())
    assert sorted(t.trajectory_id for t in stored) == ["T-1", "T-3", "T-6"]
    assert (summary.imported, summary.corpora[0].rejected) == (3, 3)


def test_a_value_at_the_limit_is_imported(tmp_path: Path, store: Store) -> None:
    at_limit = "é" * (MAX_KEY_BYTES // 2)  # two UTF-8 bytes each: exactly the limit
    path = tmp_path / "root" / "c" / "a.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(_record(at_limit, domain=at_limit, failure_class=at_limit) + "\n", encoding="utf-8")
    summary = import_paths(store, [tmp_path / "root"])
    assert (summary.imported, summary.issues) == (1, ())
    assert CorpusRepository(store).list_trajectories(TrajectoryFilter())[0].trajectory_id == at_limit


_RULE = (
    "id: {id}\nwhen:\n  trigger: git push fails\ndo:\n  directive: pull first\nconfidence: 0.9\n"
    "provenance: {{source_trajectory: {source}, extracted_by: t, extract_timestamp: '2026-01-01'}}\n"
    "status: active\npromoted_at: '2026-01-01'\n"
)


@pytest.mark.parametrize(("rule_id", "source", "field", "line"), [
    (HUGE, "T-1", "id", 1),
    ("R-2", HUGE, "provenance.source_trajectory", 7),
])
def test_a_rule_with_a_huge_indexed_field_is_refused_and_its_neighbour_imported(
    tmp_path: Path, store: Store, rule_id: str, source: str, field: str, line: int,
) -> None:
    root = tmp_path / "root" / "c"
    root.mkdir(parents=True)
    (root / "a.jsonl").write_text(_record("T-1") + "\n", encoding="utf-8")
    (root / "R-1.yaml").write_text(_RULE.format(id="R-1", source="T-1"), encoding="utf-8")
    (root / "R-2.yaml").write_text(_RULE.format(id=rule_id, source=source), encoding="utf-8")
    summary = import_paths(store, [tmp_path / "root"])
    assert [(i.file, i.line, i.field) for i in summary.issues] == [("c/R-2.yaml", line, field)]
    assert "10,000 bytes" in summary.issues[0].reason
    assert f"{MAX_KEY_BYTES:,}-byte limit" in summary.issues[0].reason
    assert [r.origin for r in RuleRepository(store).list_rules()] == ["c/R-1.yaml"]


def test_a_file_whose_path_is_too_long_is_refused_and_the_others_imported(tmp_path: Path, store: Store) -> None:
    root = tmp_path / "root"
    deep = root.joinpath(*(["d" * 200] * 4))  # a path of 800+ bytes: within the OS limit, over ours
    deep.mkdir(parents=True)
    (deep / "a.jsonl").write_text(_record("T-deep") + "\n", encoding="utf-8")
    (root / "c").mkdir()
    (root / "c" / "a.jsonl").write_text(_record("T-1") + "\n", encoding="utf-8")
    summary = import_paths(store, [root])
    assert len(summary.issues) == 1
    assert f"{MAX_PATH_BYTES:,}-byte limit" in summary.issues[0].reason
    stored = CorpusRepository(store).list_trajectories(TrajectoryFilter())
    assert [t.trajectory_id for t in stored] == ["T-1"]


def test_a_nul_character_is_refused_on_both_back_ends_with_its_field(tmp_path: Path, store: Store) -> None:
    # PostgreSQL text cannot hold NUL; SQLite refuses it too, so a store copies to either back end.
    path = tmp_path / "root" / "c" / "a.jsonl"
    path.parent.mkdir(parents=True)
    lines = [_record("T-1", task="a\u0000b"), _record("T-2"),
             _record("T-3", steps=[{"step_number": 1, "tool": "bash", "output": "x\u0000"}])]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = import_paths(store, [tmp_path / "root"])
    assert [(i.line, i.field) for i in summary.issues] == [(1, "task"), (3, "steps[0].output")]
    assert all("NUL" in i.reason for i in summary.issues)
    assert [t.trajectory_id for t in CorpusRepository(store).list_trajectories(TrajectoryFilter())] == ["T-2"]
