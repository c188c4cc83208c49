"""At 1280×800 no cell of the rules, promotion, corpus or import-report tables shows an
elided code word (issue 24 item 4): short glossary words, columns sized to the widest of them,
the full sentence in the tooltip; the import report's reason gets the room and wraps."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from conftest import wait_idle
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QTableView

from core.store.dto import ImportIssue, ImportSummary

from cauterule_gui.glossary import GLOSSARY, word
from cauterule_gui.main_window import MainWindow
from cauterule_gui.models import promotion_queue_model as pq
from cauterule_gui.models import rule_table_model as rt
from cauterule_gui.models import trajectory_table_model as tt
from cauterule_gui.panels.import_dialogs import ImportResultDialog

MARGIN = 8  # the delegate's text margins, both sides


def elided_cells(view: QTableView, columns: Iterable[int], rows: int = 60) -> list[str]:
    """Cells whose text is wider than its column, or whose column ends outside the viewport."""
    model, metrics, found = view.model(), view.fontMetrics(), []
    viewport = view.viewport().width()
    for column in columns:
        if view.isColumnHidden(column):
            continue
        width = view.columnWidth(column)
        right = view.columnViewportPosition(column) + width
        for row in range(min(model.rowCount(), rows)):
            text = str(model.index(row, column).data(Qt.ItemDataRole.DisplayRole) or "")
            if metrics.horizontalAdvance(text) + MARGIN > width or (text and right > viewport):
                found.append(f"{model.headerData(column, Qt.Orientation.Horizontal)}: {text!r} "
                             f"({metrics.horizontalAdvance(text)} px text, column {width} px ending at {right} "
                             f"of {viewport})")
    return found


def test_every_code_has_a_short_word_and_no_cell_shows_a_code() -> None:
    for code, (short, full) in GLOSSARY.items():
        assert "_" not in short and len(short) <= 18, code
        assert full
    assert word("blocked_by_near_miss") == "near misses" and word("alias_phrase") == "alias phrase"
    assert word("some_new_code") == "some new code"  # unknown codes are still readable


def test_rules_promotion_and_corpus_cells_are_whole_at_1280(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    window.resize(1280, 800)
    wait_idle(window)
    rules = window.workspace.rules
    qtbot.waitUntil(lambda: rules.model.rowCount() > 5, timeout=10_000)
    reasons = {str(rules.model.index(r, rt.COL_REASON).data()) for r in range(rules.model.rowCount())}
    assert reasons & {"no signal", "near misses", "breaks successes"}  # the demo store has such rules
    assert not elided_cells(rules.view, (rt.COL_VERDICT, rt.COL_REASON, rt.COL_STATUS, rt.COL_MARK, rt.COL_RUN))

    window.tab_registry.show_tab(window.workflows.promotion)
    promotion = window.workflows.promotion
    qtbot.waitUntil(lambda: promotion.model.rowCount() > 5, timeout=60_000)
    wait_idle(window)
    # Every column of states and gate words (the rule id and trigger are text, elided in the middle).
    assert not elided_cells(promotion.view, (pq.COL_GROUP, pq.COL_VERDICT, pq.COL_BROKEN, pq.COL_AGREEMENT,
                                             pq.COL_DUPLICATES, pq.COL_CONFLICTS, pq.COL_DECISION, pq.COL_STALE))

    window.tab_registry.show_tab(window.splitter)
    table = window.table_panel
    qtbot.waitUntil(lambda: table.view.model().rowCount() > 5, timeout=10_000)
    wait_idle(window)
    qtbot.waitUntil(lambda: not any(str(table.view.model().index(r, tt.COL_GATE).data()) == "…"
                                    for r in range(min(table.view.model().rowCount(), 60))), timeout=30_000)
    assert not elided_cells(table.view, (tt.COL_SUCCESS, tt.COL_GATE, tt.COL_TRUST))


def test_the_import_report_gives_the_reason_the_room(qtbot: Any) -> None:
    reason = ("expected_outcome must be one of success, failure or near_miss; found 'sucess' "
              "(the record is skipped, the records around it were imported)")
    issues = tuple(ImportIssue("corpus", f"corpora/shared/adversarial/tool-output/file-{i}.jsonl", i, "expected_outcome",
                               reason) for i in range(5))
    dialog = ImportResultDialog(ImportSummary(1, (), issues, 0))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    table = dialog.table
    assert table.columnWidth(3) > 2 * table.columnWidth(0)  # the reason, not the path, has the room
    metrics = table.fontMetrics()
    for row in range(table.model().rowCount()):
        needed = metrics.boundingRect(QRect(0, 0, table.columnWidth(3) - MARGIN, 10_000),
                                      Qt.TextFlag.TextWordWrap, reason).height()
        assert table.rowHeight(row) >= needed  # wrapped whole, nothing cut
    assert table.model().index(0, 0).data(Qt.ItemDataRole.ToolTipRole)  # the whole path on hover
    dialog.close()
