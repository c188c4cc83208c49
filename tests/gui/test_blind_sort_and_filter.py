"""Blind means blind in the rules table's order and filters too (issue 24 item 12, known gap):
a rule in the reviewer's unfinished blind session must not sort or filter by the verdict,
reason or counts it hides, or its place in the table would tell them."""

from __future__ import annotations

from typing import Any

import pytest
from blind_session import hide_a_session
from conftest import wait_idle

from cauterule_gui.main_window import MainWindow


def _rows_after(qtbot: Any, window: MainWindow, change: Any) -> list[Any]:
    model = window.rule_model
    generation = model.generation
    change()
    qtbot.waitUntil(lambda: model.generation > generation and not model.busy, timeout=10_000)
    model.fetch_all()
    wait_idle(window)
    return [model.rule(r) for r in range(model.rowCount()) if not model.is_member(r)]


@pytest.mark.parametrize("column_name", ["COL_VERDICT", "COL_PREVENTED"])
@pytest.mark.parametrize("descending", [False, True])
def test_hidden_rules_sort_last_by_rule_id_whatever_their_values(qtbot: Any, review_window: MainWindow,
                                                                 column_name: str, descending: bool) -> None:
    from PySide6.QtCore import Qt

    from cauterule_gui.models import rule_cells

    window = review_window
    hidden = hide_a_session(qtbot, window)
    order = Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder
    rows = _rows_after(qtbot, window, lambda: window.rule_model.sort(getattr(rule_cells, column_name), order))
    flags = [r.origin in hidden for r in rows]
    assert any(flags) and not all(flags)
    first_hidden = flags.index(True)
    assert all(flags[first_hidden:])  # one group, after every visible rule
    tail = [r.rule_id for r in rows[first_hidden:]]
    assert tail == sorted(tail)  # by rule id: the order says nothing about the hidden values


def test_a_verdict_filter_does_not_match_a_hidden_rule(qtbot: Any, review_window: MainWindow) -> None:
    from dataclasses import replace

    window = review_window
    hidden = hide_a_session(qtbot, window)
    model = window.rule_model
    model.fetch_all()
    wait_idle(window)
    verdict = next(m.verdict for r in range(model.rowCount()) if (m := model.rule(r)) and m.origin in hidden)
    rows = _rows_after(qtbot, window, lambda: model.set_filter(replace(model.filter, verdict=verdict)))
    assert all(r.verdict == verdict for r in rows)
    assert not any(r.origin in hidden for r in rows)


def test_sorting_by_text_keeps_hidden_rules_in_place(qtbot: Any, review_window: MainWindow) -> None:
    """The rule's text is not hidden: sorting by trigger orders every row by its trigger."""
    from PySide6.QtCore import Qt

    from cauterule_gui.models.rule_cells import COL_TRIGGER

    window = review_window
    hide_a_session(qtbot, window)
    rows = _rows_after(qtbot, window, lambda: window.rule_model.sort(COL_TRIGGER, Qt.SortOrder.AscendingOrder))
    keys = [r.trigger.lower() for r in rows]
    assert keys == sorted(keys)


def test_a_key_decision_on_a_hidden_rule_is_refused_without_naming_its_verdict(
        qtbot: Any, review_window: MainWindow) -> None:
    """The core's refusal ("approval refused: replay's verdict … is fail") would tell it."""
    from PySide6.QtCore import Qt

    window = review_window
    hidden = hide_a_session(qtbot, window)
    model = window.rule_model
    model.fetch_all()
    wait_idle(window)
    row = next(r for r in range(model.rowCount()) if (m := model.rule(r)) is not None and m.origin in hidden)
    rule = model.rule(row)
    window.workspace.rules.select_row(row)
    window.workspace.rules.view.setFocus()
    qtbot.waitUntil(lambda: window.review.rule is not None and window.review.rule.rule_id == rule.rule_id,
                    timeout=10_000)
    said: list[str] = []
    window.review.status_message.connect(said.append)
    window.bulk.status_message.connect(said.append)
    qtbot.keyClick(window.workspace.rules.view, Qt.Key.Key_A)
    wait_idle(window)
    assert window.services.reviews.current(rule.rule_id) is None
    assert any("unfinished blind agreement session" in s for s in said)
    assert not any(rule.verdict in s for s in said)
