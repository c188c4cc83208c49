"""Labelling mode: write the ground-truth rule (``expected_rule``) each trajectory should produce.

Left, the lazy list of a corpus's trajectories (filter: missing / has my label / no ground
truth, domain, text); middle, the trajectory and the label editor (trigger "when …", directive
"do …", acceptable variants, a note) with live feedback, the label's history and the accuracy
per corpus; right, the team's guidelines (``resources/labelling-guidelines.md``, our own
trusted Markdown, the only rich text here: every corpus text is plain).

Keyboard-first: Ctrl+Enter saves and moves to the next trajectory, Alt+J / Alt+K (or
Alt+Down / Alt+Up) move without leaving the editor, Ctrl+S saves now. There is no Save
button: the label is saved on a pause in typing and whenever the reviewer moves on, each save
one committed transaction (``LabelRepository.save``; saving identical text writes nothing).

Every store call is a DB job; feedback (pure scoring of the candidates already loaded) is a
CPU job. The panel is standalone: it needs a services getter, the job runner and the reviewer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.labels.feedback import LabelFeedback, feedback_for_rules
from core.labels.model import LabelFilter, LabelText, label_warnings
from core.metrics.extraction import parse_expected_rule

from cauterule_gui.jobs.runner import JobContext, JobFailure, JobHandle, JobPool, JobRunner
from cauterule_gui.models import label_data
from cauterule_gui.models.label_accuracy_model import LabelAccuracyModel
from cauterule_gui.models.label_feedback_model import LabelFeedbackModel
from cauterule_gui.models.label_history_model import LabelHistoryModel
from cauterule_gui.models.label_queue_model import COL_ID, COL_LABELS, COL_MINE, LabelQueueModel
from cauterule_gui.panels.trajectory_viewer import TrajectoryViewerPanel
from cauterule_gui.column_fit import ColumnFit
from cauterule_gui.panels.label_progress import LabelProgress
from cauterule_gui.plain_text import plain_label
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices

AUTOSAVE_MS = 800
FEEDBACK_MS = 300
FILTER_MS = 250
STATUSES = (("all", "All trajectories"), ("missing", "Missing my label"), ("labelled", "Has my label"),
            ("no_ground_truth", "No ground truth at all"))
NO_GUIDELINES = ("No labelling guidelines yet.\n\nThe team's guidelines are read from\n{path}\n"
                 "which does not exist (yet). Write them there in Markdown and press Reload.")


def guidelines_path() -> Path:
    from cauterule_gui.self_test import resources_path

    return resources_path() / "labelling-guidelines.md"


def _semantic_embedder() -> Any:
    """The in-memory embedder shared with the promotion screen (raises when unavailable)."""
    from cauterule_gui.panels.promotion_panel import load_embedder

    return load_embedder()


class VariantListEditor(QWidget):
    """A small list editor for acceptable variant sentences (items are plain text)."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget(self)
        self.list.setObjectName("labelVariants")
        self.list.setAccessibleName("Acceptable variants")
        self.list.setMaximumHeight(78)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed
                                  | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.list.itemChanged.connect(lambda _item: self.changed.emit())
        self.add_button = QPushButton("Add", self)
        self.add_button.setAccessibleName("Add a variant")
        self.add_button.setToolTip("Add an acceptable alternative rule sentence (“when …, do …”)")
        self.add_button.clicked.connect(lambda: self.add_variant(""))
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setAccessibleName("Remove the selected variant")
        self.remove_button.clicked.connect(self.remove_current)
        buttons = QVBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)

    def variants(self) -> tuple[str, ...]:
        return tuple(self.list.item(i).text() for i in range(self.list.count()))

    def set_variants(self, variants: tuple[str, ...]) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        for text in variants:
            self._item(text)
        self.list.blockSignals(False)

    def _item(self, text: str) -> QListWidgetItem:
        item = QListWidgetItem(text)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        self.list.addItem(item)
        return item

    def add_variant(self, text: str = "") -> None:
        item = self._item(text)
        self.list.setCurrentItem(item)
        if not text:
            self.list.editItem(item)
        self.changed.emit()

    def remove_current(self) -> None:
        row = self.list.currentRow()
        if row >= 0:
            self.list.takeItem(row)
            self.changed.emit()


