"""Blind means blind in the Promotion tab too (issue 24 item 12, known gap): while the
reviewer's blind session is unfinished, the queue hides its rules' verdict, gates and queue
group, orders them after the others, and refuses deciding them there; "Show evidence anyway"
lifts it for that rule."""

from __future__ import annotations

from typing import Any

from blind_session import hide_a_session
from conftest import wait_idle

from cauterule_gui.main_window import MainWindow
from cauterule_gui.models import promotion_queue_model as qm


class AskNothing:
    """Prompts that record being asked (a decision on a hidden rule must not get that far)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def approval(self, _parent: Any, _item: Any, title: str) -> Any:
        self.asked.append(title)
        return None

    def reason(self, _parent: Any, title: str, _prompt: str) -> Any:
        self.asked.append(title)
        return None


def _promotion(qtbot: Any, window: MainWindow, hidden: frozenset[str]) -> Any:
    promotion = window.workflows.promotion
    promotion.prompts = AskNothing()
    window.tab_registry.show_tab(promotion)
    with qtbot.waitSignal(promotion.queue_refreshed, timeout=30_000):
        promotion.refresh()
    qtbot.waitUntil(lambda: promotion.model.blind == hidden, timeout=10_000)
    wait_idle(window)
    return promotion


def _hidden_row(promotion: Any, hidden: frozenset[str]) -> int:
    return next(r for r in range(promotion.model.rowCount()) if promotion.model.item(r).origin in hidden)


def _select_hidden_rule(qtbot: Any, window: MainWindow) -> tuple[Any, Any]:
    """A blind session made, the queue shown and one of its hidden rules selected: (panel, item)."""
    hidden = hide_a_session(qtbot, window)
    promotion = _promotion(qtbot, window, hidden)
    item = promotion.model.item(_hidden_row(promotion, hidden))
    promotion.select_rule(item.rule_id)
    return promotion, item


def _cell(promotion: Any, row: int, column: int, role: Any = None) -> Any:
    from PySide6.QtCore import Qt

    return promotion.model.data(promotion.model.index(row, column), role or Qt.ItemDataRole.DisplayRole)


def test_the_queue_hides_a_session_rules_verdict_and_gates(qtbot: Any, review_window: MainWindow) -> None:
    from PySide6.QtCore import Qt

    window = review_window
    hidden = hide_a_session(qtbot, window)
    promotion = _promotion(qtbot, window, hidden)
    row = _hidden_row(promotion, hidden)
    assert _cell(promotion, row, qm.COL_VERDICT) == "◌ hidden" and _cell(promotion, row, qm.COL_GROUP) == "blind session"
    assert {_cell(promotion, row, c) for c in (qm.COL_BROKEN, qm.COL_AGREEMENT, qm.COL_CONFLICTS)} == {"·"}
    assert _cell(promotion, row, qm.COL_VERDICT, Qt.ItemDataRole.BackgroundRole) is None
    assert "(you: 0/8 judged)" in _cell(promotion, row, qm.COL_VERDICT, Qt.ItemDataRole.ToolTipRole).replace("\xa0", " ")
    assert _cell(promotion, row, qm.COL_TRIGGER)  # the rule itself is listed


def test_the_detail_pane_of_a_hidden_rule_names_no_verdict(qtbot: Any, review_window: MainWindow) -> None:
    promotion, _item = _select_hidden_rule(qtbot, review_window)
    text = promotion.detail.toPlainText()
    assert "Replay's answer hidden" in text and "(you: 0/8 judged)" in text.replace("\xa0", " ")
    assert "verdict:" not in text and "Gates" not in text and "precision" not in text


def test_hidden_rules_come_after_the_others_by_rule_id(qtbot: Any, review_window: MainWindow) -> None:
    """The core's order (passing rules first) would tell a hidden rule's verdict."""
    window = review_window
    hidden = hide_a_session(qtbot, window)
    promotion = _promotion(qtbot, window, hidden)
    items = list(promotion.model.items())
    flags = [i.origin in hidden for i in items]
    first = flags.index(True)
    assert all(flags[first:]) and not all(flags)
    ids = [i.rule_id for i in items[first:]]
    assert ids == sorted(ids)


def test_deciding_a_hidden_rule_is_refused_with_a_plain_message(qtbot: Any, review_window: MainWindow) -> None:
    promotion, _item = _select_hidden_rule(qtbot, review_window)
    assert not promotion.buttons["approve"].isEnabled() and not promotion.buttons["reject"].isEnabled()
    promotion.approve_selected()
    promotion.defer_selected()
    assert promotion.prompts.asked == []  # nothing asked, nothing decided
    assert "unfinished blind agreement session" in promotion.message.text()


def test_show_evidence_anyway_lifts_it_in_the_promotion_tab(qtbot: Any, review_window: MainWindow) -> None:
    from sqlalchemy import text

    from core.agreement.early_reveal import REVEAL_ACTION

    window = review_window
    promotion, item = _select_hidden_rule(qtbot, window)
    assert promotion.reveal_button.isVisibleTo(window)
    promotion.reveal_button.click()
    qtbot.waitUntil(lambda: item.origin not in promotion.model.blind, timeout=10_000)
    row = promotion.model.row_for_rule(item.rule_id)
    assert _cell(promotion, row, qm.COL_VERDICT) == qm.verdict_text(item)
    assert item.origin not in window.rule_model.blind  # the Review tab follows the same reveal
    wait_idle(window)
    with window.services.store.read_session() as session:
        recorded = session.execute(text("SELECT count(*) FROM audit_event WHERE action = :a"),
                                   {"a": REVEAL_ACTION}).scalar()
    assert recorded == 1
