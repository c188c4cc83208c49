"""File ▸ Publish to rule store… (issue 28): the dry run in a dialog, nothing written without
Publish, the no-task acknowledgement ticked before Publish is possible, a changed store offered
an explicit second choice. Reads and the write go through the window's database executor."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.store.review_repo import ReviewRepository

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.jobs import JobRunner
from cauterule_gui.publish_actions import PublishDialog, publish_interactive
from cauterule_gui.services import StoreServices, open_services
from tests.drills.publish_kills import _fresh, build_fixture


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_fixture(tmp_path_factory.mktemp("publish-gui"))


@pytest.fixture()
def opened(template: tuple[Path, Path], tmp_path: Path) -> Iterator[tuple[StoreServices, Path]]:
    database, rules = _fresh(tmp_path / "work", *template)
    services = open_services(database)
    yield services, rules
    services.close()


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_dialog_shows_the_dry_run_and_publishes_only_when_confirmed(
        qtbot: Any, opened: tuple[StoreServices, Path], runner: JobRunner) -> None:
    services, rules = opened
    before = tree(rules)
    dialogs: list[PublishDialog] = []
    reports: list[tuple[str, str, bool]] = []
    db = DatabaseExecutor(runner, lambda: services)
    publish_interactive(None, db, lambda: "ana", choose_folder=lambda _p: rules,
                        report=lambda _p, title, text, error: reports.append((title, text, error)),
                        show=dialogs.append)
    qtbot.waitUntil(lambda: bool(dialogs), timeout=15_000)
    dialog = dialogs[0]
    text = dialog.text.toPlainText()
    assert "added (1):\n  R-004.yaml" in text and "R-001.yaml  active → retired (too broad)" in text
    assert "+status: retired" in text
    assert tree(rules) == before  # the dry run wrote nothing
    assert not dialog.publish_button.isEnabled()  # R-004 fires on no task: not acknowledged yet
    dialog.acknowledgements["R-004"].setChecked(True)
    assert dialog.publish_button.isEnabled()

    dialog.publish_button.click()

    qtbot.waitUntil(lambda: bool(reports), timeout=15_000)
    title, text, is_error = reports[-1]
    assert (title, is_error) == ("Published", False) and (rules / "R-004.yaml").is_file()
    [event] = ReviewRepository(services.store).audit(target_kind="rule_store")
    assert event.actor == "ana" and event.after["acknowledgement"] == ["ana acknowledged: R-004 fires at injection "
                                                                       "on no task"]


def test_a_store_changed_on_disk_is_refused_with_what_changed(qtbot: Any, opened: tuple[StoreServices, Path],
                                                              runner: JobRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    services, rules = opened
    (rules / "R-002.yaml").write_text((rules / "R-002.yaml").read_text() + "# hand edit\n")
    asked: list[str] = []
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "open", lambda box: asked.append(box.text()))
    publish_interactive(None, DatabaseExecutor(runner, lambda: services), lambda: "ana",
                        choose_folder=lambda _p: rules, show=lambda d: pytest.fail("no dry run for a changed store"))
    qtbot.waitUntil(lambda: bool(asked), timeout=15_000)
    assert "changed on disk since it was imported (modified: R-002.yaml)" in asked[0]
    assert not (rules / "R-004.yaml").exists()
