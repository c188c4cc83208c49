"""The Review tab during the first replay (issue 24 item 7): it says what is happening and the
actions that need a rule are disabled while none is selected."""

from __future__ import annotations

from typing import Any

from conftest import wait_idle
from PySide6.QtWidgets import QToolButton

from cauterule_gui.main_window import MainWindow


def _approve(window: MainWindow) -> Any:
    return next(a for a in window.review_actions.groups["Decide"] if a.text() == "&Approve")


def test_with_no_rule_selected_approve_reject_defer_are_disabled(qtbot: Any, window: MainWindow) -> None:
    window.show_review()
    assert window.workspace.rules.current_rule() is None  # imported, never replayed: no rule rows
    decide = window.review_actions.groups["Decide"]
    assert [a.isEnabled() for a in decide] == [False, False, False, True]  # Undo needs no rule
    buttons = [b for b in window.workspace.evidence.findChildren(QToolButton) if b.defaultAction() in decide[:3]]
    assert buttons and not any(b.isEnabled() for b in buttons)
    assert "select one in the rules table" in window.workspace.evidence.title.text()


def test_the_empty_review_tab_says_the_first_replay_is_running(qtbot: Any, window: MainWindow) -> None:
    window.show_review()
    window.replay.set_semantic(False)
    seen: list[tuple[str, str, bool]] = []
    window.replay.replay_started.connect(lambda _r: seen.append((
        window.workspace.rules.progress_label.text(), window.workspace.evidence.title.text(),
        _approve(window).isEnabled())))
    with qtbot.waitSignal(window.replay.replay_done, timeout=120_000):
        window.replay_everything()
    progress, title, approve_enabled = seen[0]
    assert "replay running" in progress and "0 / 0" not in progress
    assert title.startswith("Replay running")
    assert not approve_enabled
    wait_idle(window)
    window.workspace.rules.select_row(0)
    qtbot.waitUntil(lambda: _approve(window).isEnabled(), timeout=5000)
