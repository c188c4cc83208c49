"""Duplicate rules (same trigger and directive) are one row of the rules table that expands,
its members read off the GUI thread when it does; a decision on the collapsed group decides
each rule, one audit event per rule."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import build_replayed_store, preset_reviewer, wait_idle
from gui_thread_guard import GuiThreadStatements
from PySide6.QtCore import Qt

from core.store.result_repo import ResultRepository
from core.store.workspace_query import WorkspaceRule

from cauterule_gui.db import DatabaseExecutor
from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.models.rule_table_model import COL_TRIGGER, RuleTableModel
from cauterule_gui.services import StoreServices, open_services
from cauterule_gui.settings import make_settings


@pytest.fixture
def copies_window(qtbot: Any, tmp_path: Path, demo_corpus: Path, runner: JobRunner) -> Iterator[MainWindow]:
    """Three copies of one failure (one expected_rule sentence) and one other failure."""
    lines = (demo_corpus / "failures" / "api.jsonl").read_text(encoding="utf-8").splitlines()
    first, second = json.loads(lines[0]), json.loads(lines[1])
    records = [dict(first, trajectory_id=f"DUPX-{i}", id=f"DUPX-{i}") for i in range(3)]
    records.append(dict(second, trajectory_id="OTHER-1", id="OTHER-1"))
    folder = tmp_path / "corpus" / "failures"
    folder.mkdir(parents=True)
    (folder / "copies.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    store = tmp_path / "dups.sqlite"
    build_replayed_store(store, [tmp_path / "corpus"])
    preset_reviewer()
    window = MainWindow(open_services(store), runner, make_settings(), open_services)
    qtbot.addWidget(window)
    window.replay.set_semantic(False)
    window.show()
    qtbot.waitExposed(window)
    window.show_review()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    wait_idle(window)  # the table's rows are read through the executor
    yield window
    window.close()
    window.services.close()


def _group_row(model: RuleTableModel) -> int:
    return next(r for r in range(model.rowCount()) if model.is_group(r))


def test_duplicates_are_one_row_that_expands_and_collapses(qtbot: Any, copies_window: MainWindow) -> None:
    rules = copies_window.workspace.rules
    model = rules.model
    assert (model.rowCount(), model.total, model.rule_total) == (2, 2, 4)
    row = _group_row(model)
    assert model.index(row, COL_TRIGGER).data().startswith("×3 ▸ ")
    rules.select_row(row)
    rules.view.setFocus()
    qtbot.keyClick(rules.view, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: model.rowCount() == 4, timeout=5000)  # the members are read, then shown
    assert model.index(row, COL_TRIGGER).data().startswith("×3 ▾ ")
    members = [model.rule(r) for r in (row, row + 1, row + 2)]
    assert all(model.index(r, COL_TRIGGER).data().startswith("    ↳ ") for r in (row + 1, row + 2))
    assert len({m.rule_id for m in members}) == 3 and len({m.group_key for m in members}) == 1
    rules.select_row(row + 2)
    qtbot.keyClick(rules.view, Qt.Key.Key_Left)  # from a member: its group collapses, selection on the group
    assert model.rowCount() == 2 and rules.view.currentIndex().row() == row
    assert rules.progress_label.text() == "0 / 4 reviewed"


def test_a_decision_on_the_collapsed_group_decides_each_rule_with_its_own_audit_event(
        qtbot: Any, copies_window: MainWindow) -> None:
    rules = copies_window.workspace.rules
    row = _group_row(rules.model)
    rules.select_row(row)
    rules.view.setFocus()
    qtbot.keyClick(rules.view, Qt.Key.Key_D)
    wait_idle(copies_window)  # the decisions are written on the database thread
    result = copies_window.bulk.last
    assert result is not None and result.action == "defer" and len(result.decided) == 3
    reviews = copies_window.services.reviews
    for rule_id in result.decided:
        assert reviews.current(rule_id).action == "defer"
        assert [e.action for e in reviews.rule_audit(rule_id)] == ["defer"]
    other = rules.model.rule(1 - row)
    assert other is not None and reviews.current(other.rule_id) is None


def test_a_on_a_group_of_one_sentence_copies_asks_one_acknowledgement_and_moves_on(
        qtbot: Any, copies_window: MainWindow) -> None:
    """The split gate (issue 28) refused every expected_rule copy of a collapsed group by name,
    and the keys had no way on: A now asks one acknowledgement with a reason (keyboard: type,
    Return), records it on each rule, and the table moves past the group like a one-rule decision."""
    rules = copies_window.workspace.rules
    row = _group_row(rules.model)
    group = rules.model.rule(row)
    assert group.directive.strip() == group.trigger.strip()  # expected_rule copies: one sentence
    rules.select_row(row)
    rules.view.setFocus()
    qtbot.keyClick(rules.view, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: copies_window.bulk.reason_dialog is not None
                    and copies_window.bulk.reason_dialog.isVisible(), timeout=5000)
    dialog = copies_window.bulk.reason_dialog
    assert dialog.windowTitle() == "Approve rules that fire on no task" and "fire on no task" in dialog.prompt.text()
    qtbot.keyClicks(dialog.edit, "kept as one sentence on purpose")
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    wait_idle(copies_window)
    result = copies_window.bulk.last
    assert result is not None and len(result.decided) == 3 and not result.refused, result
    reviews = copies_window.services.reviews
    for rule_id in result.decided:
        [event] = [e for e in reviews.rule_audit(rule_id) if e.action == "approve"]
        assert event.after["acknowledgement"].startswith("tester acknowledged: trigger and directive are one sentence")
    qtbot.waitUntil(lambda: rules.current_rule_id() not in (None, *result.decided), timeout=5000)


def _members(window: MainWindow, row: int) -> list[WorkspaceRule]:
    """What the store says the group of ``row`` holds under the table's filter (read by the test)."""
    model = window.workspace.rules.model
    key = model.rule(row).group_key
    return window.services.results.group_members(model.scope, model.filter, [key])[key]


