"""The review workspace's behaviour: what a selected rule shows, and what the keys do.

Decisions go through ``core.decisions.decide`` (via ``review_actions``), written synchronously on the GUI thread:
each is one short transaction (milliseconds; WAL lets it proceed beside a running replay,
and the busy timeout covers the instant a replay chunk is being saved), so a rule shown as
decided is already on disk and the next key can advance without waiting for a job.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from core.decisions import (
    AcknowledgementRequired,
    ApprovalRefused,
    BrokenNotOpened,
    DecisionRequest,
    OverrideRequired,
    PromotionError,
    ReasonRequired,
)
from core.loop.taint import TaintJustificationRequired
from core.store.replay_repo import StoredOutcome
from core.store.workspace_query import WorkspaceRule

from cauterule_gui import review_actions
from cauterule_gui.models.formatting import BUCKET_SYMBOLS, BUCKET_WORDS, MARK_TEXT, number, signed
from cauterule_gui.panels.audit_dialog import AuditDialog
from cauterule_gui.panels.evidence_panel import EvidencePanel
from cauterule_gui.panels.reason_dialog import ReasonDialog
from cauterule_gui.panels.rule_table_panel import RuleTablePanel
from cauterule_gui.panels.trajectory_viewer import TrajectoryViewerPanel
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices


def breakdown_text(outcome: StoredOutcome) -> str:
    word = BUCKET_WORDS.get(outcome.bucket, outcome.bucket)
    return (
        f"{BUCKET_SYMBOLS.get(outcome.bucket, '')} {word.upper()}  ·  score {number(outcome.score)}  ·  "
        f"token F1 {number(outcome.token_f1)}  ·  bigram {number(outcome.bigram)}  ·  "
        f"cosine {number(outcome.cosine)}  ·  view {outcome.view or '—'}  ·  floor {outcome.floor or '—'}  ·  "
        f"threshold {number(outcome.threshold)}  ·  margin {signed(outcome.margin)}"
        "\nMatched text is highlighted, bold and underlined; ⚠ marks the failure point, ◆ a step that matched."
    )


class ReviewController(QObject):
    status_message = Signal(str)
    decided = Signal(str, int)  # action, rule id (after it is committed)

    def __init__(self, services: Callable[[], StoreServices | None], identity: ReviewerIdentity,
                 rules: RuleTablePanel, evidence: EvidencePanel, viewer: TrajectoryViewerPanel,
                 dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self._services = services
        self.identity = identity
        self.rules = rules
        self.evidence = evidence
        self.viewer = viewer
        self._parent = dialog_parent
        self.rule: WorkspaceRule | None = None
        self.reason_dialog: ReasonDialog | None = None
        self.audit_dialog: AuditDialog | None = None
        self.interactive = True  # False for --screenshot: never ask for a name
        self._held = False
        self._pending: tuple[WorkspaceRule | None] | None = None
        self._refused_for: tuple[int, str] | None = None  # (result id, reviewer) of a refused approval
        rules.rule_selected.connect(self.show_rule)
        evidence.evidence_opened.connect(self.open_evidence)

    # -- what is shown -----------------------------------------------------------------
    def hold(self) -> None:
        """Defer evidence loading until ``release``: lets a table refresh and the evidence
        reload run in separate event-loop turns (each well under 100 ms) during a replay."""
        self._held = True

    def release(self) -> None:
        self._held = False
        pending, self._pending = self._pending, None
        if pending is not None:
            self.show_rule(pending[0])

    def show_rule(self, rule: WorkspaceRule | None) -> None:
        if self._held:
            self._pending = (rule,)
            return
        services = self._services()
        previous = self.rule
        self.rule = rule
        if rule is None or services is None:
            self.evidence.show_rule(None, None, {}, set(), {}, {})
            self.viewer.show_trajectory(None)
            return
        if previous is not None and previous.result_id == rule.result_id and self.evidence.result is not None:
            # Same evidence (a refresh, or the status changed): update the header, keep the rows.
            self.evidence.rule = rule
            self._refresh_flags()
            return
        self.evidence.clear_message()
        bundle = services.workspace.evidence_bundle(rule.result_id, self.identity.name)
        self.evidence.show_rule(rule, bundle.result, bundle.outcomes, set(bundle.viewed), bundle.waived,
                                bundle.marks)

    def _refresh_flags(self) -> None:
        services = self._services()
        reviewer = self.identity.name
        if services is None or self.rule is None:
            return
        if not reviewer:
            self.evidence.update_flags(set(), {}, {})
            return
        result_id = self.rule.result_id
        self.evidence.update_flags(services.reviews.viewed(reviewer, result_id),
                                   services.workspace.waivers(reviewer, result_id),
                                   services.workspace.evidence_marks(reviewer, result_id))

    def open_evidence(self, outcome: StoredOutcome | None, deliberate: bool) -> None:
        services = self._services()
        if outcome is None or services is None:
            self.viewer.show_trajectory(None)
            return
        detail = services.corpora.get_trajectory(outcome.trajectory_pk)
        self.viewer.show_trajectory(detail, outcome.spans, breakdown_text(outcome))
        if deliberate and self.rule is not None:
            # Take the result id BEFORE asking the name: the name prompt runs an event loop in
            # which the rules table may refresh and reset self.rule (issue 12, defect 1).
            result_id, rule_id = self.rule.result_id, self.rule.rule_id
            asked = not self.identity.name
            reviewer = self._reviewer()
            if reviewer:
                services.workspace.record_view(reviewer, result_id, outcome.trajectory_pk)
                if asked and (self.rule is None or self.rule.rule_id != rule_id):
                    # Setting the name refreshed the rules table: bring the reviewer back to
                    # the rule and the trajectory they opened.
                    self.rules.select_rule(rule_id)
                    self.evidence.set_bucket(outcome.bucket)
                    row = self.evidence.model.row_of(outcome.trajectory_pk)
                    if row is not None:
                        self.evidence.view.setCurrentIndex(self.evidence.model.index(row, 0))
                self._refresh_flags()
                self._update_refusal(services)

    def _reviewer(self) -> str | None:
        return self.identity.require(self._parent) if self.interactive else self.identity.name

    # -- decisions ---------------------------------------------------------------------
    # The controller decides nothing: it sends the request to core.decisions, and when a
    # refusal says what is missing (a reason, an override, an acknowledgement) it asks the
    # reviewer and sends the request again.
    def _target(self) -> tuple[StoreServices, WorkspaceRule, str] | None:
        services = self._services()
        if services is None or self.rule is None:
            self.status_message.emit("Select a rule first")
            return None
        row = self.rule
        reviewer = self._reviewer()
        if not reviewer:
            self.status_message.emit("A reviewer name is needed to record decisions")
            return None
        return services, row, reviewer

    def approve(self) -> None:
        found = self._target()
        if found is not None:
            self._submit(found[0], review_actions.request(found[1], "approve", found[2]), found[1])

    def reject(self) -> None:
        found = self._target()
        if found is not None:
            services, row, reviewer = found
            self._ask_reason("Reject rule", f"Why reject this rule?\n{row.trigger}", "Reject",
                             lambda reason: self._submit(services, review_actions.request(
                                 row, "reject", reviewer, reason), row))

    def defer(self) -> None:
        found = self._target()
        if found is not None:
            self._submit(found[0], review_actions.request(found[1], "defer", found[2]), found[1])

    def _submit(self, services: StoreServices, req: DecisionRequest, row: WorkspaceRule) -> None:
        self.reason_dialog = None
        try:
            review_actions.run(services.store, req)
        except OverrideRequired as refusal:
            self._ask_reason("Approve against replay's verdict",
                             f"{review_actions.first_upper(str(refusal))}.\nWhy approve anyway?\n{row.trigger}",
                             "Approve", lambda reason: self._submit(services, replace(
                                 req, override_verdict=True, reason=reason), row))
        except AcknowledgementRequired as refusal:
            self._ask_reason("Human approval required",
                             f"{review_actions.first_upper(refusal.wording)}.\nApproving records your "
                             "acknowledgement in the audit log. Why approve anyway?", "Acknowledge and approve",
                             lambda reason: self._submit(services, replace(
                                 req, acknowledge_gate=True, reason=req.reason or reason), row))
        except TaintJustificationRequired as refusal:
            self._ask_reason("Approve a rule from a tainted source",
                             f"{review_actions.first_upper(str(refusal))}.\nWhy is this rule safe to carry?",
                             "Approve", lambda reason: self._submit(services, replace(req, reason=reason), row))
        except BrokenNotOpened as refusal:
            self._refused_for = (row.result_id, req.reviewer)
            self._refuse_approval(refusal)
        except (ApprovalRefused, ReasonRequired, PromotionError, ValueError) as refusal:
            self.evidence.show_message(review_actions.first_upper(str(refusal)))
            self.status_message.emit(str(refusal))
        else:
            self._refused_for = None
            self._after_decision(req.action, row)

    def _ask_reason(self, title: str, prompt: str, ok_text: str, then: Callable[[str], None]) -> None:
        dialog = ReasonDialog(title, prompt, self._parent, ok_text=ok_text)
        dialog.reason_given.connect(then)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        self.reason_dialog = dialog
        dialog.open()
        dialog.edit.setFocus()

    def _refuse_approval(self, refusal: Exception) -> None:
        # first_upper, not str.capitalize(): trajectory ids in the message keep their case.
        self.evidence.show_message(review_actions.first_upper(str(refusal))
                                   + ". Open each broken row (2, then ]) or waive it (W).")
        self.status_message.emit(str(refusal))

    def _update_refusal(self, services: StoreServices) -> None:
        """Keep an approval-refused banner true as broken rows are opened or waived."""
        if self._refused_for is None or self.rule is None or self._refused_for[0] != self.rule.result_id:
            return
        left = services.reviews.unreviewed_broken(self._refused_for[1], self._refused_for[0])
        if left:
            self.evidence.show_message(
                f"Approval refused: {len(left)} broken trajector{'y' if len(left) == 1 else 'ies'} not yet opened "
                f"or waived ({', '.join(left[:5])}{', …' if len(left) > 5 else ''}). "
                "Open each broken row (2, then ]) or waive it (W).")
        else:
            self._refused_for = None
            self.evidence.show_message("Every broken row is now opened or waived: press A to approve.")

    def _after_decision(self, action: str, row: WorkspaceRule) -> None:
        self.evidence.clear_message()
        words = {"approve": "Approved", "reject": "Rejected", "defer": "Deferred"}
        self.status_message.emit(f"{words[action]} rule {row.origin} (saved)")
        self.rules.refresh(advance_from=row.rule_id)
        self.decided.emit(action, row.rule_id)

    def undo(self) -> None:
        services = self._services()
        reviewer = self.identity.name
        if services is None or not reviewer:
            return
        undone = review_actions.undo(services.store, reviewer)
        if undone is None:
            self.status_message.emit("Nothing to undo")
            return
        self.rules.refresh()
        self.rules.select_rule(undone.rule_id)
        self.status_message.emit(f"Undid {undone.action} of rule {undone.rule_id} (recorded in the audit log)")

    # -- marks and waivers -------------------------------------------------------------
    def mark_row(self, mark: str) -> None:
        services = self._services()
        outcome = self.evidence.current_outcome()
        if services is None or self.rule is None or outcome is None:
            self.status_message.emit("Select an evidence row to mark")
            return
        reviewer = self._reviewer()
        if not reviewer:
            return
        services.reviews.mark(reviewer, self.rule.result_id, outcome.trajectory_pk, outcome.bucket, mark)
        self._refresh_flags()
        self.status_message.emit(f"Marked {outcome.trajectory_id}: {MARK_TEXT[mark]}")
        self.evidence.move_row(1)

    def mark_verdict(self, mark: str) -> None:
        services = self._services()
        if services is None or self.rule is None:
            return
        reviewer = self._reviewer()
        if not reviewer:
            return
        services.reviews.mark(reviewer, self.rule.result_id, None, self.rule.verdict, mark)
        self.rules.refresh()
        self.status_message.emit(f"Marked the verdict ({self.rule.verdict if self.rule else ''}): {MARK_TEXT[mark]}")

    def waive(self) -> None:
        services = self._services()
        outcome = self.evidence.current_outcome()
        if services is None or self.rule is None or outcome is None or outcome.bucket != "broken":
            self.status_message.emit("Select a broken row to waive")
            return
        reviewer = self._reviewer()
        if not reviewer:
            return
        result_id = self.rule.result_id
        dialog = ReasonDialog("Waive broken trajectory",
                              f"Why may {outcome.trajectory_id} be approved without opening it?", self._parent,
                              ok_text="Waive")

        def record(reason: str) -> None:
            self.reason_dialog = None
            services.reviews.waive(reviewer, result_id, outcome.trajectory_pk, reason)
            self._refresh_flags()
            self._update_refusal(services)
            self.status_message.emit(f"Waived {outcome.trajectory_id}")

        dialog.reason_given.connect(record)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        self.reason_dialog = dialog
        dialog.open()
        dialog.edit.setFocus()

    def show_audit(self) -> None:
        services = self._services()
        if services is None or self.rule is None:
            return
        events = services.reviews.rule_audit(self.rule.rule_id)
        dialog = AuditDialog(f"{self.rule.origin}\nWhen: {self.rule.trigger}", events, self._parent)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        self.audit_dialog = dialog
        dialog.open()
