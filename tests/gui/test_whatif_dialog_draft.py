"""The What-if dialog is a draft until the reviewer applies it (issue 24 item 8): Try draft replays
the unsaved text off the GUI thread and lists what would move; Discard leaves the store as it was;
Apply saves one version (one audit event) and replays it."""

from __future__ import annotations

from typing import Any

from conftest import wait_idle
from PySide6.QtCore import Qt
from sqlalchemy import inspect, text

from core.store.engine import Store

from cauterule_gui.main_window import MainWindow

DRAFT = "when the moon is blue and the owls are singing"


def _row_counts(store: Store) -> dict[str, int]:
    tables = inspect(store.engine).get_table_names()
    with store.read_session() as session:
        return {t: int(session.execute(text(f'SELECT count(*) FROM "{t}"')).scalar_one()) for t in tables}


def _open_on_a_rule_that_prevents(qtbot: Any, window: MainWindow) -> Any:
    rules = window.workspace.rules
    rules.model.fetch_all()
    row = next(r for r in range(rules.model.rowCount()) if rules.model.rule(r).prevented_n >= 2)
    rules.select_row(row)
    rules.view.setFocus()
    qtbot.keyClick(rules.view, Qt.Key.Key_E)
    qtbot.waitUntil(lambda: window.whatif.dialog is not None, timeout=10_000)
    return rules.current_rule()


def _try_draft(qtbot: Any, window: MainWindow) -> Any:
    dialog = window.whatif.dialog
    dialog.trigger_edit.setPlainText(DRAFT)
    with qtbot.waitSignal(window.whatif.draft_shown, timeout=60_000) as shown:
        dialog.draft_button.click()
    return shown.args[0]


def test_a_draft_shows_before_and_after_and_discard_leaves_the_store_unchanged(
        qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    store = window.services.store
    counts = _row_counts(store)
    rule = _open_on_a_rule_that_prevents(qtbot, window)
    dialog = window.whatif.dialog

    draft = _try_draft(qtbot, window)
    lines = [dialog.moves.item(i).text() for i in range(dialog.moves.count())]
    assert any("✓ prevented → ○ missed" in line for line in lines), lines
    assert draft.rule_id == rule.rule_id and draft.trigger == DRAFT
    assert dialog.state_label.text().startswith("Draft (not saved;") and "→" in dialog.state_label.text()
    assert dialog.apply_button.isEnabled() and dialog.draft_button.isEnabled()

    qtbot.keyClick(dialog, Qt.Key.Key_Escape)  # Discard
    qtbot.waitUntil(lambda: window.whatif.dialog is None, timeout=5000)
    wait_idle(window)
    assert _row_counts(store) == counts  # no version, no run, no audit event, no cache row
    assert [v.version for v in window.services.rules.versions(rule.rule_id)] == [1]


def test_apply_after_a_draft_saves_one_version_with_one_audit_event_and_replays_it(
        qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    rule = _open_on_a_rule_that_prevents(qtbot, window)
    dialog = window.whatif.dialog
    runs = len(window.services.replays.runs())
    audit = [e.action for e in window.services.reviews.rule_audit(rule.rule_id)]
    draft = _try_draft(qtbot, window)

    with qtbot.waitSignal(window.replay.replay_done, timeout=60_000):
        dialog.apply_button.click()
    qtbot.waitUntil(lambda: dialog.moves.count() > 0 and "v1 → v2" in dialog.state_label.text(), timeout=10_000)
    assert [v.version for v in window.services.rules.versions(rule.rule_id)] == [1, 2]
    assert [e.action for e in window.services.reviews.rule_audit(rule.rule_id)] == audit + ["edit_rule"]
    applied = [dialog.moves.item(i).text() for i in range(dialog.moves.count())]
    assert len(applied) == len(draft.moves)  # the run moved what the draft said it would
    assert len(window.services.replays.runs()) == runs + 1  # Apply's replay, and no run for the draft
    dialog.close()


def test_a_draft_can_be_cancelled_and_nothing_is_saved(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    store = window.services.store
    counts = _row_counts(store)
    _open_on_a_rule_that_prevents(qtbot, window)
    dialog = window.whatif.dialog
    dialog.trigger_edit.setPlainText(DRAFT)
    dialog.draft_button.click()
    assert dialog.cancel_button.isVisibleTo(dialog) and not dialog.apply_button.isEnabled()
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: window.whatif.draft_handle is None, timeout=30_000)
    text_now = dialog.state_label.text()
    assert "cancelled" in text_now or text_now.startswith("Draft (not saved;")  # a draft may finish before the cancel lands
    assert dialog.apply_button.isEnabled()
    dialog.reject()
    wait_idle(window)
    assert _row_counts(store) == counts
