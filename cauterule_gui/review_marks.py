"""The review workspace's marks, waivers and audit log (a mixin of ``ReviewController``).

Marks and waivers are written with ``db.op`` on the database thread (a waiver through
``core.decisions.waive``, which checks its reason); the audit log is read with
``db.query``. Nothing here decides: decisions are ``ReviewController``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QWidget

from core.decisions import waive
from core.store.workspace_query import WorkspaceRule

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.models.formatting import MARK_TEXT
from cauterule_gui.panels.audit_dialog import AuditDialog
from cauterule_gui.panels.evidence_panel import EvidencePanel
from cauterule_gui.panels.reason_dialog import ReasonDialog
from cauterule_gui.panels.rule_table_panel import RuleTablePanel


class ReviewMarks:
    db: DatabaseExecutor
    rule: WorkspaceRule | None
    rules: RuleTablePanel
    evidence: EvidencePanel
    reason_dialog: ReasonDialog | None
    audit_dialog: AuditDialog | None
    _parent: QWidget
    status_message: SignalInstance
    # Provided by the classes this one is mixed with (ReviewController, ReviewRefusals).
    _reviewer: Callable[[], str | None]
    _refresh_flags: Callable[[], None]
    _update_refusal: Callable[[], None]

    # -- marks and waivers -------------------------------------------------------------
    def mark_row(self, mark: str) -> None:
        outcome = self.evidence.current_outcome()
        if self.db.services() is None or self.rule is None or outcome is None:
            self.status_message.emit("Select an evidence row to mark")
            return
        reviewer = self._reviewer()
        if not reviewer:
            return
        result_id, pk, bucket = self.rule.result_id, outcome.trajectory_pk, outcome.bucket

        def marked(_r: object) -> None:
            self._refresh_flags()
            self.status_message.emit(f"Marked {outcome.trajectory_id}: {MARK_TEXT[mark]}")

        self.db.op(lambda s: s.reviews.mark(reviewer, result_id, pk, bucket, mark), marked, kinds={"marks"}, initiator=self,
                   name="mark evidence row")
        self.evidence.move_row(1)

    def mark_verdict(self, mark: str) -> None:
        if self.db.services() is None or self.rule is None:
            return
        if self.evidence.answers_hidden:  # the mark (and its message) would name the hidden verdict
            self.status_message.emit("Not marked: replay's verdict on this rule is hidden while it is in your "
                                     "unfinished blind agreement session")
            return
        reviewer = self._reviewer()
        if not reviewer or self.rule is None:
            return
        result_id, verdict = self.rule.result_id, self.rule.verdict

        def marked(_r: object) -> None:
            self.rules.refresh()
            self.status_message.emit(f"Marked the verdict ({verdict}): {MARK_TEXT[mark]}")

        self.db.op(lambda s: s.reviews.mark(reviewer, result_id, None, verdict, mark), marked, kinds={"marks"}, initiator=self,
                   name="mark verdict")

    def waive(self) -> None:
        outcome = self.evidence.current_outcome()
        if self.db.services() is None or self.rule is None or outcome is None or outcome.bucket != "broken":
            self.status_message.emit("Select a broken row to waive")
            return
        reviewer = self._reviewer()
        if not reviewer:
            return
        result_id = self.rule.result_id
        dialog = ReasonDialog("Waive broken trajectory",
                              f"Why may {outcome.trajectory_id} be approved without opening it?", self._parent,
                              ok_text="Waive")

        def waived(_r: object) -> None:
            self._refresh_flags()
            self._update_refusal()
            self.status_message.emit(f"Waived {outcome.trajectory_id}")

        def record(reason: str) -> None:
            self.reason_dialog = None
            self.db.op(lambda s: waive(s.store, reviewer, result_id, outcome.trajectory_pk, reason), waived,
                       kinds={"marks"}, initiator=self, name="waive broken row")

        dialog.reason_given.connect(record)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        self.reason_dialog = dialog
        dialog.open()
        dialog.edit.setFocus()

    def show_audit(self) -> None:
        if self.db.services() is None or self.rule is None:
            return
        rule = self.rule

        def shown(events: Any) -> None:
            dialog = AuditDialog(f"{rule.origin}\nWhen: {rule.trigger}", events, self._parent)
            dialog.finished.connect(lambda _r: dialog.deleteLater())
            self.audit_dialog = dialog
            dialog.open()

        self.db.query(lambda s: s.reviews.rule_audit(rule.rule_id), shown, name="audit log")
