"""The judging screen asks firing then scope, numbers items neutrally, keeps "you: k/n" true,
and the results show scope agreement and the scope-corrected recall apart from the gate."""

from __future__ import annotations

from typing import Any

from test_agreement_panel import REVIEWER, close_panel, demo, demo_template, make_panel, wait_item  # noqa: F401

from core.agreement.blind import rule_sentence
from core.agreement.session import create_session
from core.store.agreement_repo import AgreementRepository

from cauterule_gui.jobs import JobRunner
from cauterule_gui.panels.agreement import TAB_JUDGE, TAB_RESULTS
from cauterule_gui.services import StoreServices


def test_a_trigger_that_starts_with_when_is_not_prefixed_again() -> None:
    assert rule_sentence("when docker build fails", "pin the base image") == "when docker build fails, pin the base image"
    assert rule_sentence("docker build fails", "pin it") == "when docker build fails, pin it"


def test_failure_items_ask_scope_after_firing_and_the_session_counter_follows(
    qtbot: Any, demo: StoreServices, runner: JobRunner,
) -> None:
    session = create_session(demo.store, 1, "lead", size=10, seed=2)
    panel = make_panel(qtbot, demo, runner)
    panel.tabs.setCurrentIndex(TAB_JUDGE)
    judged = 0
    while True:
        wait_item(qtbot, panel)
        item = panel.current.item  # type: ignore[union-attr]
        assert item is not None
        assert panel.judge_header.text().endswith(f"Item {item.ordinal} of {session.size}")
        assert not panel.rule_text.text().lower().startswith("when when")
        qtbot.keyClick(panel.judge_page, "1")
        if item.scope_choices:
            assert panel.reveal is None  # nothing revealed between the two questions
            qtbot.keyClick(panel.judge_page, "2")  # out of scope
        qtbot.waitUntil(lambda: panel.reveal is not None, timeout=10_000)
        judged += 1
        entry = panel.session_combo.itemText(panel.session_combo.findData(session.id))
        assert entry.endswith(f"you: {judged}/{session.size}")
        if item.scope_choices:
            break
        qtbot.keyClick(panel.judge_page, "\r")
    stored = AgreementRepository(demo.store).judgements(session.id, REVIEWER)
    assert stored[-1].scope == "out_of_scope" and stored[-1].replay_scope == "in_scope"
    assert "Now revealed" in panel.reveal_label.text()
    panel.tabs.setCurrentIndex(TAB_RESULTS)
    qtbot.waitUntil(lambda: panel.last_result is not None and panel.last_result.session.id == session.id,
                    timeout=10_000)
    assert "Scope agreement" in panel.extra_label.text() and "estimated from" in panel.extra_label.text()
    close_panel(qtbot, panel, runner)
