"""Two reviewers, one store: the window names what its reviewer saw, and a conflicting write opens
the conflict dialog (keep mine / take theirs / cancel); nothing is written silently.

Each test runs on a SQLite file (two stores on the same file) and on PostgreSQL (two
connections to the same database): window A reads, connection B writes, A writes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from every_kind import Builder
from sqlalchemy import text

from core.decisions.service import DecisionRequest, decide
from core.domain.labels import LabelText
from core.labels.service import adjudicate, save_label
from core.store.engine import Store, open_store
from core.store.label_repo import LabelRepository
from core.store.rule_repo import RuleRepository

pytest.importorskip("PySide6")


@pytest.fixture()
def seeded(store_location: Path | str) -> tuple[Path | str, int]:
    store = open_store(store_location)
    b = Builder(store)
    b.trajectories("F-1", "F-2")
    b.trajectories("S-1", success=True)
    rule = b.rule("c/r1.yaml", "when git push is rejected", "pull --rebase then push")
    second = b.rule("c/r2.yaml", "when the build cache is stale", "clear the cache then rebuild")
    b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]}), (second, "pass", {"prevented": ["F-2"]})])
    save_label(store, b.pks["F-1"], "ana", LabelText("when push is rejected", "pull first"))
    save_label(store, b.pks["F-1"], "cy", LabelText("when the remote refuses", "fetch then merge"))
    store.close()
    return store_location, rule


@pytest.fixture()
def other(seeded: tuple[Path | str, int]) -> Iterator[Store]:
    """Reviewer B: a second store object on the same file / database."""
    opened = open_store(seeded[0])
    yield opened
    opened.close()


def _settings(tmp_path: Path) -> Any:
    from PySide6.QtCore import QSettings

    from cauterule_gui.reviewer import KEY_REVIEWER
    from cauterule_gui.settings import KEY_WELCOME

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue(KEY_REVIEWER, "ana")  # a SQLite store's reviewer; a team store's is the login
    settings.setValue(KEY_WELCOME, False)
    return settings


@pytest.fixture()
def window(seeded: tuple[Path | str, int], qtbot: Any, tmp_path: Path) -> Iterator[Any]:
    from cauterule_gui.jobs import JobRunner
    from cauterule_gui.main_window import MainWindow
    from cauterule_gui.services import open_services

    main = MainWindow(open_services(seeded[0]), JobRunner(), _settings(tmp_path), open_services)
    qtbot.addWidget(main)
    main.replay.set_semantic(False)
    main.show()
    main.show_review()
    rules = main.workspace.rules
    qtbot.waitUntil(lambda: rules.model.row_of_rule(seeded[1]) is not None, timeout=15_000)
    assert rules.select_rule(seeded[1])
    qtbot.waitUntil(lambda: main.review.rule is not None and main.review.rule.rule_id == seeded[1], timeout=10_000)
    yield main
    main.close()
    assert main.runner.shutdown(10_000)
    main.services.close()


def idle(runner: Any, timeout: float = 30.0) -> None:
    """Run the event loop until the runner's jobs (and the reads their callbacks start) are done."""
    from PySide6.QtCore import QEventLoop, QTimer

    deadline, quiet = time.monotonic() + timeout, 0
    while quiet < 2:
        loop = QEventLoop()
        QTimer.singleShot(15, loop.quit)
        loop.exec()
        quiet = quiet + 1 if not runner.is_busy() else 0
        assert time.monotonic() < deadline, "jobs still running"


def decisions(store: Store) -> list[tuple[str, str]]:
    with store.read_session() as session:
        return [(str(r[0]), str(r[1])) for r in session.execute(
            text("SELECT reviewer, action FROM decision ORDER BY id"))]


def _conflict_after_bo_rejects(window: Any, other: Store, rule: int) -> Any:
    decide(other, DecisionRequest("reject", "bo", rule, reason="fires on every push"))
    window.review.defer()  # A decides on the rule as it saw it, before B's reject
    idle(window.runner)
    dialog = window.review.conflict_dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


