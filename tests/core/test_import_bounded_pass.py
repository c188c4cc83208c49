"""An import bigger than ``KEEP_PARSED_BYTES`` (issue 27 item 4: 10^6 trajectories).

Beyond the budget the first pass drops a file's parsed records and parses the file again
when its batch is written: the store must end up exactly as with one pass, and a file that
changes between the passes is reported, not written from the other bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

import core.importing
from core.importing import import_paths
from core.store.engine import Store, open_store

from tests.drills.stores import record


def _write_corpus(root: Path, files: int = 6, per_file: int = 5) -> Path:
    folder = root / "corpus" / "bounded"
    folder.mkdir(parents=True)
    for f in range(files):
        lines = [json.dumps(record(f * per_file + i, "bounded", success=i % 2 == 0)) for i in range(per_file)]
        (folder / f"part-{f}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root / "corpus"


def _stored(store: Store) -> list[tuple[object, ...]]:
    with store.read_session() as session:
        return [tuple(r) for r in session.execute(text(
            "SELECT t.trajectory_id, f.path, t.line, t.success, t.content_hash, t.record_json "
            "FROM trajectory t JOIN source_file f ON f.id = t.file_id ORDER BY f.path, t.line")).all()]


@pytest.fixture()
def stores(tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    one, two = open_store(tmp_path / "one.sqlite"), open_store(tmp_path / "two.sqlite")
    yield one, two
    one.close()
    two.close()


def test_an_import_over_the_budget_stores_what_one_pass_stores(
        tmp_path: Path, stores: tuple[Store, Store], monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = _write_corpus(tmp_path)
    one_pass, two_passes = stores
    first = import_paths(one_pass, [corpus])
    monkeypatch.setattr(core.importing, "KEEP_PARSED_BYTES", 0)  # every file parsed again when written
    second = import_paths(two_passes, [corpus])
    assert _stored(two_passes) == _stored(one_pass)
    assert [c.imported for c in second.corpora] == [c.imported for c in first.corpora] == [30]
    assert [c.role for c in second.corpora] == [c.role for c in first.corpora]


def test_a_file_changed_between_the_passes_is_reported_and_not_written(
        tmp_path: Path, stores: tuple[Store, Store], monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = _write_corpus(tmp_path)
    store = stores[0]
    monkeypatch.setattr(core.importing, "KEEP_PARSED_BYTES", 0)
    changed = corpus / "bounded" / "part-3.jsonl"
    original = core.importing._file_changes

    def change_then_write(*args: object, **kwargs: object) -> object:
        changed.write_text(json.dumps(record(999, "bounded", success=True)) + "\n", encoding="utf-8")
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(core.importing, "_file_changes", change_then_write)
    summary = import_paths(store, [corpus])
    [issue] = [i for i in summary.issues if i.file.endswith("part-3.jsonl")]
    assert "changed while it was being imported" in issue.reason
    paths = {row[1] for row in _stored(store)}
    assert not any(p.endswith("part-3.jsonl") for p in paths) and len(paths) == 5
