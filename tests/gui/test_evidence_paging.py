"""A replay result with 10^4 evidence rows in one bucket (issue 13 item 5, issue 16): the
board opens by reading one page, later pages are read through the executor as the table
scrolls or as ] walks past the rows read, and resuming on a deep row reads only the pages
before it. Rows read are counted where they are built (``evidence_pages.outcome_from_row``)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import preset_reviewer, shown_window, wait_idle
from paging_stores import build_big_bucket_store
from PySide6.QtCore import Qt

from core.store import evidence_pages
from core.store.result_repo import ResultRepository

from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.services import open_services

ROWS = 10_000


@pytest.fixture(scope="module")
def big_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big-bucket") / "big.sqlite"
    build_big_bucket_store(path, failures=ROWS + 1)
    return path


@pytest.fixture
def rows_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every evidence row built from the store (on whichever thread), by trajectory pk. Tests ask
    for it before ``big_window``: the window selects its first rule by itself, and that board's
    read must be counted whether it ends before or after the test selects the rule again."""
    built: list[int] = []
    real = evidence_pages.outcome_from_row

    def counted(store: Any, row: Any) -> Any:
        built.append(int(row["trajectory_pk"]))
        return real(store, row)

    monkeypatch.setattr(evidence_pages, "outcome_from_row", counted)
    return built


@pytest.fixture
def big_window(qtbot: Any, tmp_path: Path, big_template: Path, runner: JobRunner) -> Iterator[MainWindow]:
    target = tmp_path / "big.sqlite"
    shutil.copy(big_template, target)
    preset_reviewer()
    services = open_services(target)
    window = shown_window(qtbot, services, runner)
    qtbot.waitUntil(lambda: window.workspace.rules.model.rowCount() == 1, timeout=30_000)
    yield window
    window.close()
    services.close()


def _open_rule(qtbot: Any, window: MainWindow) -> None:
    window.workspace.rules.select_row(0)
    qtbot.waitUntil(lambda: window.workspace.evidence.result is not None, timeout=30_000)
    wait_idle(window)


def test_a_result_with_ten_thousand_rows_opens_reading_one_page(
        qtbot: Any, rows_read: list[int], big_window: MainWindow) -> None:
    _open_rule(qtbot, big_window)
    evidence = big_window.workspace.evidence
    assert evidence.count("prevented") == ROWS
    assert evidence.tabs.tabText(0).endswith(f"({ROWS:,})")
    assert evidence.model.rowCount() == evidence_pages.PAGE and evidence.model.total == ROWS
    assert len(rows_read) == evidence_pages.PAGE  # the first page, not 10^4 rows


def test_scrolling_reads_the_next_pages_in_the_evidence_order(
        qtbot: Any, rows_read: list[int], big_window: MainWindow) -> None:
    _open_rule(qtbot, big_window)
    evidence = big_window.workspace.evidence
    for shown in (2 * evidence_pages.PAGE, 3 * evidence_pages.PAGE):
        evidence.view.scrollToBottom()  # the view asks canFetchMore / fetchMore at the bottom
        qtbot.waitUntil(lambda n=shown: evidence.model.rowCount() == n, timeout=20_000)
    wait_idle(big_window)
    # Page by page, never the whole bucket: when the rows inserted leave the view at its
    # bottom, Qt's view may ask for one more page by itself (seen under load), so allow one.
    shown = evidence.model.rowCount()
    assert shown in (3 * evidence_pages.PAGE, 4 * evidence_pages.PAGE)
    assert len(rows_read) == shown
    result_id = evidence.result.id
    expected = evidence_pages.evidence_page(big_window.services.store, result_id, "prevented", 0, shown)
    got = [evidence.model.outcome(r).trajectory_pk for r in range(shown)]
    assert got == [o.trajectory_pk for o in expected]


def test_next_row_past_the_rows_read_opens_it_when_its_page_is_in(qtbot: Any, big_window: MainWindow) -> None:
    _open_rule(qtbot, big_window)
    evidence, rules = big_window.workspace.evidence, big_window.workspace.rules
    last = evidence.model.rowCount() - 1
    evidence.view.setCurrentIndex(evidence.model.index(last, 0))
    rules.view.setFocus()
    qtbot.keyClick(rules.view, Qt.Key.Key_BracketRight)
    qtbot.waitUntil(lambda: evidence.view.currentIndex().row() == last + 1, timeout=20_000)
    assert evidence.model.rowCount() == 2 * evidence_pages.PAGE
    wait_idle(big_window)
    opened = evidence.current_outcome()
    assert opened is not None
    assert opened.trajectory_pk in big_window.services.reviews.viewed("tester", evidence.result.id)


def test_resuming_on_a_deep_row_reads_only_the_pages_before_it(
        qtbot: Any, rows_read: list[int], big_window: MainWindow) -> None:
    _open_rule(qtbot, big_window)
    evidence = big_window.workspace.evidence
    result_id = evidence.result.id
    target = evidence_pages.evidence_page(big_window.services.store, result_id, "prevented", 450, 1)[0]
    rows_read.clear()
    assert evidence.restore_row("prevented", target.trajectory_pk)
    qtbot.waitUntil(lambda: evidence.current_outcome() is not None
                    and evidence.current_outcome().trajectory_pk == target.trajectory_pk, timeout=30_000)
    assert evidence.view.currentIndex().row() == 450
    read = list(rows_read)
    # Pages 2 and 3 in order (the first came with the board), not the bucket: as in the scroll
    # test, Qt's view may ask for one page more by itself when rows arrive under load.
    pages = evidence_pages.evidence_page(big_window.services.store, result_id, "prevented",
                                         evidence_pages.PAGE, 2 * evidence_pages.PAGE)
    assert read[:2 * evidence_pages.PAGE] == [o.trajectory_pk for o in pages]
    assert len(read) in (2 * evidence_pages.PAGE, 3 * evidence_pages.PAGE)


def test_a_rule_selected_again_while_its_board_is_read_reads_it_once(
        qtbot: Any, rows_read: list[int], big_window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    _open_rule(qtbot, big_window)
    controller, rules = big_window.review, big_window.workspace.rules
    gate, boards = threading.Event(), []
    real = ResultRepository.evidence_bundle

    def held(repo: ResultRepository, result_id: int, reviewer: str | None) -> Any:
        boards.append(result_id)
        gate.wait(20)
        return real(repo, result_id, reviewer)

    monkeypatch.setattr(ResultRepository, "evidence_bundle", held)
    rule = controller.rule
    controller.show_rule(None)  # away from the rule (its board is dropped) ...
    controller.show_rule(rule)  # ... and back: the board is read again, held here
    qtbot.waitUntil(lambda: len(boards) == 1, timeout=10_000)
    rules.rule_selected.emit(rule)  # selected again (a table refresh) while that read is held
    gate.set()
    qtbot.waitUntil(lambda: big_window.workspace.evidence.result is not None, timeout=20_000)
    wait_idle(big_window)
    assert boards == [rule.result_id]
    assert big_window.workspace.evidence.model.rowCount() == evidence_pages.PAGE
