"""Table models: Qt's model contract, SQL filtering and lazy paging."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gui_records import trajectory, write_jsonl

from core.importing import import_paths
from core.store.corpus_repo import TrajectoryFilter
from core.store.dto import ImportIssue

from cauterule_gui.models.corpus_table_model import CORPUS_NAME_ROLE, CorpusTableModel
from cauterule_gui.models.import_issue_table_model import ImportIssueTableModel
from cauterule_gui.models.trajectory_table_model import PK_ROLE, TrajectoryTableModel
from cauterule_gui.services import StoreServices


def test_trajectory_model_passes_modeltester(qtmodeltester: Any, populated: StoreServices) -> None:
    model = TrajectoryTableModel(populated.corpora, page_size=2)  # small pages exercise fetchMore
    qtmodeltester.check(model)


def test_corpus_model_passes_modeltester(qtmodeltester: Any, populated: StoreServices) -> None:
    qtmodeltester.check(CorpusTableModel(populated.corpora))


def test_import_issue_model_passes_modeltester(qtmodeltester: Any) -> None:
    issues = [ImportIssue("c", "a.jsonl", 3, "success", "missing"), ImportIssue(None, "b.jsonl", None, None, "bad")]
    qtmodeltester.check(ImportIssueTableModel(issues))


def test_text_filter_narrows_rows_in_sql(populated: StoreServices) -> None:
    model = TrajectoryTableModel(populated.corpora)
    assert model.total == 5
    model.set_text("pip")
    assert model.total == model.rowCount() == 1
    assert model.index(0, 0).data() == "F-003-pip-conflict"
    # The count came from the repository's SQL filter, not from filtering loaded rows.
    assert populated.corpora.count_trajectories(TrajectoryFilter(text="pip")) == 1


def test_corpus_filter_shows_only_that_corpus(populated: StoreServices) -> None:
    model = TrajectoryTableModel(populated.corpora)
    model.set_corpus("successes")
    assert {model.index(r, 1).data() for r in range(model.rowCount())} == {"successes"}
    assert model.total == 2


def test_rows_are_fetched_lazily_a_page_at_a_time(services: StoreServices, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "big" / "many" / "t.jsonl", [trajectory(f"T-{i:03d}") for i in range(25)])
    import_paths(services.store, [tmp_path / "big"])
    model = TrajectoryTableModel(services.corpora, page_size=10)
    assert (model.rowCount(), model.total, model.canFetchMore()) == (10, 25, True)
    model.fetchMore()
    model.fetchMore()
    assert (model.rowCount(), model.canFetchMore()) == (25, False)


def test_sorting_is_done_by_the_repository(populated: StoreServices) -> None:
    from PySide6.QtCore import Qt

    model = TrajectoryTableModel(populated.corpora)
    model.sort(0, Qt.SortOrder.DescendingOrder)
    ids = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert ids == sorted(ids, reverse=True)
    assert all(isinstance(model.index(r, 0).data(PK_ROLE), int) for r in range(model.rowCount()))


def test_corpus_model_has_an_all_corpora_row_with_totals(populated: StoreServices) -> None:
    model = CorpusTableModel(populated.corpora)
    assert model.index(0, 0).data() == "All corpora"
    assert model.index(0, 0).data(CORPUS_NAME_ROLE) is None
    assert model.index(0, 2).data() == 5
    assert [model.index(r, 0).data() for r in range(1, model.rowCount())] == ["failures", "successes"]
