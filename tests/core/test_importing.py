"""Importing corpora into the store: bad records reported, good ones kept, nothing repeated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from core.importing import import_paths
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store, open_store


def _record(tid: str, success: bool = False, **extra: object) -> dict[str, object]:
    record: dict[str, object] = {
        "trajectory_id": tid,
        "timestamp": "2026-09-01T00:00:00Z",
        "task": f"task of {tid}",
        "steps": [{"step_number": 1, "tool": "bash", "input": "git push", "output": None, "error": "rejected"}],
        "success": success,
        "domain": "git",
        "failure_class": "git/push/non-fast-forward",
    }
    record.update(extra)
    return record


def _line(record: dict[str, object]) -> str:
    return json.dumps(record)


@pytest.fixture()
def store(store_location: Path | str) -> Store:
    opened = open_store(store_location)  # on each back end
    yield opened
    opened.close()


def _write(path: Path, content: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def test_bad_records_are_reported_and_their_neighbours_imported(tmp_path: Path, store: Store) -> None:
    bad_step = _record("T-3")
    bad_step["steps"] = [{"step_number": 1, "input": "x"}]
    content = b"\n".join(
        [
            _line(_record("T-1")).encode(),
            b'{"trajectory_id": "T-2", "task": "cut off',
            _line(_record("T-4", success="maybe")).encode(),  # type: ignore[arg-type]
            _line(bad_step).encode(),
            b'{"trajectory_id": "T-5", "task": "\xff\xfe bad bytes"}',
            _line(_record("T-6", success=True)).encode(),
        ]
    )
    _write(tmp_path / "root" / "failures" / "mixed.jsonl", content)
    summary = import_paths(store, [tmp_path / "root"])
    assert summary.imported == 2
    lines = sorted(issue.line for issue in summary.issues)
    assert lines == [2, 3, 4, 5]
    by_line = {issue.line: issue for issue in summary.issues}
    assert by_line[3].field == "success" and "maybe" in by_line[3].reason
    assert by_line[4].field is not None and "tool" in by_line[4].field
    assert all(issue.file == "failures/mixed.jsonl" for issue in summary.issues)


def test_rejections_are_kept_in_a_stored_report(tmp_path: Path, store: Store) -> None:
    _write(tmp_path / "root" / "c" / "a.jsonl", _line(_record("T-1", success="maybe")))  # type: ignore[arg-type]
    summary = import_paths(store, [tmp_path / "root"])
    from core.store.import_repo import ImportReportRepository

    stored = ImportReportRepository(store).issues(summary.report_id)
    assert [(i.file, i.line, i.field) for i in stored] == [("c/a.jsonl", 1, "success")]


def test_corpus_name_is_the_folder_relative_to_the_import_root(tmp_path: Path, store: Store) -> None:
    _write(tmp_path / "root" / "field" / "curated" / "nearmiss" / "n.jsonl", _line(_record("N-1", success=True)))
    import_paths(store, [tmp_path / "root"])
    assert [c.name for c in CorpusRepository(store).list_corpora()] == ["field/curated/nearmiss"]


def test_duplicate_ids_in_one_folder_are_both_kept(tmp_path: Path, store: Store) -> None:
    _write(tmp_path / "root" / "g" / "a.jsonl", _line(_record("GX-001")))
    _write(tmp_path / "root" / "g" / "b.jsonl", _line(_record("GX-001", task="another task")))
    summary = import_paths(store, [tmp_path / "root"])
    assert summary.imported == 2
    assert CorpusRepository(store).count_trajectories() == 2


def _data_tables(store: Store) -> dict[str, list[tuple[object, ...]]]:
    tables = ["corpus", "source_file", "trajectory", "rule", "rule_version"]
    with store.read_session() as session:
        return {t: [tuple(r) for r in session.execute(text(f"SELECT * FROM {t} ORDER BY 1")).all()] for t in tables}


def test_importing_twice_changes_nothing(tmp_path: Path, store: Store) -> None:
    _write(tmp_path / "root" / "c" / "a.jsonl", "\n".join(_line(_record(f"T-{i}")) for i in range(5)))
    import_paths(store, [tmp_path / "root"])
    before = _data_tables(store)
    summary = import_paths(store, [tmp_path / "root"])
    assert summary.imported == 0 and summary.corpora[0].unchanged == 5
    assert _data_tables(store) == before


def test_a_changed_file_updates_only_what_changed(tmp_path: Path, store: Store) -> None:
    path = _write(tmp_path / "root" / "c" / "a.jsonl", "\n".join(_line(_record(f"T-{i}")) for i in range(3)))
    import_paths(store, [tmp_path / "root"])
    ids_before = {s.trajectory_id: s.id for s in CorpusRepository(store).list_trajectories()}
    records = [_record("T-0"), _record("T-1", task="edited task"), _record("T-9")]
    path.write_text("\n".join(_line(r) for r in records))
    counts = import_paths(store, [tmp_path / "root"]).corpora[0]
    assert (counts.imported, counts.updated, counts.unchanged, counts.removed) == (1, 1, 1, 1)
    ids_after = {s.trajectory_id: s.id for s in CorpusRepository(store).list_trajectories()}
    assert ids_after["T-1"] == ids_before["T-1"]  # edited in place: outcomes and labels survive
    assert "T-2" not in ids_after


def test_bom_crlf_and_no_trailing_newline_are_read(tmp_path: Path, store: Store) -> None:
    content = "\ufeff" + _line(_record("T-1")) + "\r\n" + _line(_record("T-2"))
    _write(tmp_path / "root" / "c" / "a.jsonl", content)
    assert import_paths(store, [tmp_path / "root"]).imported == 2


def test_a_rule_yaml_is_imported_with_its_source_trajectory(tmp_path: Path, store: Store) -> None:
    _write(tmp_path / "root" / "g" / "G-1.jsonl", _line(_record("G-1")))
    _write(
        tmp_path / "root" / "g" / "G-1-a.yaml",
        "id: G-1-a\nwhen:\n  trigger: git push fails with non-fast-forward\ndo:\n  directive: pull first\n"
        "confidence: 0.9\nprovenance: {source_trajectory: G-1, extracted_by: t, extract_timestamp: '2026-01-01'}\n"
        "status: active\npromoted_at: '2026-01-01'\n",
    )
    summary = import_paths(store, [tmp_path / "root"])
    from core.store.rule_repo import RuleRepository

    (rule,) = RuleRepository(store).list_rules()
    assert summary.rules_imported == 1
    assert rule.latest.trigger == "git push fails with non-fast-forward"
    assert rule.domain == "git" and rule.source_trajectory_pk is not None


def test_a_missing_path_is_noted_not_raised(tmp_path: Path, store: Store) -> None:
    summary = import_paths(store, [tmp_path / "nowhere"])
    assert summary.imported == 0 and "no such file" in summary.notes[0]