def test_selecting_a_member_of_a_collapsed_group_reads_the_group_and_expands_it(
        qtbot: Any, copies_window: MainWindow) -> None:
    rules = copies_window.workspace.rules
    model = rules.model
    row = _group_row(model)
    members = _members(copies_window, row)
    assert len(members) == 3 and not model.is_expanded(row)
    rules.select_rule(members[-1].rule_id)
    qtbot.waitUntil(lambda: rules.current_rule_id() == members[-1].rule_id, timeout=5000)
    assert model.is_expanded(row) and model.rowCount() == 4


def test_g_on_a_collapsed_group_selects_each_member_without_reading_on_the_gui_thread(
        qtbot: Any, copies_window: MainWindow) -> None:
    rules = copies_window.workspace.rules
    model = rules.model
    row = _group_row(model)
    rules.select_row(row)
    rules.view.setFocus()
    with GuiThreadStatements(copies_window.services.store.engine) as guard:
        with qtbot.waitSignal(copies_window.bulk.group_selected, timeout=5000) as selected:
            qtbot.keyClick(rules.view, Qt.Key.Key_G)
    assert selected.args == [3]
    assert model.is_expanded(row) and rules.selected_rows() == [row, row + 1, row + 2]
    assert sorted(rules.selected_rule_ids()) == sorted(m.rule_id for m in _members(copies_window, row))
    assert not guard.seen, guard.report()


def test_a_filter_matching_one_member_shows_that_member_as_its_groups_row(
        qtbot: Any, copies_window: MainWindow) -> None:
    rules = copies_window.workspace.rules
    model = rules.model
    last = _members(copies_window, _group_row(model))[-1]  # not the group's row when unfiltered
    assert last.source_trajectory is not None and model.rule(_group_row(model)).rule_id != last.rule_id
    rules.text_edit.setText(last.source_trajectory)
    rules.apply_filter_now()
    qtbot.waitUntil(lambda: model.rowCount() == 1 and not model.busy, timeout=5000)
    assert model.rule(0).rule_id == last.rule_id and model.rule(0).group_size == 1
    assert rules.progress_label.text() == "0 / 1 reviewed"


def test_a_decision_on_a_member_refreshes_its_group_row_and_keeps_the_group_open(
        qtbot: Any, copies_window: MainWindow) -> None:
    rules = copies_window.workspace.rules
    model = rules.model
    row = _group_row(model)
    assert model.rule(row).group_unreviewed == 3
    model.expand(row)
    qtbot.waitUntil(lambda: model.rowCount() == 4, timeout=5000)
    member = model.rule(row + 2)
    rules.select_row(row + 2)
    rules.view.setFocus()
    qtbot.keyClick(rules.view, Qt.Key.Key_D)  # one rule selected: the single decision path
    wait_idle(copies_window)  # the decision is written, then the table re-reads its rows and the open group
    assert copies_window.services.reviews.current(member.rule_id).action == "defer"
    head = _group_row(model)
    tip = model.index(head, COL_TRIGGER).data(Qt.ItemDataRole.ToolTipRole).replace("\xa0", " ")
    assert model.rule(head).group_unreviewed == 2 and "2 unreviewed" in tip
    assert model.is_expanded(head) and model.rowCount() == 4
    shown = next(model.rule(r) for r in range(model.rowCount()) if model.rule(r).rule_id == member.rule_id)
    assert shown.status == "defer" and rules.progress_label.text() == "1 / 4 reviewed"


