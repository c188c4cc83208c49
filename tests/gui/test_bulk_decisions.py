"""A decision on a multi-row selection or a duplicate group applies to each rule, one audit
event per rule; duplicates (same trigger and directive) are marked and selectable with G."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import build_replayed_store, preset_reviewer, wait_idle
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt

from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.models.rule_table_model import COL_TRIGGER
from cauterule_gui.services import open_services
from cauterule_gui.settings import make_settings


def _select_rows(window: MainWindow, rows: list[int]) -> None:
    rules = window.workspace.rules
    selection = QItemSelection()
    for row in rows:
        selection.select(rules.model.index(row, 0), rules.model.index(row, rules.model.columnCount() - 1))
    rules.view.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)


def test_defer_on_three_selected_rules_decides_each_with_its_own_audit_event(
        qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    rules = window.workspace.rules
    _select_rows(window, [0, 1, 2])
    ids = [rules.model.rule(r).rule_id for r in (0, 1, 2)]
    qtbot.keyClick(rules.view, Qt.Key.Key_D)
    wait_idle(window)
    reviews = window.services.reviews
    for rule_id in ids:
        assert reviews.current(rule_id).action == "defer"
        assert [e.action for e in reviews.rule_audit(rule_id)] == ["defer"]
    assert window.bulk.last is not None and sorted(window.bulk.last.decided) == sorted(ids)


def test_a_refused_approval_in_a_selection_is_named_and_the_others_are_approved(
        qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    model = window.workspace.rules.model
    for row in reversed(range(model.rowCount())):
        model.expand(row)  # a collapsed duplicate group's row stands for all its rules; expanded, one each
    qtbot.waitUntil(lambda: model.rowCount() == model.rule_total, timeout=5000)  # members read off the GUI thread
    rows = [model.rule(r) for r in range(model.rowCount())]
    clean = [r for r, rule in enumerate(rows) if not rule.broken_n and rule.verdict == "pass"][:2]
    broken = [r for r, rule in enumerate(rows) if rule.broken_n and rule.verdict == "pass"][:1]
    assert len(clean) == 2 and len(broken) == 1, "the demo run has passing rules with and without broken rows"
    _select_rows(window, clean + broken)
    qtbot.keyClick(window.workspace.rules.view, Qt.Key.Key_A)
    wait_idle(window)
    dialog = window.bulk.reason_dialog
    if dialog is not None and dialog.isVisible():  # one-sentence rules among them: acknowledged once, with a reason
        qtbot.keyClicks(dialog.edit, "one sentence on purpose")
        qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
        wait_idle(window)
    result = window.bulk.last
    assert result is not None and result.action == "approve"
    assert sorted(result.decided) == sorted(rows[r].rule_id for r in clean)
    assert list(result.refused) == [rows[broken[0]].rule_id] and "broken" in result.refused[rows[broken[0]].rule_id]
    assert window.services.reviews.current(rows[broken[0]].rule_id) is None


def test_duplicates_are_marked_and_g_selects_the_group(qtbot: Any, tmp_path: Path, demo_corpus: Path,
                                                       runner: JobRunner) -> None:
    record = json.loads((demo_corpus / "failures" / "api.jsonl").read_text(encoding="utf-8").splitlines()[0])
    folder = tmp_path / "corpus" / "failures"
    folder.mkdir(parents=True)
    lines = [json.dumps(dict(record, trajectory_id=f"COPY-{i}", id=f"COPY-{i}")) for i in range(3)]
    (folder / "copies.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = tmp_path / "dups.sqlite"
    build_replayed_store(store, [tmp_path / "corpus"])
    preset_reviewer()
    window = MainWindow(open_services(store), runner, make_settings(), open_services)
    qtbot.addWidget(window)
    window.show()
    try:
        qtbot.waitUntil(lambda: len(window.bulk.duplicates) == 3, timeout=10_000)
        rules = window.workspace.rules
        window.show_review()
        rules.select_row(0)
        assert rules.model.index(0, COL_TRIGGER).data().startswith("×3 ")
        rules.view.setFocus()
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=5000)
        with qtbot.waitSignal(window.bulk.group_selected, timeout=10_000) as selected:
            qtbot.keyClick(rules.view, Qt.Key.Key_G)  # the group's ids are read off the GUI thread
        assert selected.args == [3] and len(window.bulk.selected_rows()) == 3
        qtbot.keyClick(rules.view, Qt.Key.Key_D)
        wait_idle(window)
        for rule_id in window.bulk.duplicates:
            assert [e.action for e in window.services.reviews.rule_audit(rule_id)] == ["defer"]
    finally:
        window.close()
        window.services.close()
