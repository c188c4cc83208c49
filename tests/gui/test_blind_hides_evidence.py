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