# -- the Review tab -------------------------------------------------------------------------------
def test_a_decision_after_another_reviewers_opens_the_dialog_naming_them(
        window: Any, other: Store, seeded: tuple[Path | str, int]) -> None:
    dialog = _conflict_after_bo_rejects(window, other, seeded[1])
    details = dialog.details.text()
    assert "Changed by: bo" in details and "What they did: reject (fires on every push)" in details
    assert "When: 20" in details  # the time of bo's decision
    assert decisions(other) == [("bo", "reject")]  # nothing of A's was written
    dialog.choose("cancel")


def test_keep_mine_saves_the_decision_over_theirs(window: Any, other: Store, seeded: tuple[Path | str, int]) -> None:
    me = window.identity.name
    _conflict_after_bo_rejects(window, other, seeded[1]).keep_mine.click()
    idle(window.runner)
    assert decisions(other) == [("bo", "reject"), (me, "defer")]
    assert window.review.conflict_dialog is None


def test_take_theirs_drops_mine_and_shows_theirs(window: Any, other: Store, seeded: tuple[Path | str, int]) -> None:
    _conflict_after_bo_rejects(window, other, seeded[1]).take_theirs.click()
    idle(window.runner)
    assert decisions(other) == [("bo", "reject")]
    assert "Kept bo's change" in window.workspace.evidence.banner.text()
    row = window.workspace.rules.current_rule()
    assert row is not None and row.rule_id == seeded[1] and row.reviewer == "bo"  # the table shows theirs now


def test_cancel_writes_nothing(window: Any, other: Store, seeded: tuple[Path | str, int]) -> None:
    dialog = _conflict_after_bo_rejects(window, other, seeded[1])
    dialog.cancel_button.click()
    idle(window.runner)
    assert decisions(other) == [("bo", "reject")]
    from PySide6.QtWidgets import QApplication

    from cauterule_gui.review_conflicts import ConflictDialog

    assert window.review.conflict_dialog is None
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, ConflictDialog) and w.isVisible()]


def test_the_reviewers_own_consecutive_decisions_are_no_conflict(
        window: Any, other: Store, seeded: tuple[Path | str, int]) -> None:
    me, rule = window.identity.name, seeded[1]
    stale = window.review.rule
    window.review.defer()
    idle(window.runner)
    window.review.rule = stale  # the row as read before the first decision (the table not re-read yet)
    assert stale.row_version < RuleRepository(other).row_version(rule)
    window.review.defer()
    idle(window.runner)
    assert window.review.conflict_dialog is None
    assert decisions(other) == [(me, "defer"), (me, "defer")]


def test_a_decision_right_after_the_reviewers_own_undo_is_no_conflict(
        window: Any, other: Store, seeded: tuple[Path | str, int]) -> None:
    me, stale = window.identity.name, window.review.rule
    window.review.defer()
    idle(window.runner)
    window.review.undo()
    idle(window.runner)
    window.review.rule = stale
    window.review.defer()
    idle(window.runner)
    assert window.review.conflict_dialog is None
    assert decisions(other) == [(me, "defer"), (me, "undo"), (me, "defer")]


def test_a_bulk_decision_leaves_a_rule_someone_else_changed_undecided_and_says_so(
        window: Any, other: Store, seeded: tuple[Path | str, int]) -> None:
    from cauterule_gui.bulk_decisions import decide_each

    me, rule = window.identity.name, seeded[1]
    rows = [r for r in (window.workspace.rules.model.rule(i) for i in range(2)) if r is not None]
    decide(other, DecisionRequest("reject", "bo", rule, reason="fires on every push"))
    result = decide_each(window.services.store, rows, me, "defer", None)
    assert rule in result.refused and "bo reject" in result.refused[rule]
    assert [r.rule_id for r in rows if r.rule_id != rule] == result.decided


