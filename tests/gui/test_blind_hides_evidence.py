"""Blind means blind in the Review tab too (issue 24 item 12): while the reviewer's blind
session is unfinished, the evidence board of the session's rules stays hidden, saying why and
how to show it anyway; other rules show theirs."""

from __future__ import annotations

from typing import Any

from conftest import wait_idle

from core.agreement.session import create_session
from core.store.agreement_repo import AgreementRepository

from cauterule_gui.main_window import MainWindow


def test_a_session_rules_evidence_is_hidden_until_revealed(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    store = window.services.store
    rule = window.workspace.rules.current_rule()
    assert rule is not None
    session = create_session(store, rule.run_id, "lead", size=8, seed=11)
    origins = {item.rule_origin for item in AgreementRepository(store).items_with_answers(session.id)}
    origin = sorted(origins)[0]
    evidence = window.workspace.evidence

    window.workspace.rules.model.fetch_all()
    wait_idle(window)
    row = next(r for r in range(window.workspace.rules.model.rowCount())
               if (m := window.workspace.rules.model.rule(r)) is not None and m.origin == origin)
    window.workspace.rules.select_row(row)
    qtbot.waitUntil(lambda: "Evidence hidden" in evidence.banner.text(), timeout=10_000)
    assert "blind agreement session" in evidence.banner.text() and "0/" in evidence.banner.text()
    assert evidence.result is None and evidence.count("prevented") == 0 and evidence.count("broken") == 0
    assert evidence.reveal_button.isVisibleTo(window)

    evidence.reveal_button.click()
    qtbot.waitUntil(lambda: evidence.result is not None, timeout=10_000)
    assert not evidence.reveal_button.isVisibleTo(window)


def test_rules_outside_the_session_show_their_evidence(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    store = window.services.store
    rule = window.workspace.rules.current_rule()
    assert rule is not None
    session = create_session(store, rule.run_id, "lead", size=8, seed=11)
    origins = {item.rule_origin for item in AgreementRepository(store).items_with_answers(session.id)}
    model = window.workspace.rules.model
    row = next(r for r in range(model.rowCount()) if (m := model.rule(r)) is not None and m.origin not in origins)
    window.workspace.rules.select_row(row)
    qtbot.waitUntil(lambda: window.workspace.evidence.result is not None
                    and window.workspace.evidence.result.id == model.rule(row).result_id, timeout=10_000)
    assert "Evidence hidden" not in window.workspace.evidence.banner.text()


# -- the rules table, the board's header and the reveal (the rest of the window) ---------------
def _session_through_the_window(qtbot: Any, window: MainWindow) -> tuple[int, set[str]]:
    """A blind session made as the Agreement tab makes it: a write of kind ``agreement``."""
    rule = window.workspace.rules.current_rule()
    assert rule is not None
    made: list[Any] = []
    window.db.op(lambda s: create_session(s.store, rule.run_id, "lead", size=8, seed=11), made.append,
                 kinds={"agreement"}, name="test session")
    qtbot.waitUntil(lambda: bool(made), timeout=10_000)
    origins = {i.rule_origin for i in AgreementRepository(window.services.store).items_with_answers(made[0].id)}
    qtbot.waitUntil(lambda: window.rule_model.blind == frozenset(origins), timeout=10_000)
    return made[0].id, origins


def _row_of(window: MainWindow, origin: str | None = None, outside: set[str] | None = None) -> int:
    model = window.workspace.rules.model
    model.fetch_all()
    wait_idle(window)
    return next(r for r in range(model.rowCount()) if (m := model.rule(r)) is not None
                and (m.origin == origin if origin is not None else m.origin not in (outside or set())))


def _cell(window: MainWindow, row: int, column: int, role: Any = None) -> Any:
    from PySide6.QtCore import Qt

    model = window.workspace.rules.model
    return model.data(model.index(row, column), Qt.ItemDataRole.DisplayRole if role is None else role)


def test_the_rules_table_hides_a_session_rules_verdict_and_counts(qtbot: Any, review_window: MainWindow) -> None:
    from PySide6.QtCore import Qt

    from cauterule_gui.models.rule_cells import (
        COL_BROKEN,
        COL_PRECISION,
        COL_PREVENTED,
        COL_REASON,
        COL_RECALL,
        COL_TRIGGER,
        COL_VERDICT,
    )

    window = review_window
    _session_id, origins = _session_through_the_window(qtbot, window)
    row = _row_of(window, sorted(origins)[0])
    assert _cell(window, row, COL_VERDICT) == "◌ hidden" and _cell(window, row, COL_REASON) == "blind session"
    assert {_cell(window, row, c) for c in (COL_PREVENTED, COL_BROKEN, COL_PRECISION, COL_RECALL)} == {"·"}
    assert "(you: 0/8 judged)" in _cell(window, row, COL_VERDICT, Qt.ItemDataRole.ToolTipRole).replace("\xa0", " ")
    assert _cell(window, row, COL_VERDICT, Qt.ItemDataRole.BackgroundRole) is None  # no verdict colour either
    assert _cell(window, row, COL_TRIGGER)  # the rule itself is still listed
    other = _row_of(window, outside=origins)
    assert _cell(window, other, COL_VERDICT) != "◌ hidden" and _cell(window, other, COL_PREVENTED) != "·"


def test_the_hidden_boards_header_names_no_verdict(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    current = window.workspace.rules.current_rule()
    session = create_session(window.services.store, current.run_id, "lead", size=8, seed=11)
    origin = sorted(i.rule_origin for i in AgreementRepository(window.services.store).items_with_answers(session.id))[0]
    rule = window.workspace.rules.model.rule(_row_of(window, origin))
    window.workspace.rules.select_row(_row_of(window, origin))
    evidence = window.workspace.evidence
    qtbot.waitUntil(lambda: "Evidence hidden" in evidence.banner.text(), timeout=10_000)
    header = evidence.verdict_label.text()
    assert header.startswith("Verdict: hidden") and "threshold" not in header
    from cauterule_gui.models.formatting import VERDICT_TEXT

    assert VERDICT_TEXT.get(rule.verdict, rule.verdict) not in header
    assert "(hidden)" in evidence.tabs.tabText(0)


def test_show_evidence_anyway_unmasks_the_row_and_is_recorded(qtbot: Any, review_window: MainWindow) -> None:
    from sqlalchemy import text

    from core.agreement.early_reveal import REVEAL_ACTION

    from cauterule_gui.models.rule_cells import COL_VERDICT

    window = review_window
    _session_id, origins = _session_through_the_window(qtbot, window)
    origin = sorted(origins)[0]
    window.workspace.rules.select_row(_row_of(window, origin))
    evidence = window.workspace.evidence
    qtbot.waitUntil(lambda: evidence.reveal_button.isVisibleTo(window), timeout=10_000)
    evidence.reveal_button.click()
    qtbot.waitUntil(lambda: evidence.result is not None, timeout=10_000)
    assert _cell(window, _row_of(window, origin), COL_VERDICT) != "◌ hidden"
    assert origin not in window.rule_model.blind and sorted(origins)[1] in window.rule_model.blind
    wait_idle(window)
    with window.services.store.read_session() as session:
        recorded = session.execute(text("SELECT actor, after_json FROM audit_event WHERE action = :a"),
                                   {"a": REVEAL_ACTION}).all()
    assert len(recorded) == 1 and recorded[0][0] == window.identity.name and origin in recorded[0][1]


def test_finishing_the_session_shows_every_answer_again(qtbot: Any, review_window: MainWindow) -> None:
    from core.agreement.session import commit_judgement, next_item

    window = review_window
    session_id, _origins = _session_through_the_window(qtbot, window)
    reviewer = window.identity.name

    def judge_all(s: Any) -> None:
        while (item := next_item(s.store, session_id, reviewer)) is not None:
            commit_judgement(s.store, item.item_id, reviewer, item.choices[-1])

    window.db.op(judge_all, None, kinds={"agreement"}, name="judge every item")
    qtbot.waitUntil(lambda: window.rule_model.blind == frozenset(), timeout=20_000)


def test_what_if_is_not_offered_on_a_hidden_rule(qtbot: Any, review_window: MainWindow) -> None:
    """Its heading and its draft would show the verdict and the buckets."""
    window = review_window
    _session_id, origins = _session_through_the_window(qtbot, window)
    row = _row_of(window, sorted(origins)[0])
    window.workspace.rules.select_row(row)
    with qtbot.waitSignal(window.whatif.status_message, timeout=5000) as said:
        window.whatif.open(window.workspace.rules.model.rule(row))
    assert "blind agreement session" in said.args[0] and window.whatif.dialog is None


def test_a_hidden_rules_verdict_cannot_be_marked_and_its_mark_buttons_are_gone(
        qtbot: Any, review_window: MainWindow) -> None:
    """Marking "replay is right / wrong" about a verdict the reviewer cannot see records a mark
    naming that verdict, and the status line used to print it ("Marked the verdict (fail)")."""
    window = review_window
    _session_id, origins = _session_through_the_window(qtbot, window)
    origin = sorted(origins)[0]
    rule = window.workspace.rules.model.rule(_row_of(window, origin))
    window.workspace.rules.select_row(_row_of(window, origin))
    evidence = window.workspace.evidence
    qtbot.waitUntil(lambda: "Evidence hidden" in evidence.banner.text(), timeout=10_000)
    assert evidence._verdict_marks and not any(w.isVisibleTo(window) for w in evidence._verdict_marks)
    said: list[str] = []
    window.review.status_message.connect(said.append)
    window.review.mark_verdict("right")
    wait_idle(window)
    assert any("hidden" in s for s in said) and not any(rule.verdict in s for s in said)
    assert window.services.reviews.marks(window.identity.name) == []


def test_a_hidden_rules_board_offers_no_row_marks_and_they_return_with_the_evidence(
        qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    _session_id, origins = _session_through_the_window(qtbot, window)
    window.workspace.rules.select_row(_row_of(window, sorted(origins)[0]))
    evidence = window.workspace.evidence
    qtbot.waitUntil(lambda: "Evidence hidden" in evidence.banner.text(), timeout=10_000)
    assert evidence._row_marks and not any(w.isVisibleTo(window) for w in evidence._row_marks)
    outside = next(r for r in range(window.workspace.rules.model.rowCount())
                   if (rule := window.workspace.rules.model.rule(r)) is not None and rule.origin not in origins)
    window.workspace.rules.select_row(outside)
    qtbot.waitUntil(lambda: all(w.isVisibleTo(window) for w in evidence._row_marks), timeout=10_000)
