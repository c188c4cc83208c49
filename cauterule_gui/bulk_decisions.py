"""Decide on several rules at once: a multi-row selection, or a group of duplicates.

A / R / D act on every selected rule when more than one row is selected (one rule selected:
the Review controller's single-rule path, unchanged). Each rule gets its own call to the
decision path (``review_actions.request`` + ``run``, i.e. ``core.decisions.decide``), so each
gets its own decision and its own audit event; a rule whose approval is refused (unopened
broken rows, incomplete run, a failed gate needing acknowledgement) is reported by name and
left undecided, the others are decided.

Duplicates (same trigger and directive, ``core.rule_duplicates``) are marked in the rules
table; G selects the current rule's whole group so one key decides them all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QObject, Signal

from core.decisions import ApprovalRefused, PromotionError, ReasonRequired
from core.store.engine import Store
from core.store.workspace_query import WorkspaceRule

from cauterule_gui import review_actions
from cauterule_gui.jobs.runner import JobPool
from cauterule_gui.panels.reason_dialog import ReasonDialog

if TYPE_CHECKING:
    from cauterule_gui.main_window import MainWindow


@dataclass
class BulkResult:
    action: str
    decided: list[int] = field(default_factory=list)
    refused: dict[int, str] = field(default_factory=dict)  # rule id -> why


def decide_each(store: Store, rows: list[WorkspaceRule], reviewer: str, action: str,
                reason: str | None) -> BulkResult:
    """One request on the one decision path per rule (``review_actions.request`` / ``run``):
    its own transaction, decision and audit event. ``core.decisions`` checks each rule
    (broken rows opened, complete run, gates) and refuses with a reason, which is kept."""
    result = BulkResult(action)
    for row in rows:
        override = action == "approve" and row.verdict != "pass" and bool(reason)
        request = review_actions.request(row, action, reviewer, reason, override_verdict=override)
        try:
            review_actions.run(store, request)
        except (ApprovalRefused, ReasonRequired, PromotionError, ValueError) as refusal:
            result.refused[row.rule_id] = str(refusal)
            continue
        result.decided.append(row.rule_id)
    return result


class BulkDecisions(QObject):
    decided = Signal(object)  # BulkResult
    status_message = Signal(str)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self.duplicates: Mapping[int, tuple[int, ...]] = {}
        self.reason_dialog: ReasonDialog | None = None
        self.last: BulkResult | None = None

    # -- duplicates -------------------------------------------------------------------
    def refresh_duplicates(self) -> None:
        services = self._window.services
        if services is None:
            return
        store = services.store

        def job(_ctx: object) -> Mapping[int, tuple[int, ...]]:
            from core.rule_duplicates import store_duplicate_groups

            return store_duplicate_groups(store)

        handle = self._window.runner.submit(job, name="duplicate rules", pool=JobPool.DB, key=f"dups:{id(self)}")
        handle.result.connect(self._on_duplicates)

    def _on_duplicates(self, groups: Mapping[int, tuple[int, ...]]) -> None:
        self.duplicates = groups
        self._window.rule_model.set_duplicates(groups)

    def select_group(self) -> int:
        """Select every rule of the current rule's duplicate group; returns how many."""
        rules = self._window.workspace.rules
        current = rules.current_rule_id()
        members = self.duplicates.get(current or -1, ())
        if not members:
            self.status_message.emit("This rule has no duplicates (same trigger and directive)")
            return 0
        rows = []
        for rule_id in members:
            row = rules.model.row_of_rule(rule_id)
            while row is None and rules.model.canFetchMore():
                rules.model.fetchMore()
                row = rules.model.row_of_rule(rule_id)
            if row is not None:
                rows.append(row)
        selection = QItemSelection()
        for row in rows:
            selection.select(rules.model.index(row, 0), rules.model.index(row, rules.model.columnCount() - 1))
        rules.view.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self.status_message.emit(f"Selected {len(rows)} rules with the same trigger and directive: "
                                 "A / R / D decide on each")
        return len(rows)

    # -- decisions --------------------------------------------------------------------
    def selected_rows(self) -> list[WorkspaceRule]:
        rules = self._window.workspace.rules
        rows = sorted({i.row() for i in rules.view.selectionModel().selectedRows()})
        return rules.model.rules_of_rows(rows)  # a collapsed duplicate group's row: each of its rules

    def act(self, action: str, single: Callable[[], None]) -> None:
        rows = self.selected_rows()
        if len(rows) <= 1:
            single()
            return
        reviewer = self._window.identity.require(self._window)
        if not reviewer:
            return
        needs_reason = action == "reject" or (action == "approve" and any(r.verdict != "pass" for r in rows))
        if not needs_reason:
            self.apply(rows, reviewer, action, None)
            return
        title = {"approve": "Approve against replay's verdict", "reject": "Reject rules"}[action]
        dialog = ReasonDialog(title, f"Why {action} these {len(rows)} rules? (recorded for each one)",
                              self._window, ok_text=action.capitalize())
        dialog.reason_given.connect(lambda reason: self.apply(rows, reviewer, action, reason))
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        self.reason_dialog = dialog
        dialog.open()

    def apply(self, rows: list[WorkspaceRule], reviewer: str, action: str, reason: str | None) -> BulkResult:
        services = self._window.services
        self.reason_dialog = None
        if services is None:
            return BulkResult(action)
        result = decide_each(services.store, rows, reviewer, action, reason)
        self.last = result
        refused = "; ".join(f"rule {rid}: {why}" for rid, why in list(result.refused.items())[:3])
        done = {"approve": "Approved", "reject": "Rejected", "defer": "Deferred"}[action]
        self.status_message.emit(f"{done} {len(result.decided)} of {len(rows)} rules"
                                 + (f" — not decided: {refused}" if refused else "") + " (saved, one audit event each)")
        self._window.workspace.rules.refresh()
        self.decided.emit(result)
        return result
