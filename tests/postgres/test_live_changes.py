"""Live: another connection's committed change reaches the feed, and an open window, without a refresh."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from every_kind import Builder

from core.decisions.service import DecisionRequest, decide
from core.store.engine import open_store
from core.team.live import ChangeFeed


@pytest.fixture()
def team_store(pg_server) -> Any:  # type: ignore[no-untyped-def]
    url = pg_server.new_database()
    store = open_store(url)
    b = Builder(store)
    b.trajectories("F-1", "F-2")
    b.trajectories("S-1", success=True)
    rule = b.rule("c/r1.yaml", "when git push is rejected", "pull --rebase then push")
    b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]})])
    store.close()
    yield url, rule
    pg_server.drop(url)


def test_the_feed_reports_a_decision_committed_by_another_connection(team_store: Any) -> None:
    url, rule = team_store
    seen: list[frozenset[str]] = []
    arrived = threading.Event()
    feed = ChangeFeed(url, lambda kinds: (seen.append(kinds), arrived.set())).start()
    other = open_store(url)
    decide(other, DecisionRequest("reject", "bo", rule, reason="fires on every push"))
    assert arrived.wait(10)
    assert "decisions" in set().union(*seen)
    feed.stop()
    other.close()


def test_an_uncommitted_change_is_not_announced(team_store: Any) -> None:
    from sqlalchemy import text

    url, _ = team_store
    arrived = threading.Event()
    feed = ChangeFeed(url, lambda kinds: arrived.set()).start()
    other = open_store(url)
    with pytest.raises(RuntimeError):
        with other.session() as session:
            session.execute(text("UPDATE rule SET status = 'draft'"))
            raise RuntimeError("rolled back")
    assert not arrived.wait(1.0)
    feed.stop()
    other.close()


def test_an_open_window_shows_another_reviewers_decision_without_a_refresh(
        team_store: Any, qtbot: Any, tmp_path: Path) -> None:
    pytest.importorskip("PySide6")
    from PySide6.QtCore import QSettings

    from cauterule_gui.jobs import JobRunner
    from cauterule_gui.live_changes import install_live_changes
    from cauterule_gui.main_window import MainWindow
    from cauterule_gui.models.rule_table_model import COL_REVIEWER, COL_STATUS
    from cauterule_gui.services import open_services

    url, rule = team_store
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    services = open_services(url)
    runner = JobRunner()
    window = MainWindow(services, runner, settings, open_services)
    qtbot.addWidget(window)
    window.show()
    live = install_live_changes(window)
    assert live is not None and live.listening
    model = window.workspace.rules.model
    qtbot.waitUntil(lambda: model.row_of_rule(rule) is not None, timeout=10_000)

    def cell(column: int) -> str:
        row = model.row_of_rule(rule)
        return "" if row is None else str(model.index(row, column).data())

    before = cell(COL_STATUS)
    other = open_store(url)  # a second connection: another reviewer
    decide(other, DecisionRequest("reject", "bo", rule, reason="fires on every push"))
    qtbot.waitUntil(lambda: cell(COL_REVIEWER) == "bo", timeout=10_000)
    assert cell(COL_STATUS) != before
    other.close()
    live.stop()
    window.close()
    assert runner.shutdown(5000)
    services.close()
