"""The promotion screen: the queue with its gates, one candidate's gates in full, and the
actions that change what an agent does — approve, reject, defer, re-approve, retire, supersede.

Every store call is a DB job on the ``JobRunner`` (the GUI thread never waits on SQLite);
the queue is rebuilt after each action. Lexical similarity is the default; the "semantic"
box computes the queue on the CPU pool with the embedding model (loaded once, in memory
only: nothing is written to the store from that pool). Refusals from the core are shown as
they are, in the message line above the detail pane; a refused approval because of unopened
broken evidence offers "Waive broken…" (a reason per trajectory), then approves.

What the reviewer types is asked through ``PromotionPrompts`` (modal dialogs); tests swap it.
Every text from a rule or trajectory is inserted as plain text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
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

from cauterule_gui.blind_guard import BlindGuard
from cauterule_gui.jobs.runner import JobHandle, JobRunner
from cauterule_gui.models import promotion_queue_model as qm
from cauterule_gui.models.promotion_queue_model import PromotionQueueModel
from cauterule_gui.panels.base import StorePanel
from cauterule_gui.panels.promotion.actions_page import ActionsPage
from cauterule_gui.panels.promotion.common import COLUMN_WIDTHS, PendingApproval
from cauterule_gui.panels.promotion.dialogs import (
    PromotionPrompts,
)
from cauterule_gui.panels.promotion.queue_page import QueuePage
from cauterule_gui.panels.promotion.similarity import load_embedder
from cauterule_gui.plain_text import plain_label
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices


class PromotionPanel(QueuePage, ActionsPage, StorePanel, QWidget):
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
        self._pending: PendingApproval | None = None
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
        for column, chars in COLUMN_WIDTHS.items():
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

        self.blind: BlindGuard | None = None  # set by install_blind_guard: which rules' answers are hidden
        self.reveal_button = QPushButton("Show evidence anyway", self)
        self.reveal_button.setObjectName("promotion_reveal")
        self.reveal_button.setToolTip("This rule is in your unfinished blind agreement session. Show its replay "
                                      "answer here and in the Review tab anyway (recorded: your later judgements "
                                      "of it are reported apart)")
        self.reveal_button.clicked.connect(self.reveal_current)
        self.reveal_button.hide()
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
        actions.addWidget(self.reveal_button)
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

    # -- plumbing --------------------------------------------------------------------
    def _store(self) -> Any:
        services = self._services()
        assert services is not None
        return services.store
