"""Labelling mode: write the ground-truth rule (``expected_rule``) each trajectory should produce.

Left, the lazy list of a corpus's trajectories (filter: missing / has my label / no ground
truth, domain, text); middle, the trajectory and the label editor (trigger "when …", directive
"do …", acceptable variants, a note) with live feedback, the label's history and the accuracy
per corpus; right, the team's guidelines (``resources/labelling-guidelines.md``, our own
trusted Markdown, the only rich text here: every corpus text is plain).

Keyboard-first: Ctrl+Enter saves and moves to the next trajectory, Alt+J / Alt+K (or
Alt+Down / Alt+Up) move without leaving the editor, Ctrl+S saves now. There is no Save
button: the label is saved on a pause in typing and whenever the reviewer moves on, each save
one committed transaction (``core.labels.service.save_label``; identical text writes nothing).

Every store call is a DB job; feedback (pure scoring of the candidates already loaded) is a
CPU job. The panel is standalone: it needs a services getter, the job runner and the reviewer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.domain.labels import LabelText
from core.labels.feedback import LabelFeedback

from cauterule_gui.jobs.runner import JobFailure, JobHandle, JobRunner
from cauterule_gui.models import label_data
from cauterule_gui.panels.base import StorePanel
from cauterule_gui.panels.labelling.common import (
    AUTOSAVE_MS,
    FEEDBACK_MS,
    FILTER_MS,
    semantic_embedder,
)
from cauterule_gui.panels.labelling.editor_page import EditorPage
from cauterule_gui.panels.labelling.feedback_page import FeedbackPage
from cauterule_gui.panels.labelling.guidelines_page import GuidelinesPage
from cauterule_gui.panels.labelling.queue_page import QueuePage
from cauterule_gui.panels.trajectory_viewer import TrajectoryViewerPanel
from cauterule_gui.plain_text import plain_label
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices


class LabellingPanel(QueuePage, EditorPage, FeedbackPage, GuidelinesPage, StorePanel, QWidget):
    label_saved = Signal(int)  # trajectory pk, after the save is committed
    status_message = Signal(str)
    labels_exported = Signal(object)  # LabelExportSummary

    def __init__(self, services: Callable[[], StoreServices | None], runner: JobRunner, identity: ReviewerIdentity,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("labellingPanel")
        self._services = services
        self.runner = runner
        self.identity = identity
        self.embedder_factory: Callable[[], Any] = semantic_embedder
        self._pk: int | None = None
        self._context: label_data.LabellingContext | None = None
        self._saved: LabelText | None = None  # what the store holds for (pk, me)
        self._loading = False
        self._saves: dict[int, JobHandle] = {}
        self._latest_run: int | None = None
        self._want_pk: int | None = None
        self._corpora: tuple[str, ...] = ()
        self._failure: str | None = None
        self._explicit_empty = False  # "No rule expected" pressed: an empty label is worth saving
        self._saved_at: str | None = None
        self._unconfirmed: str | None = None  # why a stray-key label was not saved
        self.window_model_state = ""  # the status bar's embedding model state (feedback words it alike)
        self.last_feedback: LabelFeedback | None = None

        self._build_filters()
        self._build_list()
        self.viewer = TrajectoryViewerPanel(self, title="Trajectory being labelled")
        self._build_editor()
        self._build_tabs()
        self._build_guidelines()
        self._build_layout()
        self._build_keys()

        self._autosave = self._timer(AUTOSAVE_MS, self.save_now)
        self._feedback_timer = self._timer(FEEDBACK_MS, self.compute_feedback)
        self._filter_timer = self._timer(FILTER_MS, self.reload)
        self.identity.changed.connect(lambda _name: self.refresh())
        self.load_guidelines()
        self._show_state()

    # -- construction ------------------------------------------------------------------
    def _timer(self, ms: int, slot: Callable[[], object]) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(ms)
        timer.timeout.connect(lambda: slot())
        return timer

    def _build_layout(self) -> None:
        filters = QHBoxLayout()
        for text, widget in (("Corpus", self.corpus_combo), ("Show", self.status_combo),
                             ("Domain", self.domain_combo)):
            filters.addWidget(plain_label(text, self))
            filters.addWidget(widget)
        filters.addWidget(self.search, 1)
        left = QWidget(self)
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.view, 1)
        ll.addWidget(self.count_label)
        ll.addWidget(self.progress)

        middle = QSplitter(Qt.Orientation.Vertical, self)
        middle.setObjectName("labelMiddleSplitter")
        middle.addWidget(self.viewer)
        middle.addWidget(self.editor)
        middle.addWidget(self.tabs)
        middle.setChildrenCollapsible(False)
        middle.setSizes([330, 250, 190])

        right = QWidget(self)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(self.guidelines_title, 1)
        head.addWidget(self.guidelines_reload)
        rl.addLayout(head)
        rl.addWidget(self.guidelines, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("labelSplitter")
        for widget in (left, middle, right):
            self.splitter.addWidget(widget)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([470, 760, 400])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(filters)
        layout.addWidget(self.splitter, 1)

    def _build_keys(self) -> None:
        """Modifier keys only: they act while typing, and no single letter ever does."""
        def key(sequences: list[str], slot: Callable[[], object], name: str, what: str) -> None:
            for seq in sequences:
                shortcut = QShortcut(QKeySequence(seq), self)
                shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                shortcut.activated.connect(lambda: slot())
                shortcut.setObjectName(name)
                shortcut.setWhatsThis(what)  # the `?` sheet of this tab reads it

        key(["Ctrl+Return", "Ctrl+Enter"], self.save_and_next, "saveAndNext", "Save the label and go to the next")
        key(["Alt+J", "Alt+Down"], lambda: self.move(1), "nextTrajectory", "Next trajectory (label saved first)")
        key(["Alt+K", "Alt+Up"], lambda: self.move(-1), "previousTrajectory", "Previous trajectory")
        # From the queue, Tab or Enter goes straight to the When field (the viewer is read with the mouse).
        chain = [self.view, self.trigger, self.directive, self.variants.list, self.variants.add_button,
                 self.variants.remove_button, self.note, self.use_imported, self.no_rule]
        for before, after in zip(chain, chain[1:]):
            QWidget.setTabOrder(before, after)
        for seq in ("Return", "Enter"):
            to_editor = QShortcut(QKeySequence(seq), self.view)
            to_editor.setContext(Qt.ShortcutContext.WidgetShortcut)
            to_editor.activated.connect(lambda: self.trigger.setFocus(Qt.FocusReason.ShortcutFocusReason))
            to_editor.setObjectName("editLabel")
            to_editor.setWhatsThis("Queue: edit the label (When field)")
        key(["Ctrl+S"], lambda: self.save_now(confirmed=True), "saveLabel",
            "Save the label now (also one that looks like a stray key)")
        self.export_action = QAction("Export &labels…", self)
        self.export_action.setStatusTip("Write the corpus JSONL with your labels as expected_rule")
        self.export_action.triggered.connect(lambda _c=False: self.export_labels_dialog())
        self.setToolTip("Ctrl+Enter save and next · Alt+J / Alt+K next / previous · Ctrl+S save now")

    def keys_home(self) -> QWidget:
        """Ctrl+4: the queue (J-free: Alt+J / Alt+K, Enter or Tab to the When field, `?` help);
        never a text field, where the next key would be typed into a label."""
        return self.view

    # -- store access (reviewer, _store and _db come from StorePanel) -----------------------
    def _failed(self, what: str) -> Callable[[JobFailure], None]:
        def show(failure: JobFailure) -> None:
            self.status_message.emit(f"{what}: {failure}")
            self.count_label.setText(f"{what}: {failure}")
        return show

    # -- filters and list ----------------------------------------------------------------
    def refresh(self) -> None:
        """Reload the filter choices and the list (a store was opened, or labels were imported)."""
        handle = self._db(label_data.filter_choices, "label filters", key=f"labels-filters:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_choices)
            handle.error.connect(self._failed("Could not read the corpora"))

    def hideEvent(self, event: Any) -> None:
        self.save_now()  # leaving the tab never loses a draft
        super().hideEvent(event)
