"""The Promotion tab under a failed blind agreement gate: the row says "human approval
required", the approval dialog offers the acknowledgement, and the core refuses without it."""

from __future__ import annotations

from typing import Any

from test_promotion_panel import click, demo, demo_template, make_panel, rule_id, select  # noqa: F401

from core.agreement.session import commit_judgement, create_session
from core.domain.agreement import answers_for
from core.store.agreement_repo import AgreementRepository
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository

from cauterule_gui.jobs.runner import JobRunner
from cauterule_gui.models import promotion_queue_model as qm
from cauterule_gui.panels.promotion import ApprovalInput, ApproveDialog
from cauterule_gui.services import StoreServices


def fail_the_gate(demo: StoreServices) -> None:
    """A blind session on run 1 where reviewer "bo" disagrees with replay on every item."""
    session = create_session(demo.store, 1, "lead", size=25, seed=3)
    for item in AgreementRepository(demo.store).items_with_answers(session.id):
        commit_judgement(demo.store, item.id, "bo",
                         next(a for a in answers_for(item.kind) if a not in (item.replay_answer, "cant_tell")))


def test_the_failed_gate_is_worded_offered_and_acknowledged(
    qtbot: Any, demo: StoreServices, runner: JobRunner,  # noqa: F811
) -> None:
    fail_the_gate(demo)
    panel = make_panel(qtbot, demo, runner)
    rid = rule_id(demo, "C-05")
    item = select(panel, rid)
    assert qm.cell_text(item, qm.COL_GROUP) == "human approval required"
    wording = qm.tooltip_text(item, qm.COL_GROUP)  # the whole sentence
    assert wording.startswith("human approval required: blind agreement 0.00 [") and wording.endswith("< 0.80")
    dialog = ApproveDialog(item, "Approve", panel)
    assert not dialog.acknowledge.isHidden() and wording in dialog.acknowledge.text()
    dialog.deleteLater()
    panel.prompts.answers.append(ApprovalInput("both prevented"))  # type: ignore[attr-defined]
    click(qtbot, panel, "approve")
    assert "approving needs your acknowledgement" in panel.message.text()
    assert PromotionRepository(demo.store).active_for_rule(rid) is None
    panel.prompts.answers.append(ApprovalInput("both prevented", acknowledge_gate=True))  # type: ignore[attr-defined]
    click(qtbot, panel, "approve")
    assert PromotionRepository(demo.store).active_for_rule(rid) is not None
    [event] = [e for e in ReviewRepository(demo.store).audit("rule", rid) if e.action == "approve"]
    assert event.after["via"] == "promotion" and event.after["acknowledgement"].endswith(wording)


def test_the_agreement_cell_carries_the_numbers_of_a_failed_gate(
    qtbot: Any, demo: StoreServices, runner: JobRunner,  # noqa: F811
) -> None:
    fail_the_gate(demo)
    panel = make_panel(qtbot, demo, runner)
    item = select(panel, rule_id(demo, "C-05"))
    cell = qm.cell_text(item, qm.COL_AGREEMENT)
    assert cell.startswith("✗ 0.00 [") and cell.endswith("< 0.80")  # short enough for the column
    assert qm.tooltip_text(item, qm.COL_AGREEMENT).startswith("human approval required: blind agreement 0.00 [")
