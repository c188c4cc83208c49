"""A lead assigns a blind session's items from the Team page; each reviewer sees their own share first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_agreement_panel import copy_store, demo_template, idle, make_panel  # noqa: F401  (fixture)

from core.agreement.session import create_session
from core.store.assignment_repo import AssignmentRepository

from cauterule_gui.jobs import JobRunner
from cauterule_gui.panels.agreement import TAB_TEAM


def _team_page(qtbot: Any, panel: Any, session_id: int) -> None:
    qtbot.waitUntil(lambda: panel.current_session() is not None, timeout=10_000)
    panel.session_combo.setCurrentIndex(panel.session_combo.findData(session_id))
    panel.tabs.setCurrentIndex(TAB_TEAM)


def test_the_team_page_assigns_the_sessions_items_balanced(
        qtbot: Any, tmp_path: Path, demo_template: Path, runner: JobRunner) -> None:
    services = copy_store(demo_template, tmp_path / "team.sqlite")
    try:
        session = create_session(services.store, 1, "lea", size=6, seed=2)
        panel = make_panel(qtbot, services, runner, reviewer="ana")
        _team_page(qtbot, panel, session.id)
        panel.assign_reviewers.setText("ana, bo, cy")
        panel.assign_per_item.setValue(2)
        panel.assign_button.click()
        qtbot.waitUntil(lambda: panel.assign_label.text().startswith("Assigned"), timeout=10_000)
        rows = AssignmentRepository(services.store).assignments(session.id)
        loads = {r: sum(1 for _o, who in rows if who == r) for r in ("ana", "bo", "cy")}
        assert loads == {"ana": 4, "bo": 4, "cy": 4}  # 6 items x 2 reviewers, balanced
        assert "ana 4; bo 4; cy 4" in panel.assign_label.text()
        qtbot.waitUntil(lambda: panel.team_status_label.text().startswith("Your items: 0 of 4 judged"),
                        timeout=10_000)  # ana's own share comes first
        idle(qtbot, runner)
    finally:
        services.close()


def test_assigning_with_no_reviewer_named_says_what_is_missing(
        qtbot: Any, tmp_path: Path, demo_template: Path, runner: JobRunner) -> None:
    services = copy_store(demo_template, tmp_path / "team.sqlite")
    try:
        session = create_session(services.store, 1, "lea", size=4, seed=2)
        panel = make_panel(qtbot, services, runner, reviewer="lea")
        _team_page(qtbot, panel, session.id)
        assert panel.assign_selected() is None
        assert "Name the reviewers" in panel.assign_label.text()
        assert AssignmentRepository(services.store).assignments(session.id) == []
        idle(qtbot, runner)
    finally:
        services.close()
