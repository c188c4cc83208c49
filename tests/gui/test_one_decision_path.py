"""Issue 17 acceptance: approving, rejecting and deferring the same rule state from the Review
tab, the Promotion tab and the CLI gives the same outcome and the same audit event shape."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import REVIEWER, preset_reviewer, shown_window
from conftest import wait_idle as wait_window
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from test_promotion_panel import click, make_panel, select, wait_idle
from test_review_keys import press

from core.cli import main as cli_main
from core.decisions import DecisionRequest, decide
from core.store.engine import Store, open_store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import RuleRepository

from cauterule_gui.jobs.runner import JobRunner
from cauterule_gui.services import StoreServices, open_services

REASONS = {"approve": "evidence read: fires only on its own failures", "reject": "trigger too broad",
           "defer": "ask the docker owner"}


def _passing_rule(store: Store) -> int:
    """A passing candidate with no broken evidence (so approval needs no waiver)."""
    from core.store.replay_repo import ReplayRepository

    run = ReplayRepository(store).latest_complete_run()
    assert run is not None
    kinds = {r.id: r.kind for r in RuleRepository(store).list_rules()}
    return next(r.rule_id for r in ReplayRepository(store).results(run.id)
                if r.verdict == "pass" and r.broken_n == 0 and kinds[r.rule_id] == "candidate")


def _shape(store: Store, after_event: int, rule_id: int) -> dict[str, Any]:
    """What the decision did and the shape of its audit events (keys, not values)."""
    events = [e for e in ReviewRepository(store).audit() if e.id > after_event]
    current = ReviewRepository(store).current(rule_id)
    standing = PromotionRepository(store).active_for_rule(rule_id)
    return {
        "decision": None if current is None else current.action,
        "standing": None if standing is None else standing.status,
        "events": [(e.action, e.target_kind, e.actor, sorted((e.after or {}).keys()), e.before is None)
                   for e in events],
        "via": sorted({(e.after or {}).get("via") for e in events}),
    }


def _last_event(store: Store) -> int:
    events = ReviewRepository(store).audit()
    return events[-1].id if events else 0


@pytest.fixture
def template_copy(tmp_path: Path, replayed_template: Path) -> Path:
    target = tmp_path / "decide.sqlite"
    shutil.copy(replayed_template, target)
    return target


def _expected(tmp_path: Path, replayed_template: Path, action: str) -> dict[str, Any]:
    """The core called directly (via="api") on the same rule state: the reference outcome."""
    path = tmp_path / "reference.sqlite"
    shutil.copy(replayed_template, path)
    store = open_store(path)
    try:
        rid, start = _passing_rule(store), _last_event(store)
        decide(store, DecisionRequest(action, REVIEWER, rule_id=rid, run_id=1, reason=REASONS[action]))
        return _shape(store, start, rid)
    finally:
        store.close()


def _via_review(qtbot: Any, services: StoreServices, runner: JobRunner, rid: int, action: str) -> None:
    preset_reviewer()
    window = shown_window(qtbot, services, runner)
    window.workspace.rules.model.fetch_all()
    assert window.workspace.rules.select_rule(rid)
    assert window.workspace.rules.current_rule().rule_id == rid  # type: ignore[union-attr]
    window.workspace.rules.view.setFocus()
    # Keys go to the focused widget: wait until it is this window's rule table (not a widget
    # of an earlier test that Qt has not yet deleted).
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.workspace.rules.view, timeout=5_000)
    press(qtbot, window, {"approve": Qt.Key.Key_A, "reject": Qt.Key.Key_R, "defer": Qt.Key.Key_D}[action])
    if action == "reject":
        dialog = window.review.reason_dialog
        assert dialog is not None
        qtbot.keyClicks(dialog.edit, REASONS[action])
        qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
        wait_window(window)
    assert not window.workspace.evidence.banner.isVisible(), window.workspace.evidence.banner.text()
    window.close()


def _via_promotion(qtbot: Any, services: StoreServices, runner: JobRunner, rid: int, action: str) -> None:
    from cauterule_gui.panels.promotion import ApprovalInput

    panel = make_panel(qtbot, services, runner)
    select(panel, rid)
    panel.prompts.answers.append(  # type: ignore[attr-defined]
        ApprovalInput(REASONS[action]) if action == "approve" else REASONS[action])
    click(qtbot, panel, action)
    wait_idle(qtbot, panel)


def _via_cli(path: Path, rid: int, action: str) -> None:
    code = cli_main(["decide", action, "--store", str(path), "--rule", str(rid), "--run", "1",
                     "--reviewer", REVIEWER, "--reason", REASONS[action]])
    assert code == 0


@pytest.mark.parametrize("action", ["approve", "reject", "defer"])
@pytest.mark.parametrize("surface", ["review", "promotion", "cli"])
def test_every_surface_gives_the_same_outcome_and_audit_shape(
    qtbot: Any, runner: JobRunner, tmp_path: Path, replayed_template: Path, template_copy: Path,
    surface: str, action: str,
) -> None:
    expected = _expected(tmp_path, replayed_template, action)
    services = open_services(template_copy)
    try:
        rid, start = _passing_rule(services.store), _last_event(services.store)
        if surface == "review":
            _via_review(qtbot, services, runner, rid, action)
        elif surface == "promotion":
            _via_promotion(qtbot, services, runner, rid, action)
        else:
            _via_cli(template_copy, rid, action)
        got = _shape(services.store, start, rid)
    finally:
        services.close()
    assert got["decision"] == expected["decision"] == action
    assert got["standing"] == expected["standing"]
    assert got["events"] == expected["events"]
    assert got["via"] == [surface] and expected["via"] == ["api"]
