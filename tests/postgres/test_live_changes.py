"""Live: another connection's committed change reaches the feed, and an open window, without a refresh."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from every_kind import Builder

from core.decisions.service import DecisionRequest, decide
from core.store.engine import open_store, store_location
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


def _open_window(url: str, qtbot: Any, tmp_path: Path) -> Any:
    """A Workbench window on the team store at ``url``, shown (as the application builds it)."""
    pytest.importorskip("PySide6")
    from PySide6.QtCore import QSettings

    from cauterule_gui.jobs import JobRunner
    from cauterule_gui.main_window import MainWindow
    from cauterule_gui.services import open_services

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(open_services(url), JobRunner(), settings, open_services)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: not window.first_pages_loading, timeout=15_000)  # read off the GUI thread
    return window


def _close_window(window: Any) -> None:
    window.close()
    assert window.runner.shutdown(5000)
    window.services.close()



def test_an_open_window_shows_another_reviewers_decision_without_a_refresh(
        team_store: Any, qtbot: Any, tmp_path: Path) -> None:
    url, rule = team_store
    window = _open_window(url, qtbot, tmp_path)
    from cauterule_gui.live_changes import install_live_changes
    from cauterule_gui.models.rule_table_model import COL_REVIEWER, COL_STATUS

    live = install_live_changes(window)
    assert live is not None and live.listening
    window.show_review()  # the reviewer looks at the rules (hidden tabs refresh when shown)
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
    _close_window(window)


def test_after_a_store_switch_the_window_follows_the_new_store(
        team_store: Any, pg_server: Any, qtbot: Any, tmp_path: Path) -> None:

    first_url, _ = team_store
    second_url = pg_server.new_database()
    seeded = open_store(second_url)
    b = Builder(seeded)
    b.trajectories("F-9")
    rule = b.rule("c/r9.yaml", "when the build cache is stale", "clear the cache then rebuild")
    b.run([(rule, "pass", {"prevented": ["F-9"]})])
    seeded.close()
    window = _open_window(first_url, qtbot, tmp_path)
    from cauterule_gui.live_changes import install_live_changes
    from cauterule_gui.models.rule_table_model import COL_REVIEWER
    from cauterule_gui.window_store import switch_store

    first_feed = install_live_changes(window)
    assert switch_store(window, store_location(second_url))
    window.show_review()
    model = window.workspace.rules.model
    qtbot.waitUntil(lambda: model.row_of_rule(rule) is not None, timeout=10_000)
    assert first_feed is not None and not first_feed.listening
    other = open_store(second_url)
    decide(other, DecisionRequest("reject", "bo", rule, reason="cache is fine"))
    qtbot.waitUntil(lambda: str(model.index(model.row_of_rule(rule) or 0, COL_REVIEWER).data()) == "bo",
                    timeout=10_000)
    other.close()
    _close_window(window)
    pg_server.drop(second_url)


def test_on_a_team_store_the_reviewer_is_the_server_login(team_store: Any, qtbot: Any, tmp_path: Path) -> None:
    url, _ = team_store
    login_store = open_store(url)
    login = login_store.login()
    login_store.close()
    window = _open_window(url, qtbot, tmp_path)
    window.identity.set_name("somebody else")  # a typed name cannot replace the login
    assert window.identity.name == login
    assert window.identity.ask(window) == login  # no prompt: the login is the name
    _close_window(window)
