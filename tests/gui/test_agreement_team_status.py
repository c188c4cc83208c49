"""The Team page's live section: assignments, progress and kappa / alpha follow committed judgements."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget
from test_agreement_panel import copy_store, demo_template, idle  # noqa: F401  (fixture)

from core.agreement.assignments import assign
from core.agreement.session import commit_judgement, create_session, next_item
from core.store.agreement_repo import AgreementRepository

from cauterule_gui.jobs import JobRunner
from cauterule_gui.panels.agreement import TAB_TEAM, AgreementPanel
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.settings import make_settings


class Window(QWidget):
    """A window with the change signal the main window has (kinds; the live feed emits other reviewers' too)."""

    changes_applied = Signal(object)


def test_the_team_page_recomputes_kappa_and_alpha_on_an_agreement_change(
    qtbot: Any, tmp_path: Path, demo_template: Path, runner: JobRunner,
) -> None:
    services = copy_store(demo_template, tmp_path / "team.sqlite")
    try:
        store = services.store
        session = create_session(store, 1, "lea", size=6, seed=2)
        assign(store, session.id, ["ana", "bo"], per_item=2, assigned_by="lea")
        window = Window()
        panel = AgreementPanel(lambda: services, runner, ReviewerIdentity(make_settings()))
        QVBoxLayout(window).addWidget(panel)
        qtbot.addWidget(window)
        window.show()
        panel.refresh()
        qtbot.waitUntil(lambda: panel.current_session() is not None, timeout=10_000)
        panel.session_combo.setCurrentIndex(panel.session_combo.findData(session.id))
        panel.tabs.setCurrentIndex(TAB_TEAM)
        qtbot.waitUntil(lambda: panel.last_team_status is not None and panel.last_team_status.session_id == session.id,
                        timeout=10_000)
        assert "Krippendorff's α: n/a" in panel.team_status_label.text()
        assert "ana 0/6; bo 0/6" in panel.team_status_label.text()

        answers = {i.id: i.replay_answer for i in AgreementRepository(store).items_with_answers(session.id)}
        for reviewer in ("ana", "bo"):  # another reviewer's window (or the CLI) commits; same answers
            while (item := next_item(store, session.id, reviewer)) is not None:
                commit_judgement(store, item.item_id, reviewer, answers[item.item_id],
                                 scope="in_scope" if item.scope_choices else None)
        window.changes_applied.emit(frozenset({"agreement"}))
        qtbot.waitUntil(lambda: "ana 6/6; bo 6/6" in panel.team_status_label.text(), timeout=10_000)
        text = panel.team_status_label.text()
        assert "Items judged by two or more reviewers: 6." in text and "Krippendorff's α: 1.00" in text
        idle(qtbot, runner)
        window.close()
    finally:
        services.close()
