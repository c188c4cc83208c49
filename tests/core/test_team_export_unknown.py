"""``team-export`` for a name with no work in the store writes nothing and says who has work."""

from __future__ import annotations

from pathlib import Path

from core.cli import main
from core.domain.labels import LabelText
from core.labels.service import save_label
from core.store.corpus_repo import CorpusRepository
from core.store.engine import open_store


def _labelled_store(tmp_path: Path, demo_corpus: Path) -> Path:
    store = tmp_path / "s.sqlite"
    assert main(["import", str(demo_corpus), "--store", str(store)]) == 0
    opened = open_store(store)
    try:
        pk = CorpusRepository(opened).trajectory_pks()[0]
        save_label(opened, pk, "ana", LabelText("the deploy fails", "roll back first"))
    finally:
        opened.close()
    return store


def test_team_export_of_an_unknown_reviewer_writes_no_file(tmp_path: Path, demo_corpus: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    store = _labelled_store(tmp_path, demo_corpus)
    out = tmp_path / "anna.json"
    assert main(["team-export", "--store", str(store), "--reviewer", "anna", "--out", str(out)]) != 0
    err = capsys.readouterr().err
    assert "anna has no labels" in err and "people with work here: ana" in err
    assert not out.exists()


def test_team_export_of_a_reviewer_with_work_still_writes_it(tmp_path: Path, demo_corpus: Path) -> None:
    store = _labelled_store(tmp_path, demo_corpus)
    out = tmp_path / "ana.json"
    assert main(["team-export", "--store", str(store), "--reviewer", "ana", "--out", str(out)]) == 0
    assert out.is_file()
