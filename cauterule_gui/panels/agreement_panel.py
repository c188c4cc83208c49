"""The human-vs-replay agreement screen: create a blind session, judge it, read the results, and
work as a team (export / import, inter-reviewer agreement, adjudication).

* **New session**: a complete replay run, the confidence-interval half-width wanted (→ the n
  needed, and the expected half-width of the n chosen), seed, allocation, gate; blind is on by
  default. ``core.agreement.create_session`` samples and stores it.
* **Judge**: the rule and its evidence, never replay's answer (``next_item`` returns none in a
  blind session). One key commits the judgement (1, 2, 3 … in the order shown; 0 = can't tell),
  and only the ``Reveal`` that ``commit_judgement`` returns shows replay's answer. Enter moves
  on. Everything is in the store, so closing the window mid-session loses nothing.
* **Results**: ``session_result`` (the numbers ``cauterule-workbench agreement --json``
  prints): percent agreement with its Wilson interval, Cohen's κ with its interval, the
  confusion matrices, agreement per stratum, the gate; the workspace's unblinded marks are
  shown apart, never mixed in.
* **Team**: export my work, import another reviewer's file (conflicts listed, nothing
  overwritten), κ / α between reviewers, and the label disagreements a lead adjudicates.

Every store call is a DB job; every text from a rule or a trajectory is plain text.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.agreement.blind import answer_text
from core.agreement.model import CANT_TELL, GATE_FAIL, GATE_PASS, Reveal, SessionInfo
from core.agreement.sizing import expected_half_width, n_for_half_width
from core.labels.model import LabelText

from cauterule_gui import theme
from cauterule_gui.jobs.runner import JobFailure, JobHandle, JobPool, JobRunner
from cauterule_gui.models import agreement_data
from cauterule_gui.models.agreement_result_models import AgreementStratumModel, rate_cell, scope_lines, stratum_rows
from cauterule_gui.models.agreement_team_models import (
    JudgementDisagreementModel,
    LabelDisagreementModel,
    MergeConflictModel,
)
from cauterule_gui.plain_text import plain_label
from cauterule_gui.plots.confusion import draw_confusion
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices

TAB_NEW, TAB_JUDGE, TAB_RESULTS, TAB_TEAM = range(4)
ANSWER_KEYS = {Qt.Key.Key_1: 0, Qt.Key.Key_2: 1, Qt.Key.Key_3: 2, Qt.Key.Key_4: 3, Qt.Key.Key_5: 4}
NEXT_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)


def _table(parent: QWidget, model: Any, name: str, accessible: str) -> QTableView:
    view = QTableView(parent)
    view.setObjectName(name)
    view.setAccessibleName(accessible)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setWordWrap(False)
    view.verticalHeader().hide()
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    view.horizontalHeader().setStretchLastSection(True)
    return view


def _bold(label: Any, size_delta: int = 0) -> Any:
    font = label.font()
    font.setBold(True)
    if size_delta:
        font.setPointSize(font.pointSize() + size_delta)
    label.setFont(font)
    return label


def session_title(info: SessionInfo) -> str:
    name = f" “{info.name}”" if info.name else ""
    run = f"run #{info.run_id}" if info.run_id is not None else f"imported ({info.origin})"
    old = " · old single question" if info.old_question else ""
    return f"Session {info.id}{name} · {run} · {'blind' if info.blind else 'UNBLINDED'} · {info.size} items{old}"


class AgreementPanel(QWidget):
    session_created = Signal(object)  # SessionInfo
    judgement_committed = Signal(object)  # Reveal
    results_shown = Signal(object)  # SessionResult
    adjudicated = Signal(int)  # trajectory pk
    status_message = Signal(str)

    def __init__(self, services: Callable[[], StoreServices | None], runner: JobRunner, identity: ReviewerIdentity,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("agreementPanel")
        self._services = services
        self.runner = runner
        self.identity = identity
        self.sessions: tuple[SessionInfo, ...] = ()
        self.current: agreement_data.JudgeItem | None = None
        self.reveal: Reveal | None = None
        self.last_result: Any = None
        self.last_team: agreement_data.TeamView | None = None
        self.last_merge: Any = None
        self.population: int | None = None
        self._want_session: int | None = None
        self._committing = False
        self._size_typed = False
        self._answer_buttons: list[QPushButton] = []
        self._firing: str | None = None  # the firing answer while the scope question is asked

        self.session_combo = QComboBox(self)
        self.session_combo.setObjectName("agreementSession")
        self.session_combo.setAccessibleName("Agreement session")
        self.session_combo.currentIndexChanged.connect(lambda _i: self._on_session_changed())
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.clicked.connect(self.refresh)
        self.message = plain_label("", self)
        self.message.setObjectName("agreementMessage")
        self.message.setWordWrap(True)

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("agreementTabs")
        self.tabs.addTab(self._build_new(), "New session")
        self.tabs.addTab(self._build_judge(), "Judge (blind)")
        self.tabs.addTab(self._build_results(), "Results")
        self.tabs.addTab(self._build_team(), "Team")
        self.tabs.currentChanged.connect(self._on_tab)

        top = QHBoxLayout()
        top.addWidget(plain_label("Session", self))
        top.addWidget(self.session_combo, 1)
        top.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.message)
        layout.addWidget(self.tabs, 1)
        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(250)
        self._preview_timer.timeout.connect(self.preview)
        self.identity.changed.connect(lambda _n: self.refresh())
        self._update_sizing(follow_target=True)

    # == construction =====================================================================
    def _build_new(self) -> QWidget:
        page = QWidget(self)
        self.run_combo = QComboBox(page)
        self.run_combo.setObjectName("agreementRun")
        self.run_combo.setAccessibleName("Replay run")
        self.run_combo.currentIndexChanged.connect(lambda _i: self._preview_timer.start())
        self.half_width = QDoubleSpinBox(page)
        self.half_width.setObjectName("agreementHalfWidth")
        self.half_width.setAccessibleName("Target confidence-interval half-width")
        self.half_width.setRange(0.01, 0.49)
        self.half_width.setSingleStep(0.01)
        self.half_width.setDecimals(3)
        self.half_width.setValue(0.10)
        self.half_width.setPrefix("± ")
        self.assumed_p = QDoubleSpinBox(page)
        self.assumed_p.setObjectName("agreementAssumedP")
        self.assumed_p.setAccessibleName("Assumed agreement")
        self.assumed_p.setRange(0.5, 0.99)
        self.assumed_p.setSingleStep(0.05)
        self.assumed_p.setValue(0.80)
        self.assumed_p.setToolTip("The agreement you expect; the gate (0.80) is where the decision is hardest. "
                                  "0.5 gives the widest, most conservative interval.")
        self.needed_label = plain_label("", page)
        self.needed_label.setObjectName("agreementNeeded")
        self.size_spin = QSpinBox(page)
        self.size_spin.setObjectName("agreementSize")
        self.size_spin.setAccessibleName("Items to judge (n chosen)")
        self.size_spin.setRange(1, 100_000)
        self.size_label = plain_label("", page)
        self.size_label.setObjectName("agreementExpected")
        self.seed_spin = QSpinBox(page)
        self.seed_spin.setObjectName("agreementSeed")
        self.seed_spin.setAccessibleName("Seed")
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setValue(secrets.randbelow(2**31))
        self.seed_spin.setToolTip("The same run, seed and settings always draw the same items in the same order")
        self.allocation = QComboBox(page)
        self.allocation.setAccessibleName("Allocation across strata")
        self.allocation.addItem("Proportional (at least 2 per stratum)", "proportional")
        self.allocation.addItem("Equal (over-samples rare strata)", "equal")
        self.gate_spin = QDoubleSpinBox(page)
        self.gate_spin.setObjectName("agreementGate")
        self.gate_spin.setAccessibleName("Gate")
        self.gate_spin.setRange(0.5, 1.0)
        self.gate_spin.setSingleStep(0.05)
        self.gate_spin.setValue(0.80)
        self.blind_box = QCheckBox("Blind: replay's answer stays hidden until I commit my judgement", page)
        self.blind_box.setObjectName("agreementBlind")
        self.blind_box.setChecked(True)
        self.blind_box.setToolTip("An unblinded session shows replay's answer up front; it is reported apart "
                                  "and never feeds the gate")
        self.name_edit = QLineEdit(page)
        self.name_edit.setAccessibleName("Session name")
        self.name_edit.setPlaceholderText("optional, e.g. “release 2.4 audit”")
        self.preview_label = plain_label("", page)
        self.preview_label.setObjectName("agreementPreview")
        self.preview_label.setWordWrap(True)
        self.create_button = QPushButton("Create session", page)
        self.create_button.setObjectName("agreementCreate")
        self.create_button.clicked.connect(self.create_session)
        for spin in (self.half_width, self.assumed_p):
            spin.valueChanged.connect(lambda _v: self._update_sizing(follow_target=True))
        self.size_spin.valueChanged.connect(lambda _v: self._on_size_typed())
        self.seed_spin.valueChanged.connect(lambda _v: self._preview_timer.start())
        self.allocation.currentIndexChanged.connect(lambda _i: self._preview_timer.start())

        form = QFormLayout()
        form.addRow(plain_label("Replay run", page), self.run_combo)
        form.addRow(plain_label("Target 95% half-width", page), self.half_width)
        form.addRow(plain_label("Assumed agreement p", page), self.assumed_p)
        form.addRow(plain_label("", page), self.needed_label)
        form.addRow(plain_label("Items to judge (n)", page), self.size_spin)
        form.addRow(plain_label("", page), self.size_label)
        form.addRow(plain_label("Seed", page), self.seed_spin)
        form.addRow(plain_label("Allocation", page), self.allocation)
        form.addRow(plain_label("Gate", page), self.gate_spin)
        form.addRow(plain_label("Name", page), self.name_edit)
        form.addRow(plain_label("", page), self.blind_box)
        layout = QVBoxLayout(page)
        layout.addLayout(form)
        layout.addWidget(self.preview_label)
        layout.addWidget(self.create_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(1)
        return page

    def _build_judge(self) -> QWidget:
        page = QWidget(self)
        page.setObjectName("agreementJudgePage")
        page.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.judge_page = page
        self.judge_header = _bold(plain_label("", page))
        self.judge_header.setObjectName("judgeHeader")
        self.progress = QProgressBar(page)
        self.progress.setObjectName("judgeProgress")
        self.progress.setFormat("%v / %m judged")
        self.unblinded_banner = plain_label("", page)
        self.unblinded_banner.setObjectName("judgeUnblinded")
        self.unblinded_banner.setWordWrap(True)
        self.unblinded_banner.hide()
        self.rule_text = plain_label("", page)
        self.rule_text.setObjectName("judgeRule")
        self.rule_text.setWordWrap(True)
        self.rule_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        _bold(self.rule_text, 1)
        self.question = plain_label("", page)
        self.question.setObjectName("judgeQuestion")
        self.question.setWordWrap(True)
        self.evidence_list = QListWidget(page)
        self.evidence_list.setObjectName("judgeEvidence")
        self.evidence_list.setAccessibleName("Trajectories the rule fires on")
        self.evidence_list.setMaximumWidth(300)
        self.evidence_list.currentItemChanged.connect(lambda item, _p: self._show_evidence(item))
        self.evidence_title = plain_label("Where replay says the rule fires (buckets hidden)", page)
        # Plain text built by core.agreement.blind: no id, path, tag or expected_* before the commit.
        self.blind_text = QPlainTextEdit(page)
        self.blind_text.setObjectName("judgeTrajectory")
        self.blind_text.setReadOnly(True)
        self.blind_text.setAccessibleName("Trajectory (blind: ids and labels hidden)")
        self.answers_row = QHBoxLayout()
        self.reveal_label = plain_label("", page)
        self.reveal_label.setObjectName("judgeReveal")
        self.reveal_label.setWordWrap(True)
        self.reveal_label.setAutoFillBackground(True)
        _bold(self.reveal_label, 2)
        self.reveal_label.hide()
        self.next_button = QPushButton("Next item  (Enter)", page)
        self.next_button.setObjectName("judgeNext")
        self.next_button.clicked.connect(self.load_item)
        self.next_button.setEnabled(False)
        self.one_key = QCheckBox("One-key judging (1–5 in the order shown, 0 = can't tell, Enter = next)", page)
        self.one_key.setObjectName("judgeOneKey")
        self.one_key.setChecked(True)
        self.one_key.setToolTip("Turn off to judge with the buttons only (WCAG 2.1 SC 2.1.4)")

        left = QWidget(page)
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.evidence_title)
        ll.addWidget(self.evidence_list, 1)
        self.evidence_panel = left
        middle = QSplitter(Qt.Orientation.Horizontal, page)
        middle.addWidget(left)
        middle.addWidget(self.blind_text)
        middle.setStretchFactor(1, 1)
        bottom = QHBoxLayout()
        bottom.addLayout(self.answers_row)
        bottom.addStretch(1)
        bottom.addWidget(self.next_button)
        layout = QVBoxLayout(page)
        layout.addWidget(self.judge_header)
        layout.addWidget(self.progress)
        layout.addWidget(self.unblinded_banner)
        layout.addWidget(self.rule_text)
        layout.addWidget(self.question)
        layout.addWidget(middle, 1)
        layout.addLayout(bottom)
        layout.addWidget(self.reveal_label)
        layout.addWidget(self.one_key)
        for widget in [page, *page.findChildren(QWidget)]:
            widget.installEventFilter(self)
        return page

    def _build_results(self) -> QWidget:
        page = QWidget(self)
        self.results_page = page
        self.results_title = _bold(plain_label("No session selected.", page))
        self.results_title.setObjectName("resultsTitle")
        self.mode_label = plain_label("", page)
        self.mode_label.setObjectName("resultsMode")
        self.mode_label.setWordWrap(True)
        self.gate_label = _bold(plain_label("", page), 2)
        self.gate_label.setObjectName("resultsGate")
        self.gate_label.setAutoFillBackground(True)
        self.gate_label.setWordWrap(True)
        self.agreement_label = plain_label("", page)
        self.agreement_label.setObjectName("resultsAgreement")
        self.kappa_label = plain_label("", page)
        self.kappa_label.setObjectName("resultsKappa")
        self.kappa_label.setWordWrap(True)
        self.extra_label = plain_label("", page)
        self.extra_label.setObjectName("resultsExtra")
        self.extra_label.setWordWrap(True)
        self.figure = Figure(figsize=(8.0, 3.4), dpi=100)
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setParent(page)
        self.canvas.setMinimumHeight(260)
        self.canvas.setAccessibleName("Confusion matrices: replay (rows) against the human (columns)")
        self.strata_model = AgreementStratumModel(self)
        self.strata_view = _table(page, self.strata_model, "resultsStrata", "Agreement per stratum")
        self.unblinded_box = QGroupBox("Unblinded workspace marks (made with replay's answer on screen; "
                                       "reported apart, never in the blind result or the gate)", page)
        self.unblinded_label = plain_label("", self.unblinded_box)
        self.unblinded_label.setObjectName("resultsUnblinded")
        self.unblinded_label.setWordWrap(True)
        box = QVBoxLayout(self.unblinded_box)
        box.addWidget(self.unblinded_label)

        numbers = QVBoxLayout()
        for widget in (self.results_title, self.mode_label, self.gate_label, self.agreement_label, self.kappa_label,
                       self.extra_label):
            numbers.addWidget(widget)
        numbers.addWidget(self.strata_view, 1)
        upper = QHBoxLayout()
        upper.addLayout(numbers, 2)
        upper.addWidget(self.canvas, 3)
        layout = QVBoxLayout(page)
        layout.addLayout(upper, 1)
        layout.addWidget(self.unblinded_box)
        return page

    def _build_team(self) -> QWidget:
        page = QWidget(self)
        self.export_button = QPushButton("Export my work…", page)
        self.export_button.setObjectName("teamExport")
        self.export_button.setToolTip("Write your labels, adjudications and judgements to a file for a teammate")
        self.export_button.clicked.connect(self.export_dialog)
        self.import_button = QPushButton("Import a reviewer's file…", page)
        self.import_button.setObjectName("teamImport")
        self.import_button.setToolTip("Merge another reviewer's export: conflicts are listed, nothing is overwritten")
        self.import_button.clicked.connect(self.import_dialog)
        self.team_refresh = QPushButton("Recompute agreement", page)
        self.team_refresh.clicked.connect(self.compute_team)
        self.merge_label = plain_label("", page)
        self.merge_label.setObjectName("teamMerge")
        self.merge_label.setWordWrap(True)
        self.conflict_model = MergeConflictModel(self)
        self.conflict_view = _table(page, self.conflict_model, "teamConflicts", "Import conflicts")
        self.team_label = plain_label("", page)
        self.team_label.setObjectName("teamAgreement")
        self.team_label.setWordWrap(True)
        self.label_dis_model = LabelDisagreementModel(self)
        self.label_dis_view = _table(page, self.label_dis_model, "teamLabelDisagreements", "Label disagreements")
        self.label_dis_view.selectionModel().currentRowChanged.connect(lambda *_a: self._on_disagreement())
        self.judgement_dis_model = JudgementDisagreementModel(self)
        self.judgement_dis_view = _table(page, self.judgement_dis_model, "teamJudgementDisagreements",
                                         "Judgement disagreements")
        self.chosen_combo = QComboBox(page)
        self.chosen_combo.setObjectName("adjudicateChoice")
        self.chosen_combo.setAccessibleName("Ruling")
        self.chosen_combo.currentIndexChanged.connect(lambda _i: self._update_adjudicate())
        self.own_trigger = QLineEdit(page)
        self.own_trigger.setAccessibleName("Lead's trigger")
        self.own_trigger.setPlaceholderText("when … (only for a label you write)")
        self.own_directive = QLineEdit(page)
        self.own_directive.setAccessibleName("Lead's directive")
        self.own_directive.setPlaceholderText("do …")
        self.reason_edit = QLineEdit(page)
        self.reason_edit.setObjectName("adjudicateReason")
        self.reason_edit.setAccessibleName("Reason for the ruling")
        self.reason_edit.setPlaceholderText("why this is the ground truth (required)")
        self.reason_edit.textChanged.connect(lambda _t: self._update_adjudicate())
        self.adjudicate_button = QPushButton("Adjudicate", page)
        self.adjudicate_button.setObjectName("adjudicateButton")
        self.adjudicate_button.setToolTip("The ruling becomes the ground truth; every label stays in the history")
        self.adjudicate_button.clicked.connect(self.adjudicate_selected)
        self.adjudicate_button.setEnabled(False)

        buttons = QHBoxLayout()
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.import_button)
        buttons.addStretch(1)
        buttons.addWidget(self.team_refresh)
        ruling = QGroupBox("Adjudicate the selected trajectory (lead)", page)
        rl = QFormLayout(ruling)
        rl.addRow(plain_label("Ruling", ruling), self.chosen_combo)
        rl.addRow(plain_label("When", ruling), self.own_trigger)
        rl.addRow(plain_label("Do", ruling), self.own_directive)
        rl.addRow(plain_label("Reason", ruling), self.reason_edit)
        rl.addRow(plain_label("", ruling), self.adjudicate_button)
        inner = QWidget(page)
        layout = QVBoxLayout(inner)
        layout.addLayout(buttons)
        layout.addWidget(self.merge_label)
        layout.addWidget(_bold(plain_label("Import conflicts (kept as they are here)", inner)))
        layout.addWidget(self.conflict_view)
        layout.addWidget(self.team_label)
        layout.addWidget(_bold(plain_label("Label disagreements", inner)))
        layout.addWidget(self.label_dis_view)
        layout.addWidget(ruling)
        layout.addWidget(_bold(plain_label("Judgement disagreements (blind sessions)", inner)))
        layout.addWidget(self.judgement_dis_view)
        scroll = QScrollArea(page)
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        outer = QVBoxLayout(page)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        return page

    # == plumbing =========================================================================
    @property
    def reviewer(self) -> str:
        return self.identity.name or ""

    def _db(self, fn: Callable[[Any], Any], name: str, key: str | None = None) -> JobHandle | None:
        services = self._services()
        if services is None:
            return None
        store = services.store
        return self.runner.submit(lambda _ctx: fn(store), name=name, pool=JobPool.DB, key=key)

    def _failed(self, what: str) -> Callable[[JobFailure], None]:
        def show(failure: JobFailure) -> None:
            self.message.setText(f"{what}: {failure.message or failure.exc_type}")
            self.status_message.emit(f"{what}: {failure}")
        return show

    def current_session(self) -> SessionInfo | None:
        data = self.session_combo.currentData()
        return next((s for s in self.sessions if s.id == data), None)

    # == sessions =========================================================================
    def refresh(self) -> JobHandle | None:
        reviewer = self.reviewer
        handle = self._db(lambda store: agreement_data.choices(store, reviewer), "agreement sessions",
                          key=f"agreement-choices:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_choices)
            handle.error.connect(self._failed("Could not read the sessions"))
        return handle

    def _on_choices(self, choices: agreement_data.Choices) -> None:
        run = self.run_combo.currentData()
        self.run_combo.blockSignals(True)
        self.run_combo.clear()
        for info in choices.runs:
            self.run_combo.addItem(f"#{info.id} {info.profile} · {info.started_at[:16].replace('T', ' ')} · "
                                   f"{info.results} rules · semantic {info.semantic_state}", info.id)
        self.run_combo.setCurrentIndex(max(self.run_combo.findData(run), 0) if run is not None else 0)
        self.run_combo.blockSignals(False)
        self.create_button.setEnabled(bool(choices.runs))
        if not choices.runs:
            self.preview_label.setText("No complete replay run in this store: replay first (Replay menu).")
        else:
            self._preview_timer.start()
        keep = self._want_session or self.session_combo.currentData()
        self.sessions = choices.sessions
        self.session_combo.blockSignals(True)
        self.session_combo.clear()
        for info in reversed(choices.sessions):
            done = choices.progress.get(info.id)
            mine = f" · you: {done.committed}/{done.size}" if done is not None else ""
            self.session_combo.addItem(session_title(info) + mine, info.id)
        if not choices.sessions:
            self.session_combo.addItem("No agreement session yet: create one", None)
        index = self.session_combo.findData(keep) if keep is not None else -1
        self.session_combo.setCurrentIndex(max(index, 0))
        self.session_combo.blockSignals(False)
        self._want_session = None
        self._on_session_changed()

    def select_session(self, session_id: int) -> None:
        self._want_session = session_id
        index = self.session_combo.findData(session_id)
        if index >= 0:
            self.session_combo.setCurrentIndex(index)
        else:
            self.refresh()

    def _on_session_changed(self) -> None:
        self.current, self.reveal = None, None
        tab = self.tabs.currentIndex()
        if tab == TAB_JUDGE:
            self.load_item()
        elif tab == TAB_RESULTS:
            self.load_results()
        elif tab == TAB_TEAM:
            self.compute_team()

    def _on_tab(self, index: int) -> None:
        if index == TAB_JUDGE and (self.current is None or self.reveal is not None):
            self.load_item()
        elif index == TAB_RESULTS:
            self.load_results()
        elif index == TAB_TEAM:
            self.compute_team()
        elif index == TAB_NEW:
            self._preview_timer.start()

    # == new session ======================================================================
    def _update_sizing(self, follow_target: bool = False) -> None:
        target, p = self.half_width.value(), self.assumed_p.value()
        needed = n_for_half_width(target, p)
        population = self.population
        offer = f" · the run offers {population} items" if population is not None else ""
        self.needed_label.setText(f"n needed for ±{target:.3f} at p = {p:.2f}: {needed}{offer}")
        if follow_target:
            self._size_typed = False
            self.size_spin.blockSignals(True)
            self.size_spin.setValue(min(needed, population) if population else needed)
            self.size_spin.blockSignals(False)
            self._preview_timer.start()
        n = self.size_spin.value()
        if population is not None and n > population:
            n = population
        width = expected_half_width(n, p)
        capped = " (capped: the run has no more items)" if population is not None and self.size_spin.value() > population \
            else ""
        self.size_label.setText(f"with n = {n} the expected half-width is ±{width:.3f}{capped}" if width is not None
                                else "")

    def _on_size_typed(self) -> None:
        self._size_typed = True  # a typed n is kept when the run's size arrives
        self._update_sizing()
        self._preview_timer.start()

    def preview(self) -> JobHandle | None:
        run_id = self.run_combo.currentData()
        if run_id is None:
            return None
        size, seed, allocation = self.size_spin.value(), self.seed_spin.value(), self.allocation.currentData()
        handle = self._db(lambda store: agreement_data.preview(store, run_id, size, seed, allocation),
                          "agreement preview", key=f"agreement-preview:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_preview)
            handle.error.connect(lambda f: self.preview_label.setText(f"Cannot sample this run: {f.message}"))
        return handle

    def _on_preview(self, preview: Any) -> None:
        first = self.population is None
        self.population = preview.plan.population
        self._update_sizing(follow_target=first and not self._size_typed)
        strata = ", ".join(f"{s.split(':', 1)[1].replace('_', '-')} ({s.split(':')[0]}) {v['sampled']} of "
                           f"{v['population']}" for s, v in preview.strata.items())
        self.preview_label.setText(f"Sample of {preview.plan.size} items, stratified by replay's verdicts and "
                                   f"evidence buckets: {strata}.")

    def create_session(self) -> JobHandle | None:
        run_id = self.run_combo.currentData()
        creator = self.identity.require(self)
        if run_id is None or not creator:
            self.message.setText("Choose a complete replay run and give your reviewer name first.")
            return None
        from core.agreement.session import create_session

        target, p, size = self.half_width.value(), self.assumed_p.value(), self.size_spin.value()
        from_target = not self._size_typed  # n came from the target: the session records the target
        options: dict[str, Any] = dict(
            size=None if from_target else size, target_half_width=target if from_target else None, assumed_p=p,
            seed=self.seed_spin.value(), allocation=self.allocation.currentData(), blind=self.blind_box.isChecked(),
            gate=self.gate_spin.value(), name=self.name_edit.text().strip() or None,
        )

        def job(store: Any) -> SessionInfo:
            return create_session(store, run_id, creator, **options)

        self.create_button.setEnabled(False)
        handle = self._db(job, "create agreement session")
        if handle is not None:
            handle.result.connect(self._on_created)
            handle.error.connect(self._failed("The session was not created"))
            handle.finished.connect(lambda: self.create_button.setEnabled(True))
        return handle

    def _on_created(self, info: SessionInfo) -> None:
        self.message.setText(f"Created {session_title(info)}. Judge it now, or later: it is saved.")
        self.session_created.emit(info)
        self._want_session = info.id
        self.seed_spin.setValue(secrets.randbelow(2**31))  # the next session draws afresh
        self.tabs.setCurrentIndex(TAB_JUDGE)
        self.refresh()

    # == judging ==========================================================================
    def load_item(self) -> JobHandle | None:
        session = self.current_session()
        self.current, self.reveal = None, None  # no key acts until the next item is on screen
        self.next_button.setEnabled(False)
        if session is None:
            self._show_item(None)
            return None
        reviewer = self.reviewer
        if not reviewer:
            reviewer = self.identity.require(self) or ""
            if not reviewer:
                self.judge_header.setText("Give your reviewer name to judge (Review ▸ Reviewer name…).")
                return None
        handle = self._db(lambda store: agreement_data.judge_item(store, session, reviewer), "next agreement item",
                          key=f"agreement-item:{id(self)}")
        if handle is not None:
            handle.result.connect(self._show_item)
            handle.error.connect(self._failed("Could not read the next item"))
        return handle

    def _show_item(self, judge: agreement_data.JudgeItem | None) -> None:
        self.current = judge
        self.reveal = None
        self._committing = False
        self.reveal_label.hide()
        self.reveal_label.setText("")
        self.next_button.setEnabled(False)
        self._clear_answers()
        if judge is None:
            self.judge_header.setText("No session selected: create one in “New session”.")
            self.rule_text.setText("")
            self.question.setText("")
            self.blind_text.setPlainText("")
            self.evidence_list.clear()
            return
        info, item, done = judge.session, judge.item, judge.progress
        self.progress.setRange(0, max(done.size, 1))
        self.progress.setValue(done.committed)
        if item is None:
            self.judge_header.setText(f"{session_title(info)} · you have judged every item.")
            self.rule_text.setText("Finished. The results are in the Results tab.")
            self.question.setText("")
            self.unblinded_banner.hide()
            self.blind_text.setPlainText("")
            self.evidence_list.clear()
            return
        view = judge.view
        assert view is not None
        # Only the core's blind view is shown before the commit: no ids, paths or origins.
        self.judge_header.setText(f"{session_title(info)} · {view.heading}")
        self.rule_text.setText(view.rule)
        self.question.setText(view.question)
        if item.replay_answer is not None:  # an unblinded session: said up front, reported apart
            self.unblinded_banner.setText(f"Unblinded session: replay's answer is {answer_text(item.replay_answer)}. "
                                          "These judgements never feed the gate.")
            self.unblinded_banner.show()
        else:
            self.unblinded_banner.hide()
        self.evidence_list.blockSignals(True)
        self.evidence_list.clear()
        for (pk, _tid), label in zip(judge.evidence, view.evidence_labels):
            entry = QListWidgetItem(label)
            entry.setData(Qt.ItemDataRole.UserRole, pk)
            self.evidence_list.addItem(entry)
        self.evidence_list.blockSignals(False)
        self.evidence_panel.setVisible(item.kind == "verdict")
        if item.kind == "verdict":
            self.evidence_title.setText(f"Replay says the rule fires on {len(judge.evidence)} trajector"
                                        f"{'y' if len(judge.evidence) == 1 else 'ies'} (buckets hidden)")
            self.blind_text.setPlainText("")
            if judge.evidence:
                self.evidence_list.setCurrentRow(0)
        else:
            self.blind_text.setPlainText(view.trajectory or "")
        self._add_answer_buttons(view.choices)
        if self.tabs.currentIndex() == TAB_JUDGE:
            self.judge_page.setFocus()

    def _add_answer_buttons(self, choices: tuple[tuple[str, str], ...]) -> None:
        self._clear_answers()
        decisive = [c for c, _label in choices if c != CANT_TELL]
        for choice, label in choices:
            key = "0" if choice == CANT_TELL else str(decisive.index(choice) + 1)
            button = QPushButton(f"{key}  {label}", self.judge_page)
            button.setObjectName(f"judge_{choice}")
            button.setAccessibleName(f"Judge: {label}")
            button.clicked.connect(lambda _c=False, a=choice: self.commit(a))
            button.installEventFilter(self)
            self.answers_row.addWidget(button)
            self._answer_buttons.append(button)

    def _clear_answers(self) -> None:
        for button in self._answer_buttons:
            self.answers_row.removeWidget(button)
            button.deleteLater()
        self._answer_buttons = []

    def _show_evidence(self, entry: QListWidgetItem | None) -> None:
        if entry is None:
            return
        pk = int(entry.data(Qt.ItemDataRole.UserRole))
        handle = self._db(lambda store: agreement_data.blind_trajectory(store, pk), "evidence trajectory",
                          key=f"agreement-evidence:{id(self)}")
        if handle is not None:
            handle.result.connect(lambda text: self.blind_text.setPlainText(text)
                                  if self.evidence_list.currentItem() is entry else None)

    def commit(self, answer: str) -> JobHandle | None:
        """Commit one judgement (final); replay's answer is shown only from the returned Reveal."""
        judge = self.current
        if judge is None or judge.item is None or self.reveal is not None or self._committing:
            return None
        item = judge.item
        if self._firing is None and item.scope_choices:
            # Step 1 of 2 on a failure: the firing answer; the scope question comes next.
            if answer not in item.choices:
                return None
            self._firing = answer
            view = judge.view
            assert view is not None
            self.question.setText(f"Firing: {answer_text(answer)}. {view.scope_question}")
            self._add_answer_buttons(view.scope_choices)
            return None
        firing, scope = (self._firing, answer) if self._firing is not None else (answer, None)
        if firing not in item.choices or (scope is not None and scope not in item.scope_choices):
            return None
        reviewer = self.identity.require(self)
        if not reviewer:
            return None
        self._committing = True
        for button in self._answer_buttons:
            button.setEnabled(False)
        item_id = item.item_id
        handle = self._db(lambda store: agreement_data.commit(store, item_id, reviewer, firing, scope),
                          "commit judgement")
        if handle is None:
            self._committing = False
            return None
        handle.result.connect(self._on_revealed)
        handle.error.connect(self._on_commit_failed)
        return handle

    def _on_commit_failed(self, failure: JobFailure) -> None:
        self._committing = False
        self._firing = None
        for button in self._answer_buttons:
            button.setEnabled(True)
        self._failed("The judgement was not committed")(failure)

    def _on_revealed(self, reveal: Reveal) -> None:
        self._committing = False
        self.reveal = reveal
        if reveal.agrees is None:
            verdict, swatch = "you could not tell (left out of the statistics)", theme.swatch("missed")
        elif reveal.agrees:
            verdict, swatch = "✓ you agree", theme.swatch("pass")
        else:
            verdict, swatch = "✗ you disagree", theme.swatch("fail")
        scope = ""
        if reveal.replay_scope is not None:
            scope = (f"\nScope: you said {answer_text(reveal.scope or 'cant_tell')}; replay counts this failure in its "
                     "recall denominator (in scope)")
        shown = reveal.revealed or {}
        where = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in shown.items() if v not in (None, ""))
        self.reveal_label.setText(f"Your judgement: {answer_text(reveal.answer)} (committed) · replay said: "
                                  f"{answer_text(reveal.replay_answer)} · {verdict}{scope}"
                                  + (f"\nNow revealed — {where}" if where else ""))
        self._update_session_entry(reveal)
        if swatch is not None:
            palette = self.reveal_label.palette()
            palette.setColor(self.reveal_label.backgroundRole(), swatch.background)
            palette.setColor(self.reveal_label.foregroundRole(), swatch.foreground)
            self.reveal_label.setPalette(palette)
        self.reveal_label.show()
        for button in self._answer_buttons:
            button.setEnabled(False)
            if button.objectName() == f"judge_{reveal.answer}":
                button.setText(button.text() + "  ✔")
        self.progress.setRange(0, max(reveal.progress.size, 1))
        self.progress.setValue(reveal.progress.committed)
        self._firing = None
        self.next_button.setEnabled(True)
        self.next_button.setDefault(True)
        self.judgement_committed.emit(reveal)

    def _update_session_entry(self, reveal: Reveal) -> None:
        """Keep "you: k/n" in the session list true after every commit (it went stale before)."""
        judge = self.current
        if judge is None:
            return
        index = self.session_combo.findData(judge.session.id)
        if index >= 0:
            done = reveal.progress
            self.session_combo.setItemText(index, session_title(judge.session) + f" · you: {done.committed}/{done.size}")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Judging keys, on the judging page only: digits commit, Enter / Space moves on.

        A ``ShortcutOverride`` is accepted for those keys so the window's single-key shortcuts
        (which include 1–4 on the Review tab) do not take them while judging."""
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) or not self.one_key.isChecked():
            return super().eventFilter(watched, event)
        assert isinstance(event, QKeyEvent)
        if event.modifiers() not in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier):
            return super().eventFilter(watched, event)
        action = self._key_action(Qt.Key(event.key()))
        if action is None:
            return super().eventFilter(watched, event)
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()
            return True
        action()
        return True

    def _key_action(self, key: Qt.Key) -> Callable[[], object] | None:
        judge = self.current
        if judge is None or judge.item is None:
            return None
        if self.reveal is not None:
            return self.load_item if key in NEXT_KEYS else None
        offered = judge.item.scope_choices if self._firing is not None else judge.item.choices
        choices = [c for c in offered if c != CANT_TELL]
        if key == Qt.Key.Key_0:
            return lambda: self.commit(CANT_TELL)
        index = ANSWER_KEYS.get(key)
        if index is not None and index < len(choices):
            return lambda: self.commit(choices[index])
        return None

    # == results ==========================================================================
    def load_results(self) -> JobHandle | None:
        session = self.current_session()
        if session is None:
            self.results_title.setText("No session selected.")
            return None
        from core.agreement.results import session_result

        handle = self._db(lambda store: session_result(store, session.id), "agreement results",
                          key=f"agreement-results:{id(self)}")
        if handle is not None:
            handle.result.connect(self.show_result)
            handle.error.connect(self._failed("Could not compute the results"))
        return handle

    def show_result(self, result: Any) -> None:
        self.last_result = result
        info, comparison = result.session, result.comparison
        self.results_title.setText(session_title(info) + f" · seed {info.seed} · gate {info.gate:.2f}")
        progress = ", ".join(f"{r} {c}/{result.size}" for r, c in result.progress.items()) or "nobody yet"
        if info.blind:
            self.mode_label.setText(f"Blind session: every reviewer committed before seeing replay's answer. "
                                    f"Judged: {progress}.")
        else:
            self.mode_label.setText(f"UNBLINDED session: replay's answer was on screen. Reported apart; it never "
                                    f"feeds the gate. Judged: {progress}.")
        gate = comparison.gate
        state = {GATE_PASS: "PASS", GATE_FAIL: "FAIL"}.get(gate.state, "NOT ENOUGH DATA")
        prefix = "Gate" if info.blind else "Gate (not used: unblinded)"
        self.gate_label.setText(f"{prefix} {gate.threshold:.2f}: {state} — {gate.reason}")
        swatch = theme.swatch({GATE_PASS: "pass", GATE_FAIL: "fail"}.get(gate.state, "inconclusive"))
        if swatch is not None:
            palette = self.gate_label.palette()
            palette.setColor(self.gate_label.backgroundRole(), swatch.background)
            palette.setColor(self.gate_label.foregroundRole(), swatch.foreground)
            self.gate_label.setPalette(palette)
        abstained = f"; {comparison.abstained} can't tell (left out)" if comparison.abstained else ""
        self.agreement_label.setText(f"Percent agreement: {rate_cell(comparison.agreement)} (Wilson 95%){abstained}")
        kappa = comparison.kappa
        if kappa.value is None:
            self.kappa_label.setText(f"Cohen's κ: — ({kappa.note or 'not enough data'})")
        else:
            ci = "" if kappa.ci is None else f" [{kappa.ci[0]:.2f}–{kappa.ci[1]:.2f}]"
            self.kappa_label.setText(f"Cohen's κ: {kappa.value:.2f}{ci} ({kappa.method}; replay as rater 2)")
        weighted = result.population_weighted
        lines = [f"Population-weighted agreement: {weighted:.2f}" if weighted is not None else
                 "Population-weighted agreement: —"]
        lines.extend(scope_lines(result))
        if len(result.per_reviewer) > 1:
            lines.extend(f"{r}: {rate_cell(c.agreement)}" for r, c in result.per_reviewer.items())
        self.extra_label.setText("\n".join(lines))
        self.strata_model.set_rows(stratum_rows(result))
        draw_confusion(self.figure, comparison.per_kind, dark=theme.is_dark(self.palette()))
        self.canvas.draw_idle()
        marks = result.unblinded
        self.unblinded_label.setText(
            f"{marks.right} right, {marks.wrong} wrong, {marks.cant_tell} can't tell · agreement "
            f"{rate_cell(marks.agreement)} · {marks.note}" if marks.marks else
            "No unblinded marks for this run.")
        self.results_shown.emit(result)

    # == team =============================================================================
    def compute_team(self) -> JobHandle | None:
        session = self.current_session()
        session_id = None if session is None else session.id
        handle = self._db(lambda store: agreement_data.team_view(store, session_id), "team agreement",
                          key=f"agreement-team:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_team)
            handle.error.connect(self._failed("Could not compute team agreement"))
        return handle

    def _on_team(self, team: agreement_data.TeamView) -> None:
        self.last_team = team
        j, lab = team.judgements, team.labels
        lines = []
        if len(j.reviewers) < 2:
            lines.append("Judgements: fewer than two reviewers in this session (import a teammate's file).")
        else:
            stat = ""
            if j.cohen is not None and j.cohen.value is not None:
                ci = "" if j.cohen.ci is None else f" [{j.cohen.ci[0]:.2f}–{j.cohen.ci[1]:.2f}]"
                stat = f"; Cohen's κ {j.cohen.value:.2f}{ci}"
            elif j.fleiss is not None and j.fleiss.value is not None:
                stat = f"; Fleiss' κ {j.fleiss.value:.2f}"
            alpha = "—" if j.alpha.value is None else f"{j.alpha.value:.2f}"
            lines.append(f"Judgements ({', '.join(j.reviewers)}): {j.items} items judged by two or more; pairwise "
                         f"agreement {rate_cell(j.percent)}{stat}; Krippendorff's α {alpha}; "
                         f"{len(j.disagreements)} disagreement(s)")
        if lab.trajectories:
            lines.append(f"Labels ({', '.join(lab.reviewers)}): {lab.trajectories} trajectories labelled by two or "
                         f"more; comparator agreement {rate_cell(lab.agreement)} ({lab.agreement_basis}); identical "
                         f"{rate_cell(lab.identical)}; {len(lab.disagreements)} disagreement(s)")
        else:
            lines.append("Labels: no trajectory is labelled by two reviewers yet.")
        self.team_label.setText("\n".join(lines))
        selected = self._selected_disagreement()
        self.label_dis_model.set_rows(lab.disagreements)
        self.judgement_dis_model.set_rows(j.disagreements)
        if selected is not None:
            for row, item in enumerate(lab.disagreements):
                if item.trajectory_pk == selected.trajectory_pk:
                    self.label_dis_view.selectRow(row)
        self._on_disagreement()

    def _selected_disagreement(self) -> Any:
        index = self.label_dis_view.currentIndex()
        return self.label_dis_model.row_at(index.row()) if index.isValid() else None

    def _on_disagreement(self) -> None:
        item = self._selected_disagreement()
        self.chosen_combo.blockSignals(True)
        self.chosen_combo.clear()
        if item is not None:
            for reviewer, sentence in item.labels.items():
                self.chosen_combo.addItem(f"{reviewer}'s label: {sentence or '(no rule expected)'}", reviewer)
            self.chosen_combo.addItem("A label I write (below)", None)
        self.chosen_combo.blockSignals(False)
        self._update_adjudicate()

    def _update_adjudicate(self) -> None:
        item = self._selected_disagreement()
        own = item is not None and self.chosen_combo.currentData() is None
        self.own_trigger.setEnabled(own)
        self.own_directive.setEnabled(own)
        self.adjudicate_button.setEnabled(item is not None and bool(self.reason_edit.text().strip()))

    def adjudicate_selected(self) -> JobHandle | None:
        item = self._selected_disagreement()
        reason = self.reason_edit.text().strip()
        lead = self.identity.require(self)
        if item is None or not reason or not lead:
            return None
        from core.agreement.team import adjudicate

        chosen: str | LabelText = self.chosen_combo.currentData() or LabelText(self.own_trigger.text(),
                                                                               self.own_directive.text())
        pk = item.trajectory_pk
        handle = self._db(lambda store: adjudicate(store, lead, pk, chosen, reason), "adjudicate")
        if handle is not None:
            handle.result.connect(lambda _adj: self._on_adjudicated(pk))
            handle.error.connect(self._failed("The ruling was not recorded"))
        return handle

    def _on_adjudicated(self, pk: int) -> None:
        self.reason_edit.clear()
        self.message.setText("Ruling recorded: it is now the ground truth for this trajectory (history kept).")
        self.adjudicated.emit(pk)
        self.compute_team()

    def export_dialog(self) -> JobHandle | None:
        reviewer = self.identity.require(self)
        if not reviewer:
            return None
        path, _ = QFileDialog.getSaveFileName(self, "Export my work", f"{reviewer}-workbench.json",
                                              "Workbench team export (*.json)")
        return self.export_to(Path(path)) if path else None

    def export_to(self, path: Path) -> JobHandle | None:
        reviewer = self.reviewer
        if not reviewer:
            return None
        handle = self._db(lambda store: agreement_data.export_work(store, reviewer, path), "team export")
        if handle is not None:
            handle.result.connect(lambda counts: self.merge_label.setText(
                f"Exported {', '.join(f'{n} {k}' for k, n in counts.items())} to {path}"))
            handle.error.connect(self._failed("The export failed"))
        return handle

    def import_dialog(self) -> JobHandle | None:
        path, _ = QFileDialog.getOpenFileName(self, "Import a reviewer's work", "", "Workbench team export (*.json)")
        return self.import_from(Path(path)) if path else None

    def import_from(self, path: Path) -> JobHandle | None:
        importer = self.identity.require(self)
        if not importer:
            return None
        handle = self._db(lambda store: agreement_data.import_work(store, path, importer), "team import")
        if handle is not None:
            handle.result.connect(self._on_merged)
            handle.error.connect(self._failed("The import failed"))
        return handle

    def _on_merged(self, report: Any) -> None:
        self.last_merge = report
        added = ", ".join(f"{n} {k}" for k, n in report.added.items()) or "nothing new"
        same = sum(report.unchanged.values())
        text = f"Imported: {added}; {same} already here; {len(report.conflicts)} conflict(s), nothing overwritten."
        if report.unmatched:
            text += f" {len(report.unmatched)} label(s) for trajectories this store lacks were kept unattached: " \
                    + "; ".join(report.unmatched[:5])
        self.merge_label.setText(text)
        self.conflict_model.set_rows(report.conflicts)
        self.refresh()
        self.compute_team()
