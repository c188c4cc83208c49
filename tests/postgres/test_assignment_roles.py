"""Assignments on a team store: only a lead assigns; a reviewer reads, and is offered, only their own items."""

from __future__ import annotations

import pytest
import sqlalchemy.exc
from sqlalchemy import text
from test_roles import _open, as_login, team  # noqa: F401  (fixture)

from core.agreement.assignments import assign, assigned_items, team_status
from core.agreement.session import next_item
from core.cli import main
from core.store.assignment_repo import AssignmentRepository
from core.store.engine import open_store


def test_a_reviewer_cannot_assign(team: dict[str, object], capsys: pytest.CaptureFixture[str]) -> None:
    rita = _open(team, "rita")
    with pytest.raises(sqlalchemy.exc.ProgrammingError, match="row-level security|permission denied"):
        assign(rita, int(team["session"]), ["rita", "rob"], per_item=1, assigned_by="rita")  # type: ignore[call-overload]
    with rita.read_session() as session:
        assert session.execute(text("SELECT assigned_per_item FROM agreement_session")).scalar_one() is None
    rita.close()


def test_the_cli_says_only_a_lead_may_assign(team: dict[str, object], capsys: pytest.CaptureFixture[str]) -> None:
    from test_roles import as_login

    url = as_login(str(team["url"]), "rita")
    assert main(["agreement", "assign", str(team["session"]), "--reviewers", "rita,rob", "--per-item", "1",
                 "--store", url]) == 1
    assert "only a lead may assign items" in capsys.readouterr().err


def test_a_reviewer_reads_and_is_offered_only_their_own_assignments(team: dict[str, object]) -> None:
    leo = _open(team, "leo")
    plan = assign(leo, int(team["session"]), ["rita", "rob"], per_item=1, assigned_by="leo")  # type: ignore[call-overload]
    assert sorted(plan.loads().values()) == [1, 2]  # three items, one reviewer each
    leo.close()
    rita = _open(team, "rita")
    session_id = int(team["session"])  # type: ignore[call-overload]
    assert {r for _o, r in AssignmentRepository(rita).assignments(session_id)} == {"rita"}
    assert assigned_items(rita, session_id, "rita") == list(plan.items["rita"])
    item = next_item(rita, session_id, "rita")
    assert item is not None and item.ordinal == plan.items["rita"][0]
    assert team_status(rita, session_id).reviewers == ("rita",)  # what the server lets rita see
    rita.close()


def _insert_judgement(store: object, item_id: int, reviewer: str) -> None:
    """Straight to the database, past every service check: only the server's rules stand in the way."""
    with store.session() as session:  # type: ignore[attr-defined]
        session.execute(text("INSERT INTO agreement_judgement (item_id, reviewer, answer, origin, committed_at) "
                             "VALUES (:i, :r, 'fires', 'local', '2026-12-01T00:00:00Z')"), {"i": item_id, "r": reviewer})


def _item_ids(team: dict[str, object]) -> dict[int, int]:
    owner = open_store(str(team["url"]))
    with owner.read_session() as session:
        rows = session.execute(text("SELECT ordinal, id FROM agreement_item WHERE session_id = :s"),
                               {"s": team["session"]}).all()
    owner.close()
    return {int(o): int(i) for o, i in rows}


def test_the_server_refuses_a_reviewers_judgement_of_an_item_not_assigned_to_them(team: dict[str, object]) -> None:
    leo = _open(team, "leo")
    plan = assign(leo, int(team["session"]), ["rita", "rob"], per_item=1, assigned_by="leo")  # type: ignore[call-overload]
    leo.close()
    items = _item_ids(team)
    robs, ritas = plan.items["rob"][0], plan.items["rita"][0]
    rita = _open(team, "rita")
    with pytest.raises(sqlalchemy.exc.ProgrammingError, match="row-level security"):
        _insert_judgement(rita, items[robs], "rita")  # rob's item, in rita's own name
    _insert_judgement(rita, items[ritas], "rita")  # her own item goes in
    rita.close()
    owner = open_store(str(team["url"]))
    with owner.read_session() as session:
        judged = session.execute(text("SELECT item_id, reviewer FROM agreement_judgement")).all()
    owner.close()
    assert [(int(i), str(r)) for i, r in judged] == [(items[ritas], "rita")]


