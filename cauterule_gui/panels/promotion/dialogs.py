"""What the promotion actions ask the reviewer: the approval, waiver and supersession dialogs."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.decisions.split import same_sentence
from core.promotion import QueueItem

from cauterule_gui.models import promotion_queue_model as qm
from cauterule_gui.models.promotion_queue_model import StandingText
from cauterule_gui.panels.reason_dialog import ReasonDialog
from cauterule_gui.plain_text import plain_label


# -- what the reviewer is asked --------------------------------------------------------
@dataclass(frozen=True)
class ApprovalInput:
    reason: str
    against_verdict: bool = False
    acknowledge_gate: bool = False
    acknowledge_no_task: bool = False


class ApproveDialog(QDialog):
    def __init__(self, item: QueueItem, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        prompt = plain_label(f"{title} {qm.rule_label(item)} on run #{item.run_id} "
                             f"({qm.verdict_text(item)}).\nwhen: {item.trigger}\ndo: {item.directive}", self)
        prompt.setWordWrap(True)
        self.edit = QLineEdit(self)
        self.edit.setAccessibleName("Approval reason")
        self.edit.setPlaceholderText("why this rule should stand (required)")
        self.against = QCheckBox("Approve against the replay verdict (the reason is the justification)", self)
        self.against.setVisible(item.verdict != "pass")
        agreement = item.gate("agreement")
        # Shown when the blind agreement gate failed; the core refuses the approval unless it is ticked.
        self.acknowledge = QCheckBox(f"I acknowledge: {agreement.detail}", self)
        self.acknowledge.setVisible(agreement.state == "fail")
        # A one-sentence rule (an expected_rule copy) fires at injection on no task: the core refuses
        # it unsplit unless this is ticked (the split itself is edited in the Review tab's what-if).
        self.acknowledge_no_task = QCheckBox(
            "I acknowledge: trigger and directive are one sentence, so it fires at injection on no task "
            "(to split it instead, approve it in the Review tab)", self)
        self.acknowledge_no_task.setVisible(same_sentence(item.trigger, item.directive))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText(title)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.edit.textChanged.connect(lambda t: self.ok.setEnabled(bool(t.strip())))
        self.ok.setEnabled(False)
        layout = QVBoxLayout(self)
        for widget in (prompt, self.edit, self.against, self.acknowledge, self.acknowledge_no_task, buttons):
            layout.addWidget(widget)
        self.resize(560, self.sizeHint().height())

    def value(self) -> ApprovalInput:
        return ApprovalInput(self.edit.text().strip(), not self.against.isHidden() and self.against.isChecked(),
                             not self.acknowledge.isHidden() and self.acknowledge.isChecked(),
                             not self.acknowledge_no_task.isHidden() and self.acknowledge_no_task.isChecked())


class WaiverDialog(QDialog):
    """A written reason for each broken trajectory; OK only when every one has a reason."""

    def __init__(self, item: QueueItem, trajectory_ids: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Waive broken evidence")
        intro = plain_label(f"{qm.rule_label(item)} broke {len(trajectory_ids)} successful "
                            "trajector" + ("y" if len(trajectory_ids) == 1 else "ies") + " you have not opened. "
                            "Give a reason for waiving each one; every waiver is recorded in the audit log.", self)
        intro.setWordWrap(True)
        form = QFormLayout()
        self.edits: dict[str, QLineEdit] = {}
        for tid in trajectory_ids:
            edit = QLineEdit(self)
            edit.setAccessibleName(f"Reason for waiving {tid}")
            edit.setPlaceholderText("reason (required)")
            edit.textChanged.connect(self._update)
            form.addRow(plain_label(tid, self), edit)
            self.edits[tid] = edit
        self.same = QPushButton("Use the first reason for all", self)
        self.same.clicked.connect(self._copy_first)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Waive and approve")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.same, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(buttons)
        self.resize(620, self.sizeHint().height())
        self._update()

    def _copy_first(self) -> None:
        first = next(iter(self.edits.values())).text()
        for edit in self.edits.values():
            if not edit.text().strip():
                edit.setText(first)

    def _update(self) -> None:
        self.ok.setEnabled(all(e.text().strip() for e in self.edits.values()))

    def value(self) -> dict[str, str]:
        return {tid: edit.text().strip() for tid, edit in self.edits.items()}


class SupersedeDialog(QDialog):
    def __init__(self, item: QueueItem, choices: list[StandingText], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Supersede {item.standing_id}")
        self.combo = QComboBox(self)  # combo items are always plain text
        self.combo.setAccessibleName("Successor rule")
        for other in choices:
            self.combo.addItem(f"{other.standing_id} — when {' '.join(other.trigger.split())[:90]}", other.standing_id)
        self.edit = QLineEdit(self)
        self.edit.setAccessibleName("Supersession reason")
        self.edit.setPlaceholderText("why the successor replaces it (required)")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Supersede")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.edit.textChanged.connect(lambda t: self.ok.setEnabled(bool(t.strip()) and self.combo.count() > 0))
        self.ok.setEnabled(False)
        form = QFormLayout(self)
        form.addRow(plain_label(f"{item.standing_id} is replaced by:", self), self.combo)
        form.addRow(plain_label("Reason:", self), self.edit)
        form.addRow(buttons)
        self.resize(640, self.sizeHint().height())

    def value(self) -> tuple[str, str]:
        return str(self.combo.currentData()), self.edit.text().strip()


class PromotionPrompts:
    """Modal questions for the promotion actions; each returns None when the reviewer cancels."""

    def approval(self, parent: QWidget, item: QueueItem, title: str) -> ApprovalInput | None:
        dialog = ApproveDialog(item, title, parent)
        return dialog.value() if dialog.exec() == QDialog.DialogCode.Accepted else None

    def reason(self, parent: QWidget, title: str, prompt: str) -> str | None:
        dialog = ReasonDialog(title, prompt, parent, ok_text=title)
        return dialog.edit.text().strip() if dialog.exec() == QDialog.DialogCode.Accepted else None

    def waivers(self, parent: QWidget, item: QueueItem, trajectory_ids: list[str]) -> dict[str, str] | None:
        dialog = WaiverDialog(item, trajectory_ids, parent)
        return dialog.value() if dialog.exec() == QDialog.DialogCode.Accepted else None

    def successor(self, parent: QWidget, item: QueueItem, choices: list[StandingText]) -> tuple[str, str] | None:
        dialog = SupersedeDialog(item, choices, parent)
        return dialog.value() if dialog.exec() == QDialog.DialogCode.Accepted else None
