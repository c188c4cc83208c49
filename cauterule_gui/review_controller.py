"""The review workspace's behaviour: what a selected rule shows, and what the keys do.

Nothing here touches the store on the GUI thread: evidence, trajectories, flags and the audit
log are read with ``db.query``; decisions (``core.decisions.decide``), undo, "evidence opened"
marks, agreement marks and waivers are written with ``db.op`` on the database thread, and the
screen moves on when the write has committed (``changes_applied`` tells the other tabs). A
decision key pressed while the previous decision is still being written is refused with a
status message, so one key press is never applied to the wrong rule.

Every decision names the rule's row version the reviewer saw (or the one their own last write
left, ``review_conflicts.VersionBook``); when another reviewer changed the rule in between, the
conflict dialog asks whether to keep theirs, take the other's, or cancel (``review_conflicts``).
Marks, waivers and the audit log are ``review_marks.ReviewMarks``; what a refused decision
asks next (a reason, a split, a conflict) is ``review_refusals.ReviewRefusals``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from core.decisions import (
    DecisionRequest,
    decide,
    undo_last,
)
from core.store.evidence_pages import unopened_broken
from core.store.replay_repo import StoredOutcome
from core.store.row_versions import version_after_own_undo
from core.store.workspace_query import WorkspaceRule

from cauterule_gui.blind_guard import blind_refusal
from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.jobs.runner import JobHandle
from cauterule_gui.models import agreement_data
from cauterule_gui.panels.audit_dialog import AuditDialog
from cauterule_gui.panels.evidence_panel import EvidencePanel
from cauterule_gui.panels.reason_dialog import ReasonDialog
from cauterule_gui.panels.rule_table_panel import RuleTablePanel
from cauterule_gui.panels.trajectory_viewer import TrajectoryViewerPanel
from cauterule_gui.review_actions import request
from cauterule_gui.review_conflicts import ConflictDialog, versions_for
from cauterule_gui.review_marks import ReviewMarks
from cauterule_gui.review_reads import breakdown_text
from cauterule_gui.review_refusals import ReviewRefusals
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices


class ReviewController(ReviewRefusals, ReviewMarks, QObject):
    status_message = Signal(str)
    decided = Signal(str, int)  # action, rule id (after it is committed)
    split_requested = Signal(object, object)  # rule row, SplitProposal: the what-if opens on the split

    def __init__(self, db: DatabaseExecutor, identity: ReviewerIdentity,
                 rules: RuleTablePanel, evidence: EvidencePanel, viewer: TrajectoryViewerPanel,
                 dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self.db = db
        self.identity = identity
        self.rules = rules
        self.evidence = evidence
        self.viewer = viewer
        self._parent = dialog_parent
        self.rule: WorkspaceRule | None = None
        self._revealed: set[str] = set()  # rule origins whose evidence the reviewer chose to see mid-session
        self.blind: Any = None  # the window's BlindGuard (blind_guard.py), when installed
        self.reason_dialog: ReasonDialog | None = None
        self.audit_dialog: AuditDialog | None = None
        self.conflict_dialog: ConflictDialog | None = None
        self.split_box: Any = None  # the split offer of a one-sentence rule (kept alive while open)
        self.interactive = True  # False for --screenshot: never ask for a name
        self._held = False
        self._pending: tuple[WorkspaceRule | None] | None = None
        self._refused_for: tuple[int, str] | None = None  # (result id, reviewer) of a refused approval
        self.deciding = False  # a decision is being written
        self._shown_trajectory: int | None = None
        self._restore: tuple[int, str, int] | None = None  # (rule id, bucket, trajectory pk) to reopen
        # The board being read: (result id, reviewer, services) and its job, so a rule re-selected
        # while its board is on the way does not read it again.
        self._board_reading: tuple[tuple[int, str, object], JobHandle] | None = None
        rules.rule_selected.connect(self.show_rule)
        evidence.evidence_opened.connect(self.open_evidence)

    @property
    def revealed(self) -> set[str]:
        return self.blind.revealed if self.blind is not None else self._revealed

    # -- what is shown -----------------------------------------------------------------
    def hold(self) -> None:
        """Defer evidence loading until ``release``: lets a table refresh and the evidence
        reload run in separate event-loop turns during a replay."""
        self._held = True

    def release(self) -> None:
        self._held = False
        pending, self._pending = self._pending, None
        if pending is not None:
            self.show_rule(pending[0])

    def restore_row(self, rule_id: int, bucket: str, pk: int) -> None:
        """Reopen this evidence row when the rule's board has been read (resume at start)."""
        if self.rule is not None and self.rule.rule_id == rule_id and self.evidence.result is not None:
            self.evidence.restore_row(bucket, pk)
        else:
            self._restore = (rule_id, bucket, pk)

    def _showing(self, result_id: int) -> bool:
        return self.rule is not None and self.rule.result_id == result_id

    def show_rule(self, rule: WorkspaceRule | None) -> None:
        if self._held:
            self._pending = (rule,)
            return
        previous = self.rule
        self.rule = rule
        if rule is None or self.db.services() is None:
            self.evidence.hide_reveal()
            self.evidence.answers_hidden = False
            self.evidence.show_rule(None, None)
            self.viewer.show_trajectory(None)
            return
        result_id, reviewer = rule.result_id, self.identity.name
        if previous is not None and previous.result_id == result_id and self.evidence.result is not None:
            # Same evidence (a refresh, or the status changed): update the header, keep the rows.
            self.evidence.rule = rule
            self._refresh_flags()
            return
        services = self.db.services()
        reading = self._board_reading
        if reading is not None and reading[1].running and reading[0][:2] == (result_id, reviewer) \
                and reading[0][2] is services:
            return  # this board is already on its way (the rule was re-selected meanwhile): shown() uses self.rule
        self.evidence.clear_message()

        origin = rule.origin

        def shown(answer: tuple[Any, str | None]) -> None:
            bundle, blind_session = answer
            current = self.rule
            if current is not None and current.result_id == result_id and self.identity.name == reviewer:
                if blind_session is not None and origin not in self.revealed:
                    self._hide_for_blind_session(current, blind_session)
                    return
                self.evidence.hide_reveal()
                self.evidence.answers_hidden = False
                self.evidence.show_rule(current, bundle)  # each bucket's size and first page
                self._update_refusal()  # a refusal that came back before the board keeps its banner
                restore, self._restore = self._restore, None
                if restore is not None and restore[0] == current.rule_id:
                    self.evidence.restore_row(restore[1], restore[2])

        def read(s: Any) -> tuple[Any, str | None]:
            blind_session = agreement_data.unfinished_blind_session(s.store, reviewer, origin)
            return (None if blind_session is not None and origin not in self.revealed
                    else s.results.evidence_bundle(result_id, reviewer)), blind_session

        handle = self.db.query(read, shown, name="evidence", key=f"evidence:{id(self)}")
        self._board_reading = None if handle is None else ((result_id, reviewer, services), handle)

    def _hide_for_blind_session(self, rule: WorkspaceRule, session: str) -> None:
        """Blind means blind: while the reviewer's session holding this rule is unfinished, its
        buckets (replay's answers) stay hidden, with why and how to show them anyway."""
        self.evidence.answers_hidden = True
        self.evidence.show_rule(rule, None)
        self.evidence.show_message(
            f"Evidence hidden: this rule is in your unfinished blind agreement session {session}; its "
            "buckets are replay's answers. Finish the session first, or show them anyway.", warning=False)
        self.evidence.offer_reveal(lambda: self.reveal_evidence(rule.origin))

    def reveal_evidence(self, origin: str) -> None:
        """The reviewer chose to see a session rule's evidence before finishing the session:
        through the window's ``BlindGuard`` (recorded, the rules table follows), else here only."""
        if self.blind is not None:
            self.blind.reveal(origin)  # its ``changed`` shows the board again (blind_changed)
            return
        self.revealed.add(origin)
        self._show_again()

    def blind_changed(self) -> None:
        """Which rules are hidden changed (a reveal, a session made or finished): when that
        changes the shown rule's state, read its board again (hidden or shown as it now is)."""
        rule = self.rule
        if rule is not None and self.blind is not None and self.blind.hides(rule.origin) != self.evidence.answers_hidden:
            self._show_again()

    def _show_again(self) -> None:
        rule, self.rule = self.rule, None
        self.evidence.clear_message()
        self.show_rule(rule)

    def _refresh_flags(self) -> None:
        reviewer = self.identity.name
        if self.rule is None:
            return
        if not reviewer:
            self.evidence.update_flags(set(), {}, {})
            return
        result_id = self.rule.result_id

        def flags(s: StoreServices) -> tuple[Any, Any, Any, int]:
            return (s.reviews.viewed(reviewer, result_id), s.reviews.waivers(reviewer, result_id),
                    s.reviews.evidence_marks(reviewer, result_id), unopened_broken(s.store, result_id, reviewer))

        def shown(found: tuple[Any, Any, Any, int]) -> None:
            if self._showing(result_id):
                self.evidence.update_flags(*found)

        self.db.query(flags, shown, name="evidence flags", key=f"flags:{id(self)}")

    def open_evidence(self, outcome: StoredOutcome | None, deliberate: bool) -> None:
        if outcome is None or self.db.services() is None:
            self._shown_trajectory = None
            self.viewer.show_trajectory(None)
            return
        pk = outcome.trajectory_pk
        self._shown_trajectory = pk

        def shown(found: tuple[Any, Any]) -> None:
            if self._shown_trajectory == pk:
                self.viewer.show_trajectory(found[0], found[1], breakdown_text(outcome))

        # The highlight spans are computed from the store on first use: there, not here.
        self.db.query(lambda s: (s.corpora.get_trajectory(pk), outcome.spans), shown, name="evidence trajectory",
                      key=f"trajectory:{id(self)}")
        if deliberate and self.rule is not None:
            # Take the result id BEFORE asking the name: the name prompt runs an event loop in
            # which the rules table may refresh and reset self.rule (issue 12, defect 1).
            result_id, rule_id = self.rule.result_id, self.rule.rule_id
            asked = not self.identity.name
            reviewer = self._reviewer()
            if reviewer:
                self.db.op(lambda s: s.reviews.record_view(reviewer, result_id, pk),
                           lambda _r: self._after_view(outcome, rule_id, asked), kinds={"marks"}, initiator=self,
                           name="evidence opened")

    def _after_view(self, outcome: StoredOutcome, rule_id: int, asked: bool) -> None:
        if asked and (self.rule is None or self.rule.rule_id != rule_id):
            # Setting the name refreshed the rules table: bring the reviewer back to the rule
            # and the trajectory they opened (the evidence reloads, then the row is chosen).
            self.rules.select_rule(rule_id)
            self.evidence.set_bucket(outcome.bucket)
            row = self.evidence.model.row_of(outcome.trajectory_pk)
            if row is not None:
                self.evidence.view.setCurrentIndex(self.evidence.model.index(row, 0))
        self._refresh_flags()
        self._update_refusal()

    def _reviewer(self) -> str | None:
        return self.identity.require(self._parent) if self.interactive else self.identity.name

    # -- decisions ---------------------------------------------------------------------
    # The controller decides nothing: it sends the request to core.decisions, and when a
    # refusal says what is missing (a reason, an override, an acknowledgement) it asks the
    # reviewer and sends the request again.
    def _target(self) -> tuple[WorkspaceRule, str] | None:
        if self.db.services() is None or self.rule is None:
            self.status_message.emit("Select a rule first")
            return None
        if self.deciding:
            self.status_message.emit("Still saving the last decision; press the key again in a moment")
            return None
        row = self.rule
        if self.blind is not None and self.blind.hides(row.origin):
            self.status_message.emit(blind_refusal(1))  # a refusal would name replay's verdict
            return None
        reviewer = self._reviewer()
        if not reviewer:
            self.status_message.emit("A reviewer name is needed to record decisions")
            return None
        return row, reviewer

    def _request(self, row: WorkspaceRule, action: str, reviewer: str, reason: str | None = None) -> DecisionRequest:
        """The request names the version the reviewer saw, or the newer one their own write left."""
        services = self.db.services()
        seen = row.row_version if services is None else versions_for(services.store).expected(
            "rule", row.rule_id, row.row_version)
        return request(row, action, reviewer, reason, expected_version=seen)

    def approve(self) -> None:
        found = self._target()
        if found is not None:
            self._submit(self._request(found[0], "approve", found[1]), found[0])

    def reject(self) -> None:
        found = self._target()
        if found is not None:
            row, reviewer = found
            self._ask_reason("Reject rule", f"Why reject this rule?\n{row.trigger}", "Reject",
                             lambda reason: self._submit(self._request(row, "reject", reviewer, reason), row))

    def defer(self) -> None:
        found = self._target()
        if found is not None:
            self._submit(self._request(found[0], "defer", found[1]), found[0])

    def _submit(self, req: DecisionRequest, row: WorkspaceRule) -> None:
        self.reason_dialog = None
        self.deciding = True
        handle = self.db.op(lambda s: decide(s.store, req), lambda outcome: self._decided(req, row, outcome),
                            kinds={"decisions"}, initiator=self, name=f"{req.action} rule {row.rule_id}",
                            on_error=lambda error: self._refused(error, req, row))
        if handle is None:
            self.deciding = False
        else:
            handle.finished.connect(self._decision_finished)

    def _decision_finished(self) -> None:
        self.deciding = False

    def _decided(self, req: DecisionRequest, row: WorkspaceRule, outcome: Any) -> None:
        self.deciding = False
        self._refused_for = None
        services = self.db.services()
        if services is not None:  # the reviewer's next decision on this rule names this version
            versions_for(services.store).note("rule", row.rule_id, outcome.row_version)
        self._after_decision(req.action, row)

    def _after_decision(self, action: str, row: WorkspaceRule) -> None:
        self.evidence.clear_message()
        words = {"approve": "Approved", "reject": "Rejected", "defer": "Deferred"}
        self.status_message.emit(f"{words[action]} rule {row.origin} (saved)")
        self.rules.refresh(advance_from=row.rule_id)
        self.decided.emit(action, row.rule_id)

    def undo(self) -> None:
        reviewer = self.identity.name
        if self.db.services() is None or not reviewer:
            return

        def work(s: StoreServices) -> tuple[Any, int | None]:
            decision = undo_last(s.store, reviewer)
            return decision, None if decision is None else version_after_own_undo(s.store, decision.rule_id, reviewer)

        def undone(found: tuple[Any, int | None]) -> None:
            decision, version = found
            if decision is None:
                self.status_message.emit("Nothing to undo")
                return
            services = self.db.services()
            if services is not None:  # a decision right after the undo is no conflict with oneself
                versions_for(services.store).note("rule", decision.rule_id, version)
            self.rules.refresh(select=decision.rule_id)
            self.status_message.emit(
                f"Undid {decision.action} of rule {decision.rule_id} (recorded in the audit log)")

        self.db.op(work, undone, kinds={"decisions"}, initiator=self, name="undo decision")
