"""Approving in the Review tab under a failed blind agreement gate: the core refuses, the tab
asks for the acknowledgement (with the gate's wording) and the audit event records it."""

from __future__ import annotations

from typing import Any

from conftest import REVIEWER, preset_reviewer, wait_idle
from PySide6.QtCore import Qt
from test_review_first_open import _window
from test_review_keys import current, press

from core.agreement.session import commit_judgement, create_session
from core.domain.agreement import answers_for
from core.store.agreement_repo import AgreementRepository
from core.store.review_repo import ReviewRepository

from cauterule_gui.jobs.runner import JobRunner
from cauterule_gui.services import StoreServices


def _failed_gate(services: StoreServices) -> None:
    session = create_session(services.store, 1, "lead", size=25, seed=3)
    for item in AgreementRepository(services.store).items_with_answers(session.id):
        wrong = next(a for a in answers_for(item.kind) if a not in (item.replay_answer, "cant_tell"))
        # The approving reviewer judged the session blind and every judgement disagrees: the gate
        # fails. (A session they had not finished would hide its rules' evidence and refuse A.)
        commit_judgement(services.store, item.id, REVIEWER, wrong)


def test_a_failed_gate_is_acknowledged_before_the_approval_and_audited(
    qtbot: Any, replayed: StoreServices, runner: JobRunner,
) -> None:
    _failed_gate(replayed)
    preset_reviewer()
    window = _window(qtbot, replayed, runner)
    rules = window.workspace.rules
    row = next(r for r in range(rules.model.rowCount())
               if rules.model.rule(r).verdict == "pass" and rules.model.rule(r).broken_n == 0)
    rules.select_row(row)
    rules.view.setFocus()
    rule = current(window)
    press(qtbot, window, Qt.Key.Key_A)
    dialog = window.review.reason_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.windowTitle() == "Human approval required"
    assert dialog.prompt.text().startswith("Human approval required: blind agreement 0.00 [")
    assert ReviewRepository(replayed.store).current(rule.rule_id) is None  # nothing written yet
    qtbot.keyClicks(dialog.edit, "read every trajectory myself")
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    wait_idle(window)
    decision = ReviewRepository(replayed.store).current(rule.rule_id)
    assert decision is not None and decision.action == "approve" and decision.reviewer == REVIEWER
    [event] = [e for e in ReviewRepository(replayed.store).audit("rule", rule.rule_id) if e.action == "approve"]
    assert event.after["via"] == "review" and event.after["gates"]["agreement"]["state"] == "fail"
    assert event.after["acknowledgement"].startswith(f"{REVIEWER} acknowledged: human approval required")
    window.close()
