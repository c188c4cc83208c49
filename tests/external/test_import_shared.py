"""The real CauterRule corpora import losslessly, with the roles the reference documents."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from core.export.trajectories import export_corpus
from core.importing import import_paths
from core.store.corpus_repo import CorpusRepository
from core.store.dto import ImportSummary
from core.store.engine import Store, open_store

pytestmark = pytest.mark.external


@pytest.fixture(scope="module")
def imported(shared_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, ImportSummary]:
    store = open_store(tmp_path_factory.mktemp("store") / "shared.sqlite")
    summary = import_paths(store, [shared_corpus])
    yield store, summary
    store.close()


def test_all_records_and_rules_import_without_rejections(imported: tuple[Store, ImportSummary]) -> None:
    _store, summary = imported
    assert summary.issues == ()
    assert summary.imported == 358
    assert summary.rules_imported == 24


@pytest.mark.parametrize(
    ("corpus", "role"),
    [
        ("field-test/corpus/curated/nearmiss", "rejection"),
        ("corpus/public/adversarial/injection", "rejection"),
        ("corpus/public/adversarial/tool_output_injection", "rejection"),
        ("field-test/corpus/curated/successes", "silence"),
        ("field-test/corpus/curated/failures/negative", "silence"),
        ("field-test/corpus/curated/failures/positive", "extraction"),
        ("corpus/public/golden", "extraction"),
    ],
)
def test_corpus_roles_follow_the_reference(imported: tuple[Store, ImportSummary], corpus: str, role: str) -> None:
    store, _summary = imported
    roles = {c.name: c.role for c in CorpusRepository(store).list_corpora()}
    assert roles[corpus] == role


def _reference_records(shared_corpus: Path) -> Counter[tuple[str, str]]:
    from cauterule.serialization.trajectory_jsonl import load_trajectories

    loaded: Counter[tuple[str, str]] = Counter()
    for path in sorted(shared_corpus.rglob("*.jsonl")):
        rel = path.relative_to(shared_corpus).as_posix()
        for trajectory in load_trajectories(path):
            loaded[(rel, trajectory.id)] += 1
    return loaded


def test_every_record_the_reference_loads_is_imported(
    imported: tuple[Store, ImportSummary], shared_corpus: Path
) -> None:
    store, _summary = imported
    ours: Counter[tuple[str, str]] = Counter(
        (d.file, d.trajectory_id) for d in CorpusRepository(store).get_trajectories()
    )
    reference = _reference_records(shared_corpus)
    assert reference - ours == Counter()


def _original_objects(path: Path) -> list[dict[str, object]]:
    """The file's objects, parsed independently of our reader (one object or a `{` block)."""
    objects: list[dict[str, object]] = []
    buffer: list[str] = []
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        if buffer or line.strip() == "{":
            buffer.append(line)
            try:
                objects.append(json.loads("\n".join(buffer)))
                buffer = []
            except json.JSONDecodeError:
                continue
        elif line.strip():
            objects.append(json.loads(line))
    return objects


def test_exported_records_equal_the_originals_and_load_in_the_reference(
    imported: tuple[Store, ImportSummary], shared_corpus: Path, tmp_path: Path
) -> None:
    from cauterule.serialization.trajectory_jsonl import load_trajectories

    store, _summary = imported
    compared = 0
    for corpus in CorpusRepository(store).list_corpora():
        if corpus.trajectories == 0:
            continue
        for written in export_corpus(store, corpus.name, tmp_path / "out"):
            rel = written.relative_to(tmp_path / "out")
            exported = [json.loads(line) for line in written.read_text(encoding="utf-8").splitlines()]
            assert exported == _original_objects(shared_corpus / rel), rel
            assert len(list(load_trajectories(written, strict=True))) == len(exported)
            compared += len(exported)
    assert compared == 358


def test_importing_the_shared_corpus_twice_imports_nothing_new(
    imported: tuple[Store, ImportSummary], shared_corpus: Path
) -> None:
    store, _summary = imported
    again = import_paths(store, [shared_corpus])
    assert again.imported == 0 and again.rules_imported == 0
    assert sum(c.unchanged for c in again.corpora) == 358
