"""A record dropped from its file is kept while a reviewer's work points at it.

Since revision 0011_team_guard the store refuses to delete a trajectory that opened evidence,
a waiver or an agreement mark refers to (it used to cascade and silently delete that work).
Re-importing an edited file that dropped such a record must still import the rest, keep the
record (out of the file's lines) and say so in a note. Both back ends."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from test_labels_support import DEMO, labels_store, pk_of  # noqa: F401 (fixture)

from core.importing import import_paths
from core.replay.profiles import profile_by_name
from core.replaying import run_replay
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store
from core.store.replay_repo import ReplayRepository
from core.store.review_repo import ReviewRepository

FILE = Path("adversarial") / "injection.jsonl"


def _replayed_copy(store: Store, tmp_path: Path) -> tuple[Path, int]:
    """A copy of the demo corpus, imported and replayed; the pk of FILE's first record."""
    corpus = tmp_path / "demo"
    shutil.copytree(DEMO, corpus)
    import_paths(store, [corpus])
    run_replay(store, profile_by_name("reference-0.3.1"))
    first = (corpus / FILE).read_text(encoding="utf-8").splitlines()[0]
    return corpus, pk_of(store, json.loads(first)["id"])


def test_an_opened_record_dropped_from_its_file_is_kept_with_a_note(labels_store: Store,  # noqa: F811
                                                                     tmp_path: Path) -> None:
    store = labels_store
    corpus, pk = _replayed_copy(store, tmp_path)
    repo = ReplayRepository(store)
    run = repo.latest_complete_run()
    assert run is not None
    result_id = repo.results(run.id)[0].id
    assert ReviewRepository(store).record_view("ana", result_id, pk)
    (corpus / FILE).write_text("", encoding="utf-8")  # the record is gone from the file

    summary = import_paths(store, [corpus])

    assert any("kept" in note and str(FILE) in note for note in summary.notes)
    assert pk in ReviewRepository(store).viewed("ana", result_id)  # the reviewer's work is still there
    kept = [t for t in CorpusRepository(store).list_trajectories(limit=10_000) if t.id == pk]
    assert len(kept) == 1


def test_a_dropped_record_nobody_reviewed_is_removed(labels_store: Store, tmp_path: Path) -> None:  # noqa: F811
    store = labels_store
    corpus, pk = _replayed_copy(store, tmp_path)
    (corpus / FILE).write_text("", encoding="utf-8")

    summary = import_paths(store, [corpus])

    assert not any("kept" in note for note in summary.notes)
    assert pk not in {t.id for t in CorpusRepository(store).list_trajectories(limit=10_000)}