def test_before_a_lead_assigns_a_session_every_reviewer_may_judge_its_items(team: dict[str, object]) -> None:
    items = _item_ids(team)
    rita = _open(team, "rita")
    _insert_judgement(rita, items[min(items)], "rita")  # nobody assigned the session: open to all
    rita.close()


def _team_panel(team: dict[str, object], login: str, qtbot: object, tmp_path: object) -> tuple[object, object, object]:
    """The agreement screen as ``login`` sees it, on the Team page of the session."""
    from PySide6.QtCore import QSettings

    from cauterule_gui.jobs import JobRunner
    from cauterule_gui.panels.agreement import TAB_TEAM, AgreementPanel
    from cauterule_gui.reviewer import ReviewerIdentity
    from cauterule_gui.services import open_services

    services = open_services(as_login(str(team["url"]), login))
    identity = ReviewerIdentity(QSettings(f"{tmp_path}/{login}.ini", QSettings.Format.IniFormat))
    identity.follow_store(services.login)  # as the window does: the reviewer is the login
    runner = JobRunner()
    panel = AgreementPanel(lambda: services, runner, identity)
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    panel.show()
    panel.refresh()
    qtbot.waitUntil(lambda: panel.current_session() is not None, timeout=10_000)  # type: ignore[attr-defined]
    panel.session_combo.setCurrentIndex(panel.session_combo.findData(team["session"]))
    panel.tabs.setCurrentIndex(TAB_TEAM)
    return panel, services, runner


def test_in_the_window_a_lead_assigns_and_a_reviewer_is_told_only_a_lead_may(
        team: dict[str, object], qtbot: object, tmp_path: object) -> None:
    pytest.importorskip("PySide6")
    panel, services, runner = _team_panel(team, "rita", qtbot, tmp_path)
    panel.assign_reviewers.setText("rita, rob")  # type: ignore[attr-defined]
    panel.assign_per_item.setValue(1)  # type: ignore[attr-defined]
    panel.assign_button.click()  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: panel.assign_label.text().startswith("Not assigned"), timeout=10_000)  # type: ignore
    assert "only a lead may assign items" in panel.assign_label.text()  # type: ignore[attr-defined]
    assert runner.shutdown(10_000)  # type: ignore[attr-defined]
    services.close()  # type: ignore[attr-defined]
    panel, services, runner = _team_panel(team, "leo", qtbot, tmp_path)
    panel.assign_reviewers.setText("rita, rob")  # type: ignore[attr-defined]
    panel.assign_per_item.setValue(1)  # type: ignore[attr-defined]
    panel.assign_button.click()  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: panel.assign_label.text().startswith("Assigned"), timeout=10_000)  # type: ignore
    assert runner.shutdown(10_000)  # type: ignore[attr-defined]
    services.close()  # type: ignore[attr-defined]
    rita = _open(team, "rita")
    assert {r for _o, r in AssignmentRepository(rita).assignments(int(team["session"]))} == {"rita"}  # type: ignore
    rita.close()


def test_the_cli_records_the_leads_login_as_the_assigner(team: dict[str, object]) -> None:
    url = as_login(str(team["url"]), "leo")
    assert main(["agreement", "assign", str(team["session"]), "--reviewers", "rita,rob", "--per-item", "1",
                 "--store", url]) == 0
    owner = open_store(str(team["url"]))
    with owner.read_session() as session:
        assigners = {str(r[0]) for r in session.execute(text("SELECT DISTINCT assigned_by FROM agreement_assignment"))}
    owner.close()
    assert assigners == {"leo"}
