"""The Lab tab on a team store: a reviewer's login cannot adopt (the button says why, and nothing
is written); a lead's can (issue 26 item 7)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from red_team import TeamStore, team_store  # noqa: F401  (fixture)

from core.store.engine import open_store
from core.store.profile_repo import ProfileRepository


@pytest.fixture()
def lab(team_store: TeamStore, qtbot: Any, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    from PySide6.QtCore import QSettings

    from cauterule_gui.db.executor import DatabaseExecutor
    from cauterule_gui.jobs import JobRunner
    from cauterule_gui.panels.lab_panel import LabPanel
    from cauterule_gui.reviewer import ReviewerIdentity
    from cauterule_gui.services import open_services

    login = request.param
    services = open_services(team_store.login(login))
    runner = JobRunner()
    db = DatabaseExecutor(runner, lambda: services)
    identity = ReviewerIdentity(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    identity.follow_store(login)
    panel = LabPanel(db, runner, identity)
    qtbot.addWidget(panel)
    panel.ask_name = lambda _candidate, _current: "leads-pick"
    with qtbot.waitSignal(panel.refresh().finished, timeout=30_000):  # type: ignore[union-attr]
        pass
    with qtbot.waitSignal(panel.lab_finished, timeout=300_000):
        panel.run()
    qtbot.waitUntil(lambda: not panel.running, timeout=30_000)
    yield panel
    db.close()
    assert runner.shutdown(10_000)
    services.close()


def _profiles(url: str) -> list[str]:
    store = open_store(url)
    try:
        return [p.label for p in ProfileRepository(store).list_profiles()]
    finally:
        store.close()


@pytest.mark.parametrize("lab", ["bo"], indirect=True)
def test_a_reviewer_cannot_adopt_and_the_button_says_why(lab: Any, team_store: TeamStore) -> None:
    from cauterule_gui.panels.lab_panel import LEAD_ONLY

    before = _profiles(team_store.url)
    assert not lab.may_adopt and not lab.adopt_button.isEnabled()
    assert lab.adopt_button.toolTip() == LEAD_ONLY
    assert lab.adopt() is None
    assert lab.status.text() == LEAD_ONLY
    assert _profiles(team_store.url) == before


@pytest.mark.parametrize("lab", ["lena"], indirect=True)
def test_a_lead_adopts_in_their_own_name(lab: Any, team_store: TeamStore, qtbot: Any) -> None:
    assert lab.may_adopt and lab.adopt_button.isEnabled()
    with qtbot.waitSignal(lab.adopted, timeout=30_000) as blocker:
        lab.adopt_button.click()
    assert blocker.args == ["leads-pick@1"]
    assert "leads-pick@1" in _profiles(team_store.url)
