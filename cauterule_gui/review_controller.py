"""The review workspace's behaviour: what a selected rule shows, and what the keys do.

Decisions go through ``review_actions`` and are written synchronously on the GUI thread:
each is one short transaction (milliseconds; WAL lets it proceed beside a running replay,
and the busy timeout covers the instant a replay chunk is being saved), so a rule shown as
decided is already on disk and the next key can advance without waiting for a job.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from core.store.replay_repo import StoredOutcome
from core.store.review_repo import ApprovalRefused, ReasonRequired
from core.store.workspace_repo import WorkspaceRule

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
            reviewer = self._reviewer()
            if reviewer:
                services.workspace.record_view(reviewer, self.rule.result_id, outcome.trajectory_pk)
                self._refresh_flags()

    def _reviewer(self) -> str | None:
        return self.identity.require(self._parent) if self.interactive else self.identity.name

    # -- decisions ---------------------------------------------------------------------
    def _target(self) -> tuple[StoreServices, review_actions.DecisionTarget, str] | None:
        services = self._services()
        if services is None or self.rule is None:
            self.status_message.emit("Select a rule first")
            return None
        reviewer = self._reviewer()
        if not reviewer:
            self.status_message.emit("A reviewer name is needed to record decisions")
            return None
        return services, review_actions.DecisionTarget.from_row(self.rule), reviewer

    def approve(self) -> None:
        found = self._target()
        if found is None:
            return
        services, target, reviewer = found
        unopened = services.reviews.unreviewed_broken(reviewer, target.result_id)
        if unopened:
            self._refuse_approval(ApprovalRefused(
                f"approval refused: {len(unopened)} broken trajector{'y' if len(unopened) == 1 else 'ies'} "
                f"not yet opened or waived ({', '.join(unopened[:5])})"
            ))
            return
        if target.evidence.get("verdict") != "pass":
            # Approving against replay's verdict is allowed, but only with a written reason.
            verdict = target.evidence.get("verdict")
            dialog = ReasonDialog(
                "Approve against replay's verdict",
                f"Replay's verdict is {verdict} ({target.evidence.get('reason')}). Why approve anyway?\n"
                f"{self.rule.trigger if self.rule else ''}",
                self._parent, ok_text="Approve",
            )
            dialog.reason_given.connect(lambda reason: self._approve_with(services, target, reviewer, reason))
            dialog.finished.connect(lambda _r: dialog.deleteLater())
            self.reason_dialog = dialog
            dialog.open()
            dialog.edit.setFocus()
            return
        self._approve_with(services, target, reviewer, None)

    def _approve_with(self, services: StoreServices, target: review_actions.DecisionTarget, reviewer: str,
                      reason: str | None) -> None:
        self.reason_dialog = None
        try:
            review_actions.approve(services.reviews, target, reviewer, reason)
        except (ApprovalRefused, ValueError) as refusal:
            self._refuse_approval(refusal)
            return
        self._after_decision("approve", target.rule_id)

    def _refuse_approval(self, refusal: Exception) -> None:
        self.evidence.show_message(str(refusal).capitalize() + ". Open each broken row (2, then ]) or waive it (W).")
        self.status_message.emit(str(refusal))

    def reject(self) -> None:
        found = self._target()
        if found is None:
            return
        services, target, reviewer = found
        dialog = ReasonDialog("Reject rule", f"Why reject this rule?\n{self.rule.trigger if self.rule else ''}",
                              self._parent, ok_text="Reject")
        dialog.reason_given.connect(lambda reason: self._reject_with(services, target, reviewer, reason))
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        self.reason_dialog = dialog
        dialog.open()
        dialog.edit.setFocus()

    def _reject_with(self, services: StoreServices, target: review_actions.DecisionTarget, reviewer: str,
                     reason: str) -> None:
        self.reason_dialog = None
        try:
            review_actions.reject(services.reviews, target, reviewer, reason)
        except ReasonRequired as error:
            self.evidence.show_message(str(error))
            return
        self._after_decision("reject", target.rule_id)

    def defer(self) -> None:
        found = self._target()
        if found is None:
            return
        services, target, reviewer = found
        review_actions.defer(services.reviews, target, reviewer)
        self._after_decision("defer", target.rule_id)

    def _after_decision(self, action: str, rule_id: int) -> None:
        self.evidence.clear_message()
        words = {"approve": "Approved", "reject": "Rejected", "defer": "Deferred"}
        self.status_message.emit(f"{words[action]} rule {self.rule.origin if self.rule else rule_id} (saved)")
        self.rules.refresh(advance_from=rule_id)
        self.decided.emit(action, rule_id)

    def undo(self) -> None:
        services = self._services()
        reviewer = self.identity.name
        if services is None or not reviewer:
            return
        undone = review_actions.undo_last(services.reviews, reviewer)
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