class LabellingPanel(QWidget):
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
        self.embedder_factory: Callable[[], Any] = _semantic_embedder
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

    def _build_filters(self) -> None:
        self.corpus_combo = QComboBox(self)
        self.corpus_combo.setObjectName("labelCorpus")
        self.corpus_combo.setAccessibleName("Corpus")
        self.corpus_combo.addItem("All corpora", None)
        self.status_combo = QComboBox(self)
        self.status_combo.setObjectName("labelStatus")
        self.status_combo.setAccessibleName("Label filter")
        for key, text in STATUSES:
            self.status_combo.addItem(text, key)
        self.domain_combo = QComboBox(self)
        self.domain_combo.setObjectName("labelDomain")
        self.domain_combo.setAccessibleName("Domain")
        self.domain_combo.addItem("All domains", None)
        self.search = QLineEdit(self)
        self.search.setObjectName("labelSearch")
        self.search.setAccessibleName("Search trajectories")
        self.search.setPlaceholderText("id, task or failure class")
        self.search.setClearButtonEnabled(True)
        for combo in (self.corpus_combo, self.status_combo, self.domain_combo):
            combo.currentIndexChanged.connect(lambda _i: self.reload())
        self.search.textChanged.connect(lambda _t: self._filter_timer.start())
        self.count_label = plain_label("", self)
        self.count_label.setObjectName("labelCount")
        self.progress = LabelProgress(self.runner, self._store, lambda: self.reviewer, self)

    def _build_list(self) -> None:
        self.model = LabelQueueModel(self)
        self.model.fetch_requested.connect(self._fetch_page)
        self.view = QTableView(self)
        self.view.setObjectName("labelQueue")
        self.view.setAccessibleName("Trajectories to label")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        # Headers never clipped ("My label"); ids and labels elided in the middle.
        self.column_fit = ColumnFit(self.view, {1: "python", 2: "✓ success", COL_LABELS: "2 ⚖"},
                                    {COL_ID: (2.0, 12), COL_MINE: (2.0, 8)})
        self.view.selectionModel().currentRowChanged.connect(self._on_current_row)

    def _build_editor(self) -> None:
        self.trigger = QLineEdit(self)
        self.trigger.setObjectName("labelTrigger")
        self.trigger.setAccessibleName("Trigger (when …)")
        self.trigger.setPlaceholderText("the failure's signature, e.g. git push is rejected as non-fast-forward")
        self.directive = QLineEdit(self)
        self.directive.setObjectName("labelDirective")
        self.directive.setAccessibleName("Directive (do …)")
        self.directive.setPlaceholderText("one action the agent can take next time")
        self.variants = VariantListEditor(self)
        self.note = QPlainTextEdit(self)
        self.note.setObjectName("labelNote")
        self.note.setAccessibleName("Note")
        self.note.setPlaceholderText("why this rule (optional; kept with the label, not exported to 0.3.1)")
        self.note.setMaximumHeight(52)
        self.note.setTabChangesFocus(True)
        for edit in (self.trigger, self.directive):
            edit.textChanged.connect(lambda _t: self._on_edited())
        self.note.textChanged.connect(self._on_edited)
        self.variants.changed.connect(self._on_edited)

        self.save_state = plain_label("", self)
        self.save_state.setObjectName("labelSaveState")
        self.save_state.setAccessibleName("Save state")
        self.use_imported = QPushButton("Use imported rule", self)
        self.use_imported.setObjectName("labelUseImported")
        self.use_imported.setToolTip("Start from the expected_rule the corpus file has (split at its first comma)")
        self.use_imported.clicked.connect(self.start_from_imported)
        self.no_rule = QPushButton("No rule expected", self)
        self.no_rule.setObjectName("labelNoRule")
        self.no_rule.setToolTip("Clear trigger and directive: this trajectory should produce no rule "
                                "(exported as an empty expected_rule)")
        self.no_rule.clicked.connect(self.mark_no_rule)
        self.warnings = plain_label("", self)
        self.warnings.setObjectName("labelWarnings")
        self.warnings.setWordWrap(True)
        self.context_info = plain_label("", self)
        self.context_info.setObjectName("labelContext")
        self.context_info.setWordWrap(True)
        self.context_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(plain_label("When", self), self.trigger)
        form.addRow(plain_label("Do", self), self.directive)
        form.addRow(plain_label("Variants", self), self.variants)
        form.addRow(plain_label("Note", self), self.note)
        state_row = QHBoxLayout()
        state_row.addWidget(self.save_state, 1)
        state_row.addWidget(self.use_imported)
        state_row.addWidget(self.no_rule)
        self.editor = QWidget(self)
        self.editor.setObjectName("labelEditor")
        editor_layout = QVBoxLayout(self.editor)
        editor_layout.setContentsMargins(0, 4, 0, 0)
        editor_layout.addLayout(form)
        editor_layout.addLayout(state_row)
        editor_layout.addWidget(self.warnings)
        editor_layout.addWidget(self.context_info)

    def _table(self, model: Any, name: str, accessible: str) -> QTableView:
        view = QTableView(self)
        view.setObjectName(name)
        view.setAccessibleName(accessible)
        view.setModel(model)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.setWordWrap(False)
        view.verticalHeader().hide()
        view.horizontalHeader().setStretchLastSection(True)
        return view

    def _build_tabs(self) -> None:
        self.feedback_model = LabelFeedbackModel(self)
        self.history_model = LabelHistoryModel(self)
        self.accuracy_model = LabelAccuracyModel(self)
        self.feedback_view = self._table(self.feedback_model, "labelFeedback", "Live feedback")
        self.feedback_view.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.feedback_view.horizontalHeader().setStretchLastSection(False)
        self.feedback_note = plain_label("", self)
        self.feedback_note.setObjectName("labelFeedbackNote")
        self.feedback_note.setWordWrap(True)
        self.semantic_box = QCheckBox("Semantic", self)
        self.semantic_box.setObjectName("labelSemantic")
        self.semantic_box.setToolTip("Score with the embedding model (loaded once, in the background); "
                                     "semantic F1 is “—” when it is off or unavailable, never 0")
        self.semantic_box.toggled.connect(lambda _on: (self.compute_feedback(), self.compute_accuracy()))
        feedback = QWidget(self)
        fl = QVBoxLayout(feedback)
        fl.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.feedback_note, 1)
        top.addWidget(self.semantic_box)
        fl.addLayout(top)
        fl.addWidget(self.feedback_view)

        self.history_view = self._table(self.history_model, "labelHistory", "History of this label")
        self.accuracy_view = self._table(self.accuracy_model, "labelAccuracy", "Extraction accuracy per corpus")
        self.accuracy_view.horizontalHeader().setStretchLastSection(False)
        self.accuracy_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.accuracy_note = plain_label("", self)
        self.accuracy_note.setObjectName("labelAccuracyNote")
        self.accuracy_note.setWordWrap(True)
        self.accuracy_button = QPushButton("Recompute", self)
        self.accuracy_button.clicked.connect(lambda: self.compute_accuracy(True))
        accuracy = QWidget(self)
        al = QVBoxLayout(accuracy)
        al.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.accuracy_note, 1)
        top.addWidget(self.accuracy_button)
        al.addLayout(top)
        al.addWidget(self.accuracy_view)

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("labelTabs")
        self.tabs.addTab(feedback, "Live feedback")
        self.tabs.addTab(self.history_view, "History")
        self.tabs.addTab(accuracy, "Accuracy per corpus")
        self.tabs.currentChanged.connect(lambda i: self.compute_accuracy() if i == 2 else None)

    def _build_guidelines(self) -> None:
        self.guidelines = QTextBrowser(self)
        self.guidelines.setObjectName("labelGuidelines")
        self.guidelines.setAccessibleName("Labelling guidelines")
        self.guidelines.setOpenLinks(False)
        # The team's own Markdown is rendered with setMarkdown; nothing typed or pasted here
        # is ever interpreted as rich text.
        self.guidelines.setAcceptRichText(False)
        self.guidelines_title = plain_label("Guidelines", self)
        font = self.guidelines_title.font()
        font.setBold(True)
        self.guidelines_title.setFont(font)
        self.guidelines_reload = QPushButton("Reload", self)
        self.guidelines_reload.setToolTip("Read resources/labelling-guidelines.md again (the team edits it)")
        self.guidelines_reload.clicked.connect(self.load_guidelines)

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
        key(["Ctrl+S"], self.save_now, "saveLabel", "Save the label now")
        self.export_action = QAction("Export &labels…", self)
        self.export_action.setStatusTip("Write the corpus JSONL with your labels as expected_rule")
        self.export_action.triggered.connect(lambda _c=False: self.export_labels_dialog())
        self.setToolTip("Ctrl+Enter save and next · Alt+J / Alt+K next / previous · Ctrl+S save now")

    # -- store access --------------------------------------------------------------------
    def _store(self) -> Any:
        services = self._services()
        return None if services is None else services.store

    @property
    def reviewer(self) -> str:
        return self.identity.name or ""

    def _db(self, fn: Callable[[Any], Any], name: str, key: str | None = None) -> JobHandle | None:
        store = self._store()
        if store is None:
            return None
        return self.runner.submit(lambda _ctx: fn(store), name=name, pool=JobPool.DB, key=key)

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

    def _on_choices(self, choices: label_data.FilterChoices) -> None:
        self._latest_run = choices.latest_run
        self._corpora = choices.corpora
        for combo, values in ((self.corpus_combo, choices.corpora), (self.domain_combo, choices.domains)):
            current = combo.currentData()
            combo.blockSignals(True)
            while combo.count() > 1:
                combo.removeItem(1)
            for value in values:
                combo.addItem(value, value)
            found = combo.findData(current) if current is not None else 0
            combo.setCurrentIndex(max(found, 0))
            combo.blockSignals(False)
        self.reload()
        if self.tabs.currentIndex() == 2:
            self.compute_accuracy()

    def current_filter(self) -> LabelFilter:
        return LabelFilter(corpus=self.corpus_combo.currentData(), domain=self.domain_combo.currentData(),
                           status=str(self.status_combo.currentData()), text=self.search.text().strip())

    def set_filter(self, corpus: str | None = None, status: str = "all", domain: str | None = None,
                   text: str = "") -> None:
        for combo, value in ((self.corpus_combo, corpus), (self.status_combo, status), (self.domain_combo, domain)):
            combo.blockSignals(True)
            combo.setCurrentIndex(max(combo.findData(value), 0))
            combo.blockSignals(False)
        self.search.blockSignals(True)
        self.search.setText(text)
        self.search.blockSignals(False)
        self.reload()

    def reload(self) -> None:
        self._filter_timer.stop()
        flt, reviewer = self.current_filter(), self.reviewer
        handle = self._db(lambda store: label_data.queue_page(store, reviewer, flt, 0), "label queue",
                          key=f"labels-queue:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_first_page)
            handle.error.connect(self._failed("Could not list the trajectories"))

    def _on_first_page(self, page: label_data.QueuePage) -> None:
        self.update_progress()
        keep = self._want_pk if self._want_pk is not None else self._pk
        self.model.reset_rows(page.rows, page.total or 0)
        self._update_count()
        row = self.model.row_of(keep) if keep is not None else None
        if row is None and self.model.rowCount() and self._pk is None:
            row = 0
        if row is not None:
            self._select_row(row)

    def _fetch_page(self, offset: int) -> None:
        flt, reviewer, generation = self.current_filter(), self.reviewer, self.model.generation
        handle = self._db(lambda store: label_data.queue_page(store, reviewer, flt, offset), "label queue page")
        if handle is None:
            self.model.fetch_failed()
            return
        handle.result.connect(lambda page: (self.model.append_page(page.offset, page.rows, generation),
                                            self._update_count()))
        handle.error.connect(lambda _f: self.model.fetch_failed())

    def _update_count(self) -> None:
        shown, total = self.model.rowCount(), self.model.total
        self.count_label.setText(f"{total} trajector{'y' if total == 1 else 'ies'}"
                                 + (f" ({shown} loaded)" if shown < total else ""))

    def _select_row(self, row: int) -> None:
        index = self.model.index(row, 0)
        self.view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(index)

    def select_trajectory(self, pk: int) -> None:
        """Show a trajectory (selecting it when it is in the list)."""
        row = self.model.row_of(pk)
        if row is not None:
            self._select_row(row)
        else:
            self.save_now()
            self._load(pk)

    def current_pk(self) -> int | None:
        """The trajectory being labelled (resume restores it)."""
        return self._pk

    def move(self, step: int) -> None:
        """Next / previous trajectory; the label is saved first (the DB pool runs jobs in order)."""
        current = self.view.currentIndex().row()
        row = current + step if current >= 0 else 0
        if row >= self.model.rowCount() and self.model.canFetchMore():
            self.model.fetchMore()
        if 0 <= row < self.model.rowCount():
            self._select_row(row)
        else:
            self.save_now()
            self.status_message.emit("End of the list" if step > 0 else "Start of the list")

    def save_and_next(self) -> None:
        self.save_now()
        self.move(1)

    def _on_current_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        item = self.model.row_at(current.row()) if current.isValid() else None
        if item is None or item.trajectory_pk == self._pk:
            return
        self.save_now()  # the label being left is saved before the next one is read
        self._load(item.trajectory_pk)

    # -- one trajectory ------------------------------------------------------------------
    def _load(self, pk: int) -> None:
        self._autosave.stop()
        self._pk, self._context, self._saved, self._want_pk, self._saved_at = pk, None, None, pk, None
        self._set_loading(True)
        reviewer = self.reviewer
        handle = self._db(lambda store: label_data.labelling_context(store, pk, reviewer), "label context",
                          key=f"labels-load:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_context)
            handle.error.connect(self._failed("Could not read the trajectory"))

    def _set_loading(self, loading: bool) -> None:
        self._loading = loading
        for edit in (self.trigger, self.directive):
            edit.setReadOnly(loading)
        self.note.setReadOnly(loading)
        self.variants.setEnabled(not loading)
        if loading:
            self.save_state.setText("Loading…")

    def _on_context(self, context: label_data.LabellingContext) -> None:
        if context.detail.id != self._pk:
            return
        self._context = context
        self._saved = None if context.mine is None else context.mine.text.normalised()
        if context.mine is not None:
            self._saved_at = f"{context.mine.updated_at.replace('T', ' ')[:16]} UTC by {context.mine.reviewer}"
        text = self._saved or LabelText("", "")
        self.viewer.show_trajectory(context.detail)
        self._populate(text)
        self.history_model.set_history(context.history)
        self._show_context()
        if not self.corpus_combo.currentData():
            self.update_progress()  # "in this corpus": the corpus of this trajectory
        self._set_loading(False)
        self._show_state()
        self.compute_feedback()

    def _populate(self, text: LabelText) -> None:
        widgets = (self.trigger, self.directive, self.note, self.variants.list)
        for widget in widgets:
            widget.blockSignals(True)
        self.trigger.setText(text.trigger)
        self.directive.setText(text.directive)
        self.note.setPlainText(text.note or "")
        self.variants.set_variants(text.variants)
        for widget in widgets:
            widget.blockSignals(False)
        self.trigger.setCursorPosition(len(text.trigger))
        self._update_warnings()

    def _show_context(self) -> None:
        context = self._context
        if context is None:
            self.context_info.setText("")
            return
        lines = []
        imported = context.detail.expected_rule
        lines.append(f"Imported expected_rule: {imported}" if imported else "Imported expected_rule: — (none)")
        truth = context.ground_truth
        if truth.source == "adjudicated":
            lines.append(f"Ground truth in force: adjudicated by {truth.reviewer}: {truth.sentence or '(no rule)'}")
        elif truth.conflicting:
            lines.append("Reviewers' labels differ and no lead has ruled yet (see Agreement ▸ Team)")
        for other in context.others:
            lines.append(f"{other.reviewer}'s label: {other.sentence or '(no rule expected)'}")
        if context.mine is not None and context.mine.stale:
            lines.append("⚠ The record changed since you saved this label: check it; saving again reconfirms it")
        self.context_info.setText("\n".join(lines))
        self.use_imported.setEnabled(bool(imported))

    def current_text(self) -> LabelText:
        return LabelText(self.trigger.text(), self.directive.text(), self.variants.variants(),
                         self.note.toPlainText() or None)

    def is_dirty(self) -> bool:
        if self._pk is None or self._context is None:
            return False
        current = self.current_text().normalised()
        if self._saved is None:
            return current != LabelText("", "").normalised() or self._explicit_empty
        return current != self._saved

    def _on_edited(self) -> None:
        if self._loading or self._context is None:
            return
        self._explicit_empty = False
        self._update_warnings()
        self._show_state()
        if self.is_dirty():
            self._autosave.start()
        self._feedback_timer.start()

    def _update_warnings(self) -> None:
        warnings = label_warnings(self.current_text())
        self.warnings.setText("\n".join(f"⚠ {w}" for w in warnings))
        self.warnings.setVisible(bool(warnings))

    def start_from_imported(self) -> None:
        if self._context is None or not self._context.detail.expected_rule:
            return
        trigger, directive = parse_expected_rule(self._context.detail.expected_rule)
        self.trigger.setText(trigger)
        self.directive.setText(directive)
        self.trigger.setFocus()

    def mark_no_rule(self) -> None:
        if self._context is None:
            return
        self.trigger.clear()
        self.directive.clear()
        self._explicit_empty = True
        self._on_edited_keep_empty()

    def _on_edited_keep_empty(self) -> None:
        self._update_warnings()
        self._show_state()
        self.save_now()

    # -- saving --------------------------------------------------------------------------
    def save_now(self) -> JobHandle | None:
        """Save the label being edited if it changed (a DB job); returns the job, if any."""
        self._autosave.stop()
        if not self.is_dirty():
            return None
        reviewer = self.identity.require(self)
        if not reviewer:
            self.save_state.setText("● Not saved: give your reviewer name to save labels")
            return None
        pk, text, previous = self._pk, self.current_text(), self._saved
        assert pk is not None
        self._explicit_empty = False
        handle = self._db(lambda store: label_data.save_label(store, pk, reviewer, text), "save label")
        if handle is None:
            return None
        self._saves[id(handle)] = handle
        handle.result.connect(self._on_saved)
        handle.error.connect(lambda failure: self._on_save_failed(pk, previous, failure))
        handle.finished.connect(lambda h=handle: (self._saves.pop(id(h), None), self._show_state()))
        # Treat it as saved for "dirty" purposes; a failure puts the text back as unsaved.
        if pk == self._pk:
            self._saved = text.normalised()
        self._show_state(saving=True)
        return handle

    def flush(self) -> None:
        """Save now (called before the window closes or the store changes)."""
        self.save_now()

    def has_unsaved(self) -> bool:
        return self.is_dirty() or bool(self._saves)

    def _on_saved(self, saved: label_data.SavedLabel) -> None:
        sentence = saved.result.label.sentence
        self._failure = None
        self.model.set_my_label(saved.trajectory_pk, sentence)
        if saved.trajectory_pk == self._pk:
            self.history_model.set_history(saved.history)
            self._saved_at = time.strftime("%H:%M:%S")
            self._show_state()
        if saved.result.changed:
            self.label_saved.emit(saved.trajectory_pk)
            self.update_progress()

    def _on_save_failed(self, pk: int, previous: LabelText | None, failure: JobFailure) -> None:
        if pk == self._pk:
            self._saved = previous  # the editor's text counts as unsaved again
        self._failure = f"⚠ Not saved: {failure}"
        self.status_message.emit(f"The label was not saved: {failure}")
        self._show_state()

    def _show_state(self, saving: bool = False) -> None:
        if self._pk is None:
            self.save_state.setText("Select a trajectory to label it.")
            return
        if self._context is None:
            return
        if self._failure and self.is_dirty():
            self.save_state.setText(self._failure)
        elif saving or self._saves:
            self.save_state.setText("… Saving")
        elif self.is_dirty():
            self.save_state.setText("● Unsaved changes (saved when you pause or move on)")
        elif self._saved is None:
            self.save_state.setText("○ No label yet")
        else:
            when = f" at {self._saved_at}" if self._saved_at else ""
            what = "" if self._saved.sentence() else " (no rule expected)"
            self.save_state.setText(f"✓ Saved{what}{when}")

    # -- live feedback -------------------------------------------------------------------
    def compute_feedback(self) -> JobHandle | None:
        self._feedback_timer.stop()
        context = self._context
        if context is None:
            self.feedback_model.set_rows([])
            self.feedback_note.setText("")
            return None
        text, pk, rules = self.current_text(), context.detail.id, context.candidates
        semantic, factory = self.semantic_box.isChecked(), self.embedder_factory

        def job(_ctx: JobContext) -> LabelFeedback:
            embed, note = None, None if semantic else "semantic matching is off (tick Semantic)"
            if semantic and rules:
                from core.embeddings import EmbeddingUnavailable

                try:
                    embed, note = factory(), None
                except EmbeddingUnavailable as error:
                    embed, note = None, f"semantic unavailable: {error}"
            return feedback_for_rules(pk, rules, text, embed, note)

        handle = self.runner.submit(job, name="label feedback", pool=JobPool.CPU, key=f"labels-feedback:{id(self)}")
        handle.result.connect(self._on_feedback)
        handle.error.connect(self._failed("Could not score the label"))
        return handle

    def _on_feedback(self, feedback: LabelFeedback) -> None:
        if feedback.trajectory_pk != self._pk:
            return
        self.last_feedback = feedback
        self.feedback_model.set_rows(feedback.candidates)
        parts = [f"{len(feedback.candidates)} candidate(s) extracted from this trajectory scored against your "
                 f"label" if feedback.candidates else "Nothing scored"]
        parts.append("semantic F1: on" if feedback.semantic_state == "on" else "semantic F1: — (no model in use)")
        if feedback.note:
            parts.append(feedback.note)
        self.feedback_note.setText("; ".join(parts))

    # -- accuracy per corpus -------------------------------------------------------------
    def compute_accuracy(self, force: bool = False) -> JobHandle | None:
        """Measure each corpus (the chosen one, or all) as a DB job; only while its tab shows."""
        if not force and self.tabs.currentIndex() != 2:
            return None
        from core.labels.accuracy import corpus_accuracy

        chosen = self.corpus_combo.currentData()
        corpora = (chosen,) if chosen else self._corpora
        reviewer, run_id = self.reviewer or None, self._latest_run
        semantic, factory = self.semantic_box.isChecked(), self.embedder_factory

        def job(store: Any) -> tuple[list[Any], str | None]:
            embed, note = None, None
            if semantic:
                from core.embeddings import EmbeddingUnavailable

                try:
                    embed = factory()
                except EmbeddingUnavailable as error:
                    note = f"semantic unavailable: {error}"
            return [corpus_accuracy(store, c, reviewer, run_id, embed) for c in corpora], note

        self.accuracy_note.setText("Measuring…")
        handle = self._db(job, "extraction accuracy", key=f"labels-accuracy:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_accuracy)
            handle.error.connect(self._failed("Could not measure extraction accuracy"))
        return handle

    def _on_accuracy(self, value: tuple[list[Any], str | None]) -> None:
        results, note = value
        self.accuracy_model.set_rows(results)
        basis = "candidate: replay's best from run #%d" % self._latest_run if self._latest_run else \
            "candidate: the first extracted rule (no complete replay run)"
        ground = f"ground truth: adjudicated, else {self.reviewer or 'the agreed'} label, else imported expected_rule"
        self.accuracy_note.setText("; ".join(x for x in (ground, basis, note) if x))

    def update_progress(self) -> None:
        """"37 / 95 labelled in this corpus": the filtered corpus, else the open trajectory's."""
        corpus = self.corpus_combo.currentData()
        if not corpus and self._context is not None:
            corpus = self._context.detail.corpus
        self.progress.update_for(corpus or None)

    # -- export --------------------------------------------------------------------------
    def export_corpus(self) -> str | None:
        corpus = self.corpus_combo.currentData()
        if corpus:
            return str(corpus)
        if self._context is not None:
            return self._context.detail.corpus
        return None

    def export_labels_dialog(self) -> JobHandle | None:
        corpus = self.export_corpus()
        if corpus is None:
            self.status_message.emit("Choose a corpus (or a trajectory) to export its labels")
            return None
        folder = QFileDialog.getExistingDirectory(self, f"Export the labels of {corpus} to")
        return self.export_labels_to(Path(folder), corpus) if folder else None

    def export_labels_to(self, out_dir: Path, corpus: str | None = None) -> JobHandle | None:
        """Write ``corpus``'s JSONL with updated expected_rule values (``core.labels.export``)."""
        from core.labels.export import export_labels

        self.save_now()
        corpus = corpus or self.export_corpus()
        if corpus is None:
            return None
        reviewer = self.reviewer or None
        handle = self._db(lambda store: export_labels(store, corpus, out_dir, reviewer), "export labels")
        if handle is not None:
            handle.result.connect(self._on_exported)
            handle.error.connect(self._failed("Could not export the labels"))
        return handle

    def _on_exported(self, summary: Any) -> None:
        message = (f"Exported {summary.corpus}: {summary.records} records, {summary.replaced} expected_rule "
                   f"value(s) replaced, {len(summary.files)} file(s)")
        if summary.warnings:
            message += f"; {len(summary.warnings)} warning(s): " + "; ".join(summary.warnings[:3])
        self.count_label.setText(message)
        self.status_message.emit(message)
        self.labels_exported.emit(summary)

    # -- guidelines ----------------------------------------------------------------------
    def load_guidelines(self, path: Path | None = None) -> None:
        """Render the team's own Markdown (trusted); a placeholder when the file is missing."""
        target = path or guidelines_path()
        try:
            text = target.read_text(encoding="utf-8")
        except OSError:
            self.guidelines.setPlainText(NO_GUIDELINES.format(path=target))
            return
        if text.strip():
            self.guidelines.setMarkdown(text)
        else:
            self.guidelines.setPlainText(NO_GUIDELINES.format(path=target).replace("does not exist (yet)", "is empty"))

    def hideEvent(self, event: Any) -> None:
        self.save_now()  # leaving the tab never loses a draft
        super().hideEvent(event)
