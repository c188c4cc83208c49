"""Decide on several rules at once: a multi-row selection, or a group of duplicates.

A / R / D act on every selected rule when more than one row is selected (one rule selected:
the Review controller's single-rule path, unchanged). Each rule gets its own call to the
decision path (``core.decisions.decide``, run by the window's database executor), so each
gets its own decision and its own audit event; a rule whose approval is refused (unopened
broken rows, incomplete run, a failed gate needing acknowledgement) is reported by name and
left undecided, the others are decided.

Duplicates (same trigger and directive, ``core.rule_duplicates``) are marked in the rules
table; G selects the current rule's whole group so one key decides them all. G never reads
on the GUI thread and never pages the table synchronously: it asks the executor for the
group's rule ids under the table's scope and filter (one query) and selects their rows when
the answer arrives; a row not read yet is selected once its page is in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QObject, Signal

from core.decisions import ApprovalRefused, PromotionError, ReasonRequired, decide
from core.decisions.split import same_sentence
from core.domain.errors import ConcurrentChangeError  # another reviewer changed the rule: reported, not saved
from core.store.engine import Store
from core.store.workspace_query import WorkspaceRule

from cauterule_gui import review_actions
from cauterule_gui.blind_guard import blind_refusal
from cauterule_gui.panels.reason_dialog import ReasonDialog
from cauterule_gui.services import StoreServices

if TYPE_CHECKING:
    from cauterule_gui.main_window import MainWindow


@dataclass

class BulkResult:
    action: str
    decided: list[int] = field(default_factory=list)
    refused: dict[int, str] = field(default_factory=dict)  # rule id -> why


def decide_each(store: Store, rows: list[WorkspaceRule], reviewer: str, action: str,
                reason: str | None, *, acknowledge_no_task: bool = False) -> BulkResult:
    """One request on the one decision path per rule (``core.decisions.decide``; on the database
    thread, through the window's executor):
    its own transaction, decision and audit event. ``core.decisions`` checks each rule
    (broken rows opened, complete run, gates) and refuses with a reason, which is kept.
    ``acknowledge_no_task``: the reviewer acknowledged that the one-sentence rules among them
    fire on no task (the split gate of issue 28), recorded on each."""
    result = BulkResult(action)
    for row in rows:
        override = action == "approve" and row.verdict != "pass" and bool(reason)
        request = review_actions.request(row, action, reviewer, reason, override_verdict=override)
        if acknowledge_no_task and same_sentence(row.trigger, row.directive):
            request = replace(request, acknowledge_no_task=True)
        try:
            decide(store, request)
        except (ApprovalRefused, ReasonRequired, PromotionError, ValueError, ConcurrentChangeError) as refusal:
            result.refused[row.rule_id] = str(refusal)
            continue
        result.decided.append(row.rule_id)
    return result


class BulkDecisions(QObject):
    decided = Signal(object)  # BulkResult
    status_message = Signal(str)
    group_selected = Signal(int)  # G: how many rules are selected now

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self.duplicates: Mapping[int, tuple[int, ...]] = {}
        self.reason_dialog: ReasonDialog | None = None
        self.last: BulkResult | None = None

    # -- duplicates -------------------------------------------------------------------
    def refresh_duplicates(self) -> None:
        def job(services: StoreServices) -> Mapping[int, tuple[int, ...]]:
            from core.rule_duplicates import store_duplicate_groups

            return store_duplicate_groups(services.store)

        self._window.db.query(job, self._on_duplicates, name="duplicate rules", key="duplicates")

    def _on_duplicates(self, groups: Mapping[int, tuple[int, ...]]) -> None:
        self.duplicates = groups
        self._window.rule_model.set_duplicates(groups)

    def select_group(self) -> None:
        """Select every rule of the current rule's duplicate group (expanding it), once the
        group's rule ids have been read; ``group_selected(n)`` says how many were selected."""
        rules = self._window.workspace.rules
        rule, row = rules.current_rule(), rules.view.currentIndex().row()
        if rule is None or (rule.group_size <= 1 and not rules.model.is_member(row)):
            self.status_message.emit("This rule has no duplicates (same trigger and directive) among the rules shown")
            self.group_selected.emit(0)
            return
        model, key, reviewer = rules.model, rule.group_key or "", self._window.identity.name
        scope, flt, rule_id = model.scope, model.filter, rule.rule_id

        order_by, descending, generation = model.order_by, model.descending, model.generation

        def group(services: StoreServices) -> list[WorkspaceRule]:
            members = services.results.group_members(scope, flt, [key], reviewer, order_by=order_by,
                                                     descending=descending)
            return members.get(key, [])

        def found(members: list[WorkspaceRule]) -> None:
            model.take_members(generation, key, members)  # the table shows them without reading again
            self._select_ids(rule_id, [m.rule_id for m in members])

        self.status_message.emit("Selecting the rule's duplicates…")
        self._window.db.query(group, found, name="duplicate group", key=f"group:{id(self)}")

    def _select_ids(self, asked_for: int, ids: Sequence[int]) -> None:
        rules = self._window.workspace.rules
        if rules.current_rule_id() != asked_for:
            return  # the reviewer moved on while the group was read
        rows = [r for r in (rules.model.row_of_rule(i) for i in ids) if r is not None]
        if len(rows) < len(ids) and rules.model.fetch_more_then(lambda: self._select_ids(asked_for, ids)):
            return  # some of the group is on a page not read yet: select when it is in
        selection = QItemSelection()
        for row in rows:
            selection.select(rules.model.index(row, 0), rules.model.index(row, rules.model.columnCount() - 1))
        rules.view.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self.status_message.emit(f"Selected {len(rows)} rules with the same trigger and directive: "
                                 "A / R / D decide on each")
        self.group_selected.emit(len(rows))

    # -- decisions --------------------------------------------------------------------
    def selected_rows(self) -> list[WorkspaceRule]:
        rules = self._window.workspace.rules
        return rules.model.rules_of_rows(rules.selected_rows())  # a collapsed duplicate group's row: each of its rules

    def act(self, action: str, single: Callable[[], None]) -> None:
        # A collapsed group's row stands for its members: read them first (off the GUI thread).
        rules = self._window.workspace.rules
        rules.model.with_members(rules.selected_rows, lambda: self._act(action, single))

    def _act(self, action: str, single: Callable[[], None]) -> None:
        rules = self._window.workspace.rules
        selected = rules.selected_rows()
        rows = self.selected_rows()
        guard = getattr(self._window, "blind", None)
        hidden = [r for r in rows if guard is not None and guard.hides(r.origin)]
        if hidden:  # a refusal would name replay's verdict ("approval refused: replay's verdict is …")
            self.status_message.emit(blind_refusal(len(hidden)))
            return
        if len(rows) <= 1:
            single()
            return
        reviewer = self._window.identity.require(self._window)
        if not reviewer:
            return
        # One collapsed group's row decided: move past it, as a one-rule decision does.
        past = rows[0].rule_id if len(selected) == 1 and rules.model.is_group(selected[0]) else None
        one_sentence = action == "approve" and any(same_sentence(r.trigger, r.directive) for r in rows)
        needs_reason = action == "reject" or (action == "approve" and any(r.verdict != "pass" for r in rows))
        if not needs_reason and not one_sentence:
            self.apply(rows, reviewer, action, None, advance_from=past)
            return
        title = {"approve": "Approve against replay's verdict", "reject": "Reject rules"}[action]
        prompt = f"Why {action} these {len(rows)} rules? (recorded for each one)"
        if one_sentence:
            # Without this the split gate refused every copy by name and the keys had no way on:
            # one acknowledgement (with its reason) for the group, recorded on each rule.
            title = "Approve rules that fire on no task"
            prompt = (f"Trigger and directive are one sentence in {len(rows)} of these rules: at injection "
                      "they fire on no task. Approving records your acknowledgement on each (split one "
                      "with E, What if, instead). Why approve them unsplit?")
        dialog = ReasonDialog(title, prompt, self._window, ok_text=action.capitalize())
        dialog.reason_given.connect(lambda reason: self.apply(rows, reviewer, action, reason,
                                                              acknowledge_no_task=one_sentence, advance_from=past))
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        self.reason_dialog = dialog
        dialog.open()

    def apply(self, rows: list[WorkspaceRule], reviewer: str, action: str, reason: str | None, *,
              acknowledge_no_task: bool = False, advance_from: int | None = None) -> None:
        """Decide on each rule on the database thread; ``decided`` is emitted once all are written.
        ``advance_from``: the group row's rule, moved past once they are (None: stay)."""
        self.reason_dialog = None
        self._window.db.op(lambda s: decide_each(s.store, rows, reviewer, action, reason,
                                                 acknowledge_no_task=acknowledge_no_task),
                           lambda result: self._applied(result, len(rows), advance_from), kinds={"decisions"},
                           initiator=self, name=f"{action} {len(rows)} rules")

    def _applied(self, result: BulkResult, asked: int, advance_from: int | None = None) -> None:
        self.last = result
        action = result.action
        rows = range(asked)
        refused = "; ".join(f"rule {rid}: {why}" for rid, why in list(result.refused.items())[:3])
        done = {"approve": "Approved", "reject": "Rejected", "defer": "Deferred"}[action]
        self.status_message.emit(f"{done} {len(result.decided)} of {len(rows)} rules"
                                 + (f" — not decided: {refused}" if refused else "") + " (saved, one audit event each)")
        self._window.workspace.rules.refresh(advance_from=advance_from if result.decided else None)
        self.decided.emit(result)