# -- what-if -------------------------------------------------------------------------------------
def test_a_whatif_edit_after_another_reviewers_decision_asks_and_take_theirs_saves_nothing(
        window: Any, other: Store, seeded: tuple[Path | str, int], qtbot: Any) -> None:
    rule = seeded[1]
    window.whatif.open(window.review.rule)
    qtbot.waitUntil(lambda: window.whatif.dialog is not None, timeout=10_000)
    decide(other, DecisionRequest("reject", "bo", rule, reason="fires on every push"))
    window.whatif.apply("when a push is refused", "pull first")
    idle(window.runner)
    dialog = window.whatif.conflict_dialog
    assert dialog is not None and "Changed by: bo" in dialog.details.text()
    dialog.take_theirs.click()
    idle(window.runner)
    info = RuleRepository(other).get(rule)
    assert info is not None and info.latest.version == 1  # the edit was dropped
    assert window.whatif.dialog is None


def test_a_whatif_edit_kept_over_theirs_is_saved(
        window: Any, other: Store, seeded: tuple[Path | str, int], qtbot: Any) -> None:
    rule, me = seeded[1], window.identity.name
    window.whatif.open(window.review.rule)
    qtbot.waitUntil(lambda: window.whatif.dialog is not None, timeout=10_000)
    decide(other, DecisionRequest("reject", "bo", rule, reason="fires on every push"))
    window.whatif.apply("when a push is refused", "pull first")
    idle(window.runner)
    window.whatif.conflict_dialog.keep_mine.click()
    qtbot.waitUntil(lambda: (RuleRepository(other).get(rule) or Any).latest.version == 2, timeout=15_000)
    info = RuleRepository(other).get(rule)
    assert info is not None and info.latest.author == me and info.latest.trigger == "when a push is refused"
    qtbot.waitUntil(lambda: not window.replay.running, timeout=60_000)  # the edit's replay ends
    idle(window.runner)
    window.whatif.dialog.reject()


# -- Promotion ----------------------------------------------------------------------------------
class _Prompts:
    def reason(self, parent: Any, title: str, prompt: str) -> str | None:
        return "wait for the next run"


def test_a_promotion_decision_after_another_reviewers_asks_and_keep_mine_saves(
        window: Any, other: Store, seeded: tuple[Path | str, int], qtbot: Any) -> None:
    rule, me = seeded[1], window.identity.name
    panel = window.workflows.promotion
    panel.prompts = _Prompts()
    with qtbot.waitSignal(panel.queue_refreshed, timeout=15_000):
        panel.refresh()
    idle(window.runner)
    assert panel.select_rule(rule)
    decide(other, DecisionRequest("reject", "bo", rule, reason="fires on every push"))
    panel.defer_selected()
    idle(window.runner)
    dialog = panel.conflict_dialog
    assert dialog is not None and "What they did: reject (fires on every push)" in dialog.details.text()
    assert decisions(other) == [("bo", "reject")]
    dialog.keep_mine.click()
    idle(window.runner)
    assert decisions(other) == [("bo", "reject"), (me, "defer")]


# -- adjudication --------------------------------------------------------------------------------
def test_a_ruling_after_another_leads_asks_and_cancel_records_nothing(
        window: Any, other: Store, seeded: tuple[Path | str, int], qtbot: Any) -> None:
    panel = window.workflows.agreement
    panel.compute_team()
    idle(window.runner)
    assert panel.label_dis_model.rowCount() == 1
    panel.label_dis_view.selectRow(0)
    pk = panel.label_dis_model.row_at(0).trajectory_pk
    panel.reason_edit.setText("ana's wording is the clearest")
    adjudicate(other, pk, "lars", LabelText("when the remote refuses", "fetch"), "mine")
    panel.adjudicate_selected()
    idle(window.runner)
    dialog = panel.conflict_dialog
    assert dialog is not None
    assert "Changed by: lars" in dialog.details.text() and 'ruled "when the remote refuses"' in dialog.details.text()
    dialog.cancel_button.click()
    idle(window.runner)
    assert [a.lead for a in LabelRepository(other).adjudications(pk)] == ["lars"]
    panel.adjudicate_selected()  # the ruling is still in the form; asked again, keep mine this time
    idle(window.runner)
    panel.conflict_dialog.keep_mine.click()
    idle(window.runner)
    assert [a.lead for a in LabelRepository(other).adjudications(pk)] == ["lars", window.identity.name]
