"""Retire and supersede from the promotion page name the rule version the window showed: when
another reviewer retired, superseded or re-approved the standing rule in between, the page opens
the conflict dialog (who did what, when), writes nothing, and "take theirs" refreshes the page to
their change. On a SQLite file and on PostgreSQL (``store_location`` via ``seeded``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_window_conflicts import idle, other, seeded, window  # noqa: F401  (fixtures)

from core.decisions.service import DecisionRequest, decide
from core.promotion import approve
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import RuleRepository

pytest.importorskip("PySide6")
from cauterule_gui.models import promotion_queue_model as qm  # noqa: E402


class _Prompts:
    def __init__(self, successor: str | None = None) -> None:
        self._successor = successor

    def reason(self, parent: Any, title: str, prompt: str) -> str | None:
        return "no longer fires on our pushes"

    def successor(self, parent: Any, item: Any, choices: list[Any]) -> tuple[str, str] | None:
        assert self._successor is not None
        return self._successor, "the narrower rule replaces it"


def _lifecycle(store: Store, standing_id: str) -> list[tuple[str, str]]:
    return [(e.actor, e.action) for e in ReviewRepository(store).audit("promotion", standing_id)
            if e.action in ("retire", "supersede")]


def _standing_page(window: Any, other: Store, rule: int, qtbot: Any, prompts: _Prompts) -> tuple[Any, str]:
    """Both rules approved; the page shows the first one's standing rule, selected."""
    second = _second(other)
    standing = approve(other, rule, 1, "lars", "passing").promotion.standing_id
    approve(other, second, 1, "lars", "passing")
    panel = window.workflows.promotion
    panel.prompts = prompts
    with qtbot.waitSignal(panel.queue_refreshed, timeout=15_000):
        panel.refresh()
    idle(window.runner)
    assert panel.select_rule(rule) and panel.current_item().standing_id == standing
    return panel, standing


def _second(store: Store) -> int:
    """The seeded store's other passing rule (``c/r2.yaml``)."""
    return next(r.id for r in RuleRepository(store).list_rules() if r.origin == "c/r2.yaml")


def test_retiring_a_rule_another_reviewer_just_retired_opens_the_dialog_and_take_theirs_refreshes(
        window: Any, other: Store, seeded: tuple[Path | str, int], qtbot: Any) -> None:
    panel, standing = _standing_page(window, other, seeded[1], qtbot, _Prompts())
    decide(other, DecisionRequest("retire", "bo", standing_id=standing, reason="obsolete"))
    panel.retire_selected()
    idle(window.runner)
    dialog = panel.conflict_dialog
    assert dialog is not None and "Changed by: bo" in dialog.details.text()
    assert f"What they did: retired {standing} (obsolete)" in dialog.details.text()
    assert _lifecycle(other, standing) == [("bo", "retire")]  # nothing of ours was written
    with qtbot.waitSignal(panel.queue_refreshed, timeout=15_000):
        dialog.take_theirs.click()
    idle(window.runner)
    assert panel.conflict_dialog is None and "Kept bo's change" in panel.message.text()
    assert panel.select_rule(seeded[1])  # the page now shows bo's retirement
    item = panel.current_item()
    assert item is not None and qm.cell_text(item, qm.COL_DECISION).endswith("retired")
    assert standing in qm.tooltip_text(item, qm.COL_DECISION)  # the standing id moved to the Rule column and tooltip
    assert _lifecycle(other, standing) == [("bo", "retire")]


def test_superseding_after_another_reviewer_reapproved_asks_and_keep_mine_saves_on_their_version(
        window: Any, other: Store, seeded: tuple[Path | str, int], qtbot: Any) -> None:
    rule = seeded[1]
    second = _second(other)
    panel, standing = _standing_page(window, other, rule, qtbot, _Prompts())
    successor = PromotionRepository(other).active_for_rule(second).standing_id  # type: ignore[union-attr]
    panel.prompts = _Prompts(successor)
    approve(other, rule, 1, "bo", "checked the new pushes")  # a re-approval: same standing id
    panel.supersede_selected()
    idle(window.runner)
    dialog = panel.conflict_dialog
    assert dialog is not None and "What they did: approve (checked the new pushes)" in dialog.details.text()
    assert PromotionRepository(other).get(standing).status == "active"  # type: ignore[union-attr]
    dialog.keep_mine.click()  # the reviewer has seen bo's re-approval and still supersedes
    idle(window.runner)
    done = PromotionRepository(other).get(standing)
    assert done is not None and (done.status, done.superseded_by) == ("superseded", successor)
    assert _lifecycle(other, standing) == [(window.identity.name, "supersede")]


def test_keep_mine_on_a_rule_already_retired_says_so_and_overwrites_nothing(
        window: Any, other: Store, seeded: tuple[Path | str, int], qtbot: Any) -> None:
    panel, standing = _standing_page(window, other, seeded[1], qtbot, _Prompts())
    decide(other, DecisionRequest("retire", "bo", standing_id=standing, reason="obsolete"))
    panel.retire_selected()
    idle(window.runner)
    panel.conflict_dialog.keep_mine.click()  # written again on bo's version: the rule is retired already
    idle(window.runner)
    assert f"cannot retire {standing}: it is retired, not active" in panel.message.text()
    assert _lifecycle(other, standing) == [("bo", "retire")]
    assert PromotionRepository(other).get(standing).status_reason == "obsolete"  # type: ignore[union-attr]
