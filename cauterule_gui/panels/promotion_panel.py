"""The promotion screen: the queue with its gates, one candidate's gates in full, and the
actions that change what an agent does — approve, reject, defer, re-approve, retire, supersede.

Every store call is a DB job on the ``JobRunner`` (the GUI thread never waits on SQLite);
the queue is rebuilt after each action. Lexical similarity is the default; the "semantic"
box computes the queue on the CPU pool with the embedding model (loaded once, in memory
only: nothing is written to the store from that pool). Refusals from the core are shown as
they are, in the message line above the detail pane; a refused approval because of unopened
broken evidence offers "Waive broken…" (a reason per trajectory), then approves.

What the reviewer types is asked through ``PromotionPrompts`` (modal dialogs); tests swap it.
Every text from a rule or trajectory is inserted as plain text.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, Qt, Signal
from PySide6.QtGui import QFont, QKeyEvent, QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from core.decisions import BrokenNotOpened, DecisionRequest, decide
from core.promotion import QueueItem
from core.promotion.similarity import Similarity, from_embedder
from core.store.promotion_repo import PromotionError
from core.store.review_repo import ApprovalRefused, ReasonRequired

from cauterule_gui import theme
from cauterule_gui.jobs.runner import JobFailure, JobHandle, JobPool, JobRunner
from cauterule_gui.models import promotion_queue_model as qm
from cauterule_gui.models.promotion_queue_model import PromotionQueueModel, QueueSnapshot, StandingText
from cauterule_gui.panels.reason_dialog import ReasonDialog
from cauterule_gui.plain_text import plain_label, plain_tooltip
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices

REFUSALS = (ApprovalRefused, ReasonRequired, PromotionError, ValueError)
_WIDTHS = {qm.COL_GROUP: 14, qm.COL_RULE: 30, qm.COL_TRIGGER: 34, qm.COL_VERDICT: 29, qm.COL_BROKEN: 21,
           qm.COL_AGREEMENT: 17, qm.COL_DUPLICATES: 24, qm.COL_CONFLICTS: 17, qm.COL_DECISION: 28, qm.COL_STALE: 20}


# -- what the reviewer is asked --------------------------------------------------------
@dataclass(frozen=True)
class ApprovalInput:
    reason: str
    against_verdict: bool = False
    acknowledge_gate: bool = False


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
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText(title)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.edit.textChanged.connect(lambda t: self.ok.setEnabled(bool(t.strip())))
        self.ok.setEnabled(False)
        layout = QVBoxLayout(self)
        for widget in (prompt, self.edit, self.against, self.acknowledge, buttons):
            layout.addWidget(widget)
        self.resize(560, self.sizeHint().height())

    def value(self) -> ApprovalInput:
        return ApprovalInput(self.edit.text().strip(), not self.against.isHidden() and self.against.isChecked(),
                             not self.acknowledge.isHidden() and self.acknowledge.isChecked())


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


# -- semantic similarity: the model is loaded once per process, kept in memory --------
_EMBEDDER: Any = None
_EMBEDDER_LOCK = threading.Lock()


def load_embedder() -> Callable[[Any], Any]:
    """An in-memory-cached embedder (raises ``EmbeddingUnavailable`` with the reason)."""
    global _EMBEDDER
    with _EMBEDDER_LOCK:
        if _EMBEDDER is None:
            from core.embeddings import CachedEmbedder, SentenceEmbedder

            model = SentenceEmbedder()
            model.load()
            _EMBEDDER = CachedEmbedder(model, None)  # no store cache: CPU jobs never write
        return _EMBEDDER  # type: ignore[no-any-return]


def _semantic(factory: Callable[[], Any]) -> Similarity:
    from core.embeddings import EmbeddingUnavailable

    try:
        return from_embedder(factory())
    except EmbeddingUnavailable as error:
        return from_embedder(None, str(error))


@dataclass
class _Pending:
    """An approval refused for unopened broken evidence, kept so the waiver flow can finish it."""

    rule_id: int
    approval: ApprovalInput


class PromotionPanel(QWidget):
    queue_refreshed = Signal()
    review_requested = Signal(int)  # rule id: show it in the Review tab (to open its broken evidence)
    promotion_changed = Signal(str)  # what was done, after it is committed
    status_message = Signal(str)

    def __init__(self, services: Callable[[], StoreServices | None], runner: JobRunner, identity: ReviewerIdentity,
                 parent: QWidget | None = None, prompts: PromotionPrompts | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("promotionPanel")
        self._services = services
        self.runner = runner
        self.identity = identity
        self.prompts = prompts or PromotionPrompts()
        self.embedder_factory: Callable[[], Any] = load_embedder
        self.model = PromotionQueueModel(self)
        self._queue_job: JobHandle | None = None
        self._action_job: JobHandle | None = None
        self._pending: _Pending | None = None
        self._want_rule: int | None = None

        self.summary = plain_label("", self)
        self.summary.setObjectName("promotionSummary")
        self.similarity_label = plain_label("", self)
        self.similarity_label.setObjectName("similarityMethod")
        self.semantic_box = QCheckBox("Semantic similarity", self)
        self.semantic_box.setObjectName("semanticSimilarity")
        self.semantic_box.setToolTip("Compare triggers and directives with the embedding model instead of word "
                                     "overlap (computed in the background; lexical when no model is available)")
        self.semantic_box.toggled.connect(lambda _on: self.refresh())
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.clicked.connect(self.refresh)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setObjectName("promotionFilter")
        self.filter_edit.setAccessibleName("Filter the promotion queue")
        self.filter_edit.setPlaceholderText("Filter rules (/)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._apply_filter)
        self.filter_edit.installEventFilter(self)

        self.view = QTableView(self)
        self.view.setObjectName("promotionQueue")
        self.view.setAccessibleName("Promotion queue")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setHighlightSections(False)
        char = self.view.fontMetrics().averageCharWidth()
        for column, chars in _WIDTHS.items():
            header.resizeSection(column, chars * char + 14)
        header.setSectionResizeMode(qm.COL_TRIGGER, QHeaderView.ResizeMode.Stretch)  # the text that matters most
        self.view.selectionModel().currentRowChanged.connect(lambda *_a: self._show_current())
        self.view.installEventFilter(self)  # J/K, A/R/D, / (see ``QUEUE_KEYS``)

        self.message = plain_label("", self)
        self.message.setObjectName("promotionMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setAutoFillBackground(True)
        self.message.hide()

        self.buttons: dict[str, QPushButton] = {}
        for key, text, slot, tip in (
            ("approve", "Approve…", self.approve_selected, "Make this rule a standing rule (reason required)"),
            ("waive", "Waive broken…", self.waive_selected, "Waive each unopened broken trajectory with a reason, "
                                                            "then approve"),
            ("reject", "Reject…", self.reject_selected, "Reject the candidate (reason required)"),
            ("defer", "Defer…", self.defer_selected, "Decide later (reason required)"),
            ("reapprove", "Re-approve…", self.reapprove_selected, "Approve again on the newest run's evidence"),
            ("retire", "Retire…", self.retire_selected, "Retire this standing rule (reason required)"),
            ("supersede", "Supersede…", self.supersede_selected, "Replace this standing rule by another active one"),
        ):
            button = QPushButton(text, self)
            button.setObjectName(f"promotion_{key}")
            button.setAccessibleName(text.rstrip("…"))
            button.setToolTip(tip)
            button.clicked.connect(slot)
            self.buttons[key] = button

        self.review_button = QPushButton("Show in Review tab", self)
        self.review_button.setObjectName("promotion_review")
        self.review_button.setToolTip("Open this rule's evidence board, e.g. to open its broken trajectories")
        self.review_button.clicked.connect(self._request_review)

        self.detail = QTextEdit(self)
        self.detail.setObjectName("promotionDetail")
        self.detail.setAccessibleName("Gates of the selected rule")
        self.detail.setReadOnly(True)
        self.detail.setAcceptRichText(False)

        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.filter_edit)
        top.addWidget(self.similarity_label)
        top.addWidget(self.semantic_box)
        top.addWidget(self.refresh_button)
        actions = QHBoxLayout()
        for key in ("approve", "waive", "reject", "defer"):
            actions.addWidget(self.buttons[key])
        actions.addSpacing(24)
        for key in ("reapprove", "retire", "supersede"):
            actions.addWidget(self.buttons[key])
        actions.addStretch(1)
        actions.addWidget(self.review_button)
        lower = QWidget(self)
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(actions)
        lower_layout.addWidget(self.message)
        lower_layout.addWidget(self.detail, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("promotionSplitter")
        self.splitter.addWidget(self.view)
        self.splitter.addWidget(lower)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([360, 440])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        identity.changed.connect(lambda _n: self.refresh())
        self._update_buttons()

    # -- queue -----------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return any(h is not None and h.running for h in (self._queue_job, self._action_job))

    def current_item(self) -> QueueItem | None:
        return self.model.item(self.view.currentIndex().row())

    def select_rule(self, rule_id: int) -> bool:
        row = self.model.row_for_rule(rule_id)
        if row < 0:
            self._want_rule = rule_id
            return False
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.view.selectionModel().setCurrentIndex(self.model.index(row, 0), flags)
        self.view.scrollTo(self.model.index(row, 0))
        return True

    def refresh(self) -> JobHandle | None:
        services = self._services()
        if services is None:
            self.model.set_snapshot(None)
            self._show_current()
            return None
        store, reviewer = services.store, self.identity.name
        current = self.current_item()
        if current is not None and self._want_rule is None:
            self._want_rule = current.rule_id
        if self.semantic_box.isChecked():
            factory = self.embedder_factory
            job: Callable[[Any], QueueSnapshot] = lambda _ctx: qm.load_snapshot(store, reviewer, _semantic(factory))
            pool, what = JobPool.CPU, "semantic"
        else:
            job, pool, what = (lambda _ctx: qm.load_snapshot(store, reviewer)), JobPool.DB, "lexical"
        self.similarity_label.setText(f"computing the queue ({what} similarity)…")
        handle = self.runner.submit(job, name="promotion queue", pool=pool, key=f"promotion-queue-{id(self)}")
        handle.result.connect(self._on_snapshot)
        handle.error.connect(lambda failure: self._show_failure(failure, "The promotion queue could not be built"))
        handle.finished.connect(self._update_buttons)
        self._queue_job = handle
        return handle

    def _on_snapshot(self, snapshot: QueueSnapshot) -> None:
        want = self._want_rule
        self._want_rule = None
        self.model.set_snapshot(snapshot)
        queue = snapshot.queue
        groups: dict[str, int] = {}
        for item in queue.items:
            label = qm.SUMMARY_GROUPS.get(item.priority, "?")
            if item.run_id is not None and item.decision is None and item.gate("agreement").state != "pass":
                label = "human approval required"
            groups[label] = groups.get(label, 0) + 1
        order = ["ready", "human approval required", *qm.SUMMARY_GROUPS.values()]
        text = " · ".join(f"{groups[g]} {g}" for g in dict.fromkeys(order) if g in groups) or "no rules"
        self.summary.setText(f"Promotion queue: {text}  (gates for reviewer {snapshot.reviewer or '— any'})")
        method = "semantic (embedding cosine)" if queue.similarity_method == "semantic" else "lexical (token F1)"
        self.similarity_label.setText(f"similarity: {method}")
        self.similarity_label.setToolTip(plain_tooltip(queue.similarity_note))
        if self.semantic_box.isChecked() and queue.similarity_method != "semantic":
            self.semantic_box.blockSignals(True)
            self.semantic_box.setChecked(False)
            self.semantic_box.blockSignals(False)
            self.set_message(f"Semantic similarity is not available; showing lexical. {queue.similarity_note or ''}",
                             "warn")
        if not (want is not None and self.select_rule(want)) and self.model.rowCount():
            self.select_rule(self.model.item(0).rule_id)  # type: ignore[union-attr]
        self._show_current()
        self.queue_refreshed.emit()

    # -- detail pane -----------------------------------------------------------------
    def _show_current(self) -> None:
        item = self.current_item()
        self.detail.clear()
        if item is None:
            self.detail.setPlainText("No rule selected. Replay rules to fill the promotion queue.")
        else:
            self._render(item)
        self._update_buttons()

    def _render(self, item: QueueItem) -> None:
        palette = self.detail.palette()
        plain = QTextCharFormat()
        title = QTextCharFormat()
        title.setFontWeight(QFont.Weight.Bold)
        title.setFontPointSize(QFont().pointSizeF() * 1.2)
        heading = QTextCharFormat()
        heading.setFontWeight(QFont.Weight.Bold)
        heading.setForeground(palette.color(QPalette.ColorRole.Text))
        alarm = QTextCharFormat(heading)
        bad = theme.swatch("fail", palette)
        if bad is not None:
            alarm.setForeground(bad.foreground)
            alarm.setBackground(bad.background)
        cursor = QTextCursor(self.detail.document())
        for number, (head, lines) in enumerate(qm.detail_sections(item, self.model.snapshot)):
            if number:
                cursor.insertBlock()
                cursor.insertBlock()
            fmt = title if number == 0 else alarm if head.startswith("⚠") else heading
            cursor.insertText(head, fmt)  # insertText never interprets markup
            for line in lines:
                cursor.insertBlock()
                cursor.insertText(line, plain)
        self.detail.moveCursor(QTextCursor.MoveOperation.Start)

    def set_message(self, text: str, kind: str = "info") -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))
        palette = self.palette()
        colours = theme.swatch({"error": "fail", "warn": "inconclusive", "ok": "pass"}.get(kind, "missed"), palette)
        if colours is not None:
            palette.setColor(QPalette.ColorRole.Window, colours.background)
            palette.setColor(QPalette.ColorRole.WindowText, colours.foreground)
        self.message.setPalette(palette)
        if text:
            self.status_message.emit(text)

    def _update_buttons(self) -> None:
        item = self.current_item()
        idle = not (self._action_job is not None and self._action_job.running)
        active = item is not None and item.promotion_status == "active"
        unreviewed = bool(item is not None and item.gate("broken_reviewed").data.get("unreviewed"))
        reapprove = active and item is not None and (qm.is_stale(item) or bool(item.notes)
                                                      or item.decision != "approve")
        enabled = {
            "approve": item is not None and not active,
            "waive": item is not None and not active and unreviewed,
            "reject": item is not None and not active,
            "defer": item is not None and not active,
            "reapprove": reapprove,
            "retire": active,
            "supersede": active and self.model.snapshot is not None and len(self.model.snapshot.standing) > 1,
        }
        for key, button in self.buttons.items():
            button.setEnabled(idle and enabled[key])
        self.review_button.setEnabled(item is not None)

    def _request_review(self) -> None:
        item = self.current_item()
        if item is not None:
            self.review_requested.emit(item.rule_id)

    # -- keys ------------------------------------------------------------------------
    def _apply_filter(self, text: str) -> None:
        keep = self.current_item()
        self.model.set_filter(text)
        if keep is not None and self.model.row_for_rule(keep.rule_id) >= 0:
            self.select_rule(keep.rule_id)
        elif self.model.rowCount():
            self.view.selectRow(0)
        self._update_buttons()

    def _queue_key(self, key: int) -> Callable[[], object] | None:
        actions: dict[int, Callable[[], object]] = {
            Qt.Key.Key_J: lambda: self._move(1), Qt.Key.Key_K: lambda: self._move(-1),
            Qt.Key.Key_Slash: self.filter_edit.setFocus,
        }
        for letter, name in ((Qt.Key.Key_A, "approve"), (Qt.Key.Key_R, "reject"), (Qt.Key.Key_D, "defer")):
            button = self.buttons[name]
            actions[letter] = lambda b=button: b.click() if b.isEnabled() else self.set_message(
                f"{b.text().rstrip('…')} is not available for this row.", "info")
        return actions.get(key)

    def _move(self, step: int) -> None:
        rows = self.model.rowCount()
        if rows:
            row = self.view.currentIndex().row()
            self.view.selectRow(0 if row < 0 else min(max(row + step, 0), rows - 1))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Queue keys on the table: J/K move, A/R/D decide, / filters; Esc in the filter goes back.

        ``ShortcutOverride`` is accepted for those keys so the window's single-key Review
        shortcuts (also A/R/D/J/K) do not take them while the queue has focus."""
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) or not isinstance(event, QKeyEvent):
            return super().eventFilter(watched, event)
        if watched is self.filter_edit:
            if event.key() in (Qt.Key.Key_Escape, Qt.Key.Key_Down, Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if kind == QEvent.Type.KeyPress:
                    if event.key() == Qt.Key.Key_Escape:
                        self.filter_edit.clear()
                    self.view.setFocus()
                event.accept()
                return True
            return super().eventFilter(watched, event)
        if watched is not self.view or event.modifiers() not in (Qt.KeyboardModifier.NoModifier,
                                                                 Qt.KeyboardModifier.KeypadModifier):
            return super().eventFilter(watched, event)
        action = self._queue_key(event.key())
        if action is None:
            return super().eventFilter(watched, event)
        event.accept()
        if kind == QEvent.Type.KeyPress:
            action()
        return True

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
        store, rule_id, run_id = self._store(), item.rule_id, item.run_id

        request = DecisionRequest("approve", reviewer, rule_id=rule_id, run_id=run_id, reason=answer.reason,
                                  override_verdict=answer.against_verdict, acknowledge_gate=answer.acknowledge_gate,
                                  waivers=dict(waivers), via="promotion")

        def work(_ctx: Any) -> str:
            return decide(store, request).message

        def refused(failure: JobFailure) -> None:
            if isinstance(failure.exception, BrokenNotOpened):
                self._pending = _Pending(rule_id, answer)
                self.set_message(f"{failure.message}.\nOpen each one in the Review tab, or use “Waive broken…” "
                                 "to waive them with a reason and approve.", "error")
            else:
                self._show_failure(failure, "Approval failed")

        self._pending = None
        return self._run(work, item, "approve", on_error=refused)

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
        store = self._store()
        request = DecisionRequest(title.lower(), reviewer, rule_id=item.rule_id, run_id=item.run_id, reason=reason,
                                  via="promotion")
        return self._run(lambda _ctx: decide(store, request).message, item, title.lower())

    def retire_selected(self) -> JobHandle | None:
        item, reviewer = self._ready()
        if item is None or reviewer is None or not item.standing_id:
            return None
        reason = self.prompts.reason(self, "Retire", f"Retire the standing rule {item.standing_id}: why?")
        if not reason:
            return None
        store = self._store()
        request = DecisionRequest("retire", reviewer, rule_id=item.rule_id, standing_id=item.standing_id,
                                  reason=reason, via="promotion")
        return self._run(lambda _ctx: decide(store, request).message, item, "retire")

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
        store, (successor, reason) = self._store(), answer
        request = DecisionRequest("supersede", reviewer, rule_id=item.rule_id, standing_id=item.standing_id,
                                  successor=successor, reason=reason, via="promotion")
        return self._run(lambda _ctx: decide(store, request).message, item, "supersede")

    # -- plumbing --------------------------------------------------------------------
    def _store(self) -> Any:
        services = self._services()
        assert services is not None
        return services.store

    def _ready(self) -> tuple[QueueItem | None, str | None]:
        item = self.current_item()
        if item is None or self._services() is None or (self._action_job is not None and self._action_job.running):
            return None, None
        return item, self.identity.require(self)

    def _run(self, work: Callable[[Any], str], item: QueueItem, what: str,
             on_error: Callable[[JobFailure], None] | None = None) -> JobHandle:
        handle = self.runner.submit(work, name=f"promotion: {what}", pool=JobPool.DB)
        self._action_job = handle
        self._want_rule = item.rule_id
        self.set_message(f"{what.capitalize()}: saving…", "info")

        def done(text: str) -> None:
            self.set_message(text, "ok")
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
