"""Promotion's actions: approve, waive broken evidence, reject, defer, re-approve, retire, supersede.

A decision, a retirement and a supersession name the rule's row version read with the queue (or
the one this window's own last write left): when another reviewer decided on, edited, retired,
superseded or re-approved the rule since, nothing is saved and the conflict dialog
(``cauterule_gui.review_conflicts``) lets the reviewer keep theirs, take the other's, or cancel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from core.decisions import BrokenNotOpened, DecisionOutcome, DecisionRequest, decide
from core.domain.errors import ConcurrentChangeError
from core.promotion import QueueItem

from cauterule_gui.jobs.runner import JobFailure, JobHandle
from cauterule_gui.models import promotion_queue_model as qm
from cauterule_gui.panels.promotion.common import REFUSALS, PendingApproval
from cauterule_gui.panels.promotion.dialogs import (
    ApprovalInput,
)
from cauterule_gui.review_conflicts import ConflictDialog, ask_conflict, versions_for


class ActionsPage:
    """The decision actions of ``PromotionPanel`` (a mixin: the widgets live on the panel)."""

    conflict_dialog: ConflictDialog | None = None

    def _expected(self, item: QueueItem) -> int | None:
        """The rule version this decision is based on: the queue's, or this window's own newer write's."""
        return versions_for(self._store()).expected("rule", item.rule_id, item.row_version)

    def _send(self, item: QueueItem, request: DecisionRequest, what: str,
              on_error: Callable[[JobFailure], None] | None = None) -> JobHandle:
        """Send a decision; a conflicting write opens the conflict dialog, other failures go to ``on_error``."""
        store = self._store()

        def failed(failure: JobFailure) -> None:
            if isinstance(failure.exception, ConcurrentChangeError):
                self._conflict(failure.exception, item, request, what, on_error)
            elif on_error is not None:
                on_error(failure)
            else:
                self._show_failure(failure, f"{what.capitalize()} failed")

        return self._run(lambda _ctx: decide(store, request), item, what, on_error=failed)

    def _conflict(self, error: ConcurrentChangeError, item: QueueItem, request: DecisionRequest, what: str,
                  on_error: Callable[[JobFailure], None] | None) -> None:
        self.set_message(f"Not saved: {error}", "error")

        def keep_mine(found: int) -> None:
            self.conflict_dialog = None
            self._send(item, replace(request, expected_version=found), what, on_error)

        def take_theirs() -> None:
            self.conflict_dialog = None
            self.set_message(f"Kept {error.by or 'the other'}'s change; your {what} was dropped.", "info")
            self.refresh()

        def cancel() -> None:
            self.conflict_dialog = None
            self.set_message(f"Nothing saved: your {what} of {qm.rule_label(item)} was cancelled.", "info")

        reason = f" ({request.reason})" if request.reason else ""
        self.conflict_dialog = ask_conflict(self, error, f"{request.reviewer} {request.action}{reason}",
                                            keep_mine=keep_mine, take_theirs=take_theirs, cancel=cancel)

    # -- actions ---------------------------------------------------------------------
    def approve_selected(self) -> JobHandle | None:
        return self._approve("Approve")

    def reapprove_selected(self) -> JobHandle | None:
        return self._approve("Re-approve")

    def _approve(self, title: str) -> JobHandle | None:
        item, reviewer = self._ready()
        if item is None or reviewer is None:
            return None
        answer = self.prompts.approval(self, item, title)
        if answer is None:
            return None
        return self._submit_approval(item, reviewer, answer, {})

    def waive_selected(self) -> JobHandle | None:
        item, reviewer = self._ready()
        if item is None or reviewer is None:
            return None
        ids = list(item.gate("broken_reviewed").data.get("unreviewed") or [])
        if not ids:
            self.set_message("Every broken trajectory of this rule is already opened or waived.", "info")
            return None
        waivers = self.prompts.waivers(self, item, ids)
        if waivers is None:
            return None
        pending = self._pending if self._pending is not None and self._pending.rule_id == item.rule_id else None
        answer = pending.approval if pending is not None else self.prompts.approval(self, item, "Approve")
        if answer is None:
            return None
        return self._submit_approval(item, reviewer, answer, waivers)

    def _submit_approval(self, item: QueueItem, reviewer: str, answer: ApprovalInput,
                         waivers: dict[str, str]) -> JobHandle:
        rule_id, run_id = item.rule_id, item.run_id

        request = DecisionRequest("approve", reviewer, rule_id=rule_id, run_id=run_id, reason=answer.reason,
                                  override_verdict=answer.against_verdict, acknowledge_gate=answer.acknowledge_gate,
                                  acknowledge_no_task=answer.acknowledge_no_task, waivers=dict(waivers),
                                  via="promotion", expected_version=self._expected(item))

        def refused(failure: JobFailure) -> None:
            if isinstance(failure.exception, BrokenNotOpened):
                self._pending = PendingApproval(rule_id, answer)
                self.set_message(f"{failure.message}.\nOpen each one in the Review tab, or use “Waive broken…” "
                                 "to waive them with a reason and approve.", "error")
            else:
                self._show_failure(failure, "Approval failed")

        self._pending = None
        return self._send(item, request, "approve", on_error=refused)

    def reject_selected(self) -> JobHandle | None:
        return self._decide("Reject")

    def defer_selected(self) -> JobHandle | None:
        return self._decide("Defer")

    def _decide(self, title: str) -> JobHandle | None:
        item, reviewer = self._ready()
        if item is None or reviewer is None:
            return None
        reason = self.prompts.reason(self, title, f"{title} {qm.rule_label(item)}: why? (recorded with the decision)")
        if not reason:
            return None
        request = DecisionRequest(title.lower(), reviewer, rule_id=item.rule_id, run_id=item.run_id, reason=reason,
                                  via="promotion", expected_version=self._expected(item))
        return self._send(item, request, title.lower())

    def retire_selected(self) -> JobHandle | None:
        item, reviewer = self._ready()
        if item is None or reviewer is None or not item.standing_id:
            return None
        reason = self.prompts.reason(self, "Retire", f"Retire the standing rule {item.standing_id}: why?")
        if not reason:
            return None
        request = DecisionRequest("retire", reviewer, rule_id=item.rule_id, standing_id=item.standing_id,
                                  reason=reason, via="promotion", expected_version=self._expected(item))
        return self._send(item, request, "retire")

    def supersede_selected(self) -> JobHandle | None:
        item, reviewer = self._ready()
        if item is None or reviewer is None or not item.standing_id or self.model.snapshot is None:
            return None
        choices = [s for sid, s in sorted(self.model.snapshot.standing.items()) if sid != item.standing_id]
        if not choices:
            self.set_message("No other active standing rule can supersede this one.", "info")
            return None
        answer = self.prompts.successor(self, item, choices)
        if answer is None or not answer[1]:
            return None
        successor, reason = answer
        request = DecisionRequest("supersede", reviewer, rule_id=item.rule_id, standing_id=item.standing_id,
                                  successor=successor, reason=reason, via="promotion",
                                  expected_version=self._expected(item))
        return self._send(item, request, "supersede")

    def _ready(self) -> tuple[QueueItem | None, str | None]:
        item = self.current_item()
        if item is None or self._services() is None or (self._action_job is not None and self._action_job.running):
            return None, None
        hidden = self.hidden_reason(item)
        if hidden is not None:  # a decision would rest on replay's answer the reviewer must not see yet
            self.set_message(hidden, "info")
            return None, None
        return item, self.identity.require(self)

    def _run(self, work: Callable[[Any], DecisionOutcome], item: QueueItem, what: str,
             on_error: Callable[[JobFailure], None] | None = None) -> JobHandle:
        found = self.db.op(lambda _s: work(None), name=f"promotion: {what}", kinds={"promotion", "decisions"},
                           initiator=self, on_error=lambda _e: None)  # the handle's error is shown below
        assert found is not None  # _ready checked that a store is open
        handle = found
        self._action_job = handle
        self._want_rule = item.rule_id
        self.set_message(f"{what.capitalize()}: saving…", "info")

        store = self._store()

        def done(outcome: DecisionOutcome) -> None:
            # The reviewer's next decision on this rule names the version this one left.
            versions_for(store).note("rule", outcome.rule_id, outcome.row_version)
            self.set_message(outcome.message, "ok")
            self.promotion_changed.emit(what)

        handle.result.connect(done)
        handle.error.connect(on_error or (lambda failure: self._show_failure(failure, f"{what.capitalize()} failed")))
        handle.finished.connect(self._after_action)
        self._update_buttons()
        return handle

    def _after_action(self) -> None:
        self._update_buttons()
        self.refresh()

    def _show_failure(self, failure: JobFailure, title: str) -> None:
        if isinstance(failure.exception, REFUSALS):
            self.set_message(failure.message, "error")  # the core's refusals are written to be shown as is
        else:
            self.set_message(f"{title}: {failure.exc_type}: {failure.message}", "error")