def test_the_grouped_model_keeps_qts_contract_while_groups_expand_and_collapse(
        qtmodeltester: Any, replayed: Any) -> None:
    model = RuleTableModel(replayed.results, page_size=7)  # the demo has two pairs of duplicates
    model.fetch_all()
    groups = [r for r in range(model.rowCount()) if model.is_group(r)]
    assert len(groups) == 2 and model.rowCount() == model.total == model.rule_total - 2
    qtmodeltester.check(model)
    model.expand(groups[1])
    model.expand(groups[0])
    assert model.rowCount() == model.rule_total
    qtmodeltester.check(model)
    model.collapse(groups[0] + 1)  # from a member row
    assert model.rowCount() == model.rule_total - 1 and not model.is_expanded(groups[0])


def test_grouped_pages_and_a_groups_members_are_read_off_the_gui_thread(
        qtbot: Any, replayed: StoreServices, runner: JobRunner) -> None:
    model = RuleTableModel(replayed.results, page_size=7)
    model.set_executor(DatabaseExecutor(runner, lambda: replayed))
    with GuiThreadStatements(replayed.store.engine) as guard:
        with qtbot.waitSignal(model.loaded, timeout=5000):
            model.refresh()
        pages = 0
        while model.canFetchMore():
            shown = model.rowCount()
            model.fetchMore()
            assert model.rowCount() == shown and not model.canFetchMore()  # on its way: asked once
            qtbot.waitUntil(lambda: not model.busy, timeout=5000)
            pages += 1
        groups = [r for r in range(model.rowCount()) if model.is_group(r)]
        assert model.rowCount() == model.total  # the pages hold the group rows only
        for row in reversed(groups):
            shown = model.rowCount()
            with qtbot.waitSignal(model.members_loaded, timeout=5000):
                assert model.expand(row) and model.rowCount() == shown  # asked; shown when read
        assert model.rowCount() == model.rule_total
    assert pages >= 1 and len(groups) == 2
    assert not guard.seen, guard.report()


def test_a_selected_member_is_selected_again_in_the_next_session(
        qtbot: Any, copies_window: MainWindow, runner: JobRunner) -> None:
    rules = copies_window.workspace.rules
    model = rules.model
    row = _group_row(model)
    member = _members(copies_window, row)[-1]
    rules.select_rule(member.rule_id)
    qtbot.waitUntil(lambda: rules.current_rule_id() == member.rule_id, timeout=5000)
    path = copies_window.services.path
    copies_window.close()  # saves the session: the rule selected
    copies_window.services.close()

    services = open_services(path)
    again = MainWindow(services, runner, make_settings(), open_services)
    qtbot.addWidget(again)
    again.show()
    try:
        # The member's group is collapsed in a new window: it is read, expanded and the member selected.
        qtbot.waitUntil(lambda: again.workspace.rules.current_rule_id() == member.rule_id, timeout=10_000)
        shown = again.workspace.rules.view.currentIndex().row()
        assert again.rule_model.is_member(shown) and again.rule_model.is_expanded(again.rule_model.group_row(shown))
    finally:
        wait_idle(again)
        again.close()
        services.close()


def test_a_group_expanded_while_a_refresh_is_read_stays_open_when_the_page_comes_first(
        qtbot: Any, copies_window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    model = copies_window.workspace.rules.model
    row = _group_row(model)
    gate = threading.Event()
    real = ResultRepository.group_members

    def held(repo: ResultRepository, *args: Any, **kwargs: Any) -> Any:
        gate.wait(20)  # the members' read waits until the refresh's first page is shown
        return real(repo, *args, **kwargs)

    monkeypatch.setattr(ResultRepository, "group_members", held)
    try:
        with qtbot.waitSignal(model.loaded, timeout=10_000):
            model.refresh()  # a refresh on its way (a decision elsewhere, a new run) ...
            assert model.expand(row)  # ... while the reviewer expands the group
        assert model.is_expanded(_group_row(model))  # the page came first: the group is still open
    finally:
        gate.set()
    qtbot.waitUntil(lambda: model.rowCount() == 4, timeout=10_000)  # and its members arrive under it
    assert model.is_expanded(_group_row(model))


def test_e_on_a_collapsed_group_says_which_rule_it_edits(qtbot: Any, copies_window: MainWindow) -> None:
    """Issue 24 item 8: E on a group row edited only its first rule, silently."""
    from PySide6.QtWidgets import QLabel

    rules = copies_window.workspace.rules
    row = _group_row(rules.model)
    rules.select_row(row)
    rules.view.setFocus()
    head = rules.model.rule(row)
    qtbot.keyClick(rules.view, Qt.Key.Key_E)
    qtbot.waitUntil(lambda: copies_window.whatif.dialog is not None, timeout=5000)
    dialog = copies_window.whatif.dialog
    heading = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert "×3 duplicates" in heading and f"new version of {head.origin} only" in heading
    assert "the other 2 keep their text" in heading
    dialog.reject()
