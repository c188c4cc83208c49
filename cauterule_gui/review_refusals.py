"""What the review workspace asks when a decision is refused (a mixin of ``ReviewController``).

``core.decisions.decide`` refuses a decision it cannot record as asked: an approval against
replay's verdict, an unacknowledged gate, a tainted source or a one-sentence rule needs a reason
(or a split), a broken row must be opened first, and a rule another reviewer changed meanwhile
needs the reviewer's choice. Each refusal opens the matching dialog here; the answer resubmits
the same request with what was missing, through ``ReviewController._submit``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtWidgets import QMessageBox, QWidget

from core.decisions import (
    AcknowledgementRequired,
    ApprovalRefused,
    BrokenNotOpened,
    DecisionRequest,
    OverrideRequired,
    PromotionError,
    ReasonRequired,
    SplitOffered,
)
from core.domain.errors import ConcurrentChangeError
from core.loop.taint import TaintJustificationRequired
from core.store.workspace_query import WorkspaceRule

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.panels.evidence_panel import EvidencePanel
from cauterule_gui.panels.reason_dialog import ReasonDialog
from cauterule_gui.panels.rule_table_panel import RuleTablePanel
from cauterule_gui.review_actions import first_upper
from cauterule_gui.review_conflicts import ConflictDialog, ask_conflict

REFUSALS = (ApprovalRefused, ReasonRequired, PromotionError, ValueError)


class ReviewRefusals:
    db: DatabaseExecutor
    rule: WorkspaceRule | None
    rules: RuleTablePanel
    evidence: EvidencePanel
    reason_dialog: ReasonDialog | None
    conflict_dialog: ConflictDialog | None
    split_box: Any
    deciding: bool
    _refused_for: tuple[int, str] | None
    _parent: QWidget
    status_message: SignalInstance
    split_requested: SignalInstance
    _submit: Callable[[DecisionRequest, WorkspaceRule], None]  # ReviewController's

    def _refused(self, refusal: BaseException, req: DecisionRequest, row: WorkspaceRule) -> None:
        self.deciding = False
        if isinstance(refusal, OverrideRequired):
            self._ask_reason("Approve against replay's verdict",
                             f"{first_upper(str(refusal))}.\nWhy approve anyway?\n{row.trigger}",
                             "Approve", lambda reason: self._submit(replace(
                                 req, override_verdict=True, reason=reason), row))
        elif isinstance(refusal, AcknowledgementRequired):
            self._ask_reason("Human approval required",
                             f"{first_upper(refusal.wording)}.\nApproving records your "
                             "acknowledgement in the audit log. Why approve anyway?", "Acknowledge and approve",
                             lambda reason: self._submit(replace(
                                 req, acknowledge_gate=True, reason=req.reason or reason), row))
        elif isinstance(refusal, SplitOffered):
            self._offer_split(refusal, req, row)
        elif isinstance(refusal, TaintJustificationRequired):
            self._ask_reason("Approve a rule from a tainted source",
                             f"{first_upper(str(refusal))}.\nWhy is this rule safe to carry?",
                             "Approve", lambda reason: self._submit(replace(req, reason=reason), row))
        elif isinstance(refusal, ConcurrentChangeError):
            self._conflict(refusal, req, row)
        elif isinstance(refusal, BrokenNotOpened):
            self._refused_for = (row.result_id, req.reviewer)
            self._refuse_approval(refusal)
        elif isinstance(refusal, REFUSALS):
            self.evidence.show_message(first_upper(str(refusal)))
            self.status_message.emit(str(refusal))
        else:
            self.evidence.show_message(f"The decision was not saved: {type(refusal).__name__}: {refusal}")
            self.status_message.emit(f"The decision was not saved: {refusal}")

    def _offer_split(self, refusal: SplitOffered, req: DecisionRequest, row: WorkspaceRule) -> None:
        """One-sentence rule: split it (the what-if opens on the proposed halves) or approve it
        unsplit with the acknowledgement that it fires on no task (recorded in the audit log)."""
        box = QMessageBox(QMessageBox.Icon.Warning, "Split the rule before approving it",
                          f"{first_upper(str(refusal))}.\n\nProposed trigger: {refusal.proposal.trigger}\n"
                          f"Proposed directive: {refusal.proposal.directive}", QMessageBox.StandardButton.Cancel,
                          self._parent)
        box.setTextFormat(Qt.TextFormat.PlainText)  # rule text is data
        # Keyboard first: S splits, U approves unsplit (a message box takes a button's mnemonic
        # without Alt), Esc cancels; Return is the split, the way that makes a rule that fires.
        split = box.addButton("&Split… (edit and replay)", QMessageBox.ButtonRole.AcceptRole)
        unsplit = box.addButton("Approve &unsplit…", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(split)

        def chosen(button: Any) -> None:
            if button is split:
                self.split_requested.emit(row, refusal.proposal)
            elif button is unsplit:
                self._ask_reason("Approve a rule that fires on no task",
                                 "Its trigger is a whole sentence: at injection it fires on no task. Approving "
                                 "records your acknowledgement in the audit log. Why approve it unsplit?",
                                 "Acknowledge and approve", lambda reason: self._submit(replace(
                                     req, acknowledge_no_task=True, reason=req.reason or reason), row))

        box.buttonClicked.connect(chosen)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.split_box = box
        box.open()

    def _conflict(self, error: ConcurrentChangeError, req: DecisionRequest, row: WorkspaceRule) -> None:
        """Another reviewer decided or edited the rule first: show who, what, when; the reviewer chooses."""
        self.status_message.emit(f"Not saved: rule {row.origin} was changed by {error.by or 'another writer'}")

        def keep_mine(found: int) -> None:
            self.conflict_dialog = None
            self._submit(replace(req, expected_version=found), row)

        def take_theirs() -> None:
            self.conflict_dialog = None
            self.evidence.show_message(f"Kept {error.by or 'the other'}'s change; yours ({req.action}) was dropped.")
            self.rules.refresh(select=row.rule_id)

        def cancel() -> None:
            self.conflict_dialog = None
            self.status_message.emit(f"Nothing saved for rule {row.origin}")

        reason = f" ({req.reason})" if req.reason else ""
        self.conflict_dialog = ask_conflict(self._parent, error, f"{req.reviewer} {req.action}{reason}",
                                            keep_mine=keep_mine, take_theirs=take_theirs, cancel=cancel)

    def _ask_reason(self, title: str, prompt: str, ok_text: str, then: Callable[[str], None]) -> None:
        dialog = ReasonDialog(title, prompt, self._parent, ok_text=ok_text)
        dialog.reason_given.connect(then)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        self.reason_dialog = dialog
        dialog.open()
        dialog.edit.setFocus()

    def _refuse_approval(self, refusal: Exception) -> None:
        # first_upper, not str.capitalize(): trajectory ids in the message keep their case.
        self.evidence.show_message(first_upper(str(refusal)) + ". Open each broken row (2, then ]) or waive it (W).")
        self.status_message.emit(str(refusal))

    def _update_refusal(self) -> None:
        """Keep an approval-refused banner true as broken rows are opened or waived."""
        if self._refused_for is None or self.rule is None or self._refused_for[0] != self.rule.result_id:
            return
        reviewer, result_id = self._refused_for[1], self._refused_for[0]

        def shown(left: list[str]) -> None:
            if self._refused_for != (result_id, reviewer):
                return
            if left:
                self.evidence.show_message(
                    f"Approval refused: {len(left)} broken trajector{'y' if len(left) == 1 else 'ies'} not yet "
                    f"opened or waived ({', '.join(left[:5])}{', …' if len(left) > 5 else ''}). "
                    "Open each broken row (2, then ]) or waive it (W).")
            else:
                self._refused_for = None
                self.evidence.show_message("Every broken row is now opened or waived: press A to approve.")

        self.db.query(lambda s: s.reviews.unreviewed_broken(reviewer, result_id), shown, name="broken rows left")
