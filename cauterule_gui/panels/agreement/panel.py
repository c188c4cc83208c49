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

Every store call is a DB job; every text from a rule or a trajectory is plain text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.domain.agreement import Reveal, SessionInfo

from cauterule_gui.jobs.runner import JobFailure, JobHandle, JobRunner
from cauterule_gui.models import agreement_data
from cauterule_gui.panels.agreement.common import (
    TAB_JUDGE,
    TAB_NEW,
    TAB_RESULTS,
    TAB_TEAM,
    session_title,
)
from cauterule_gui.panels.agreement.judge_page import JudgePage
from cauterule_gui.panels.agreement.new_session_page import NewSessionPage
from cauterule_gui.panels.agreement.results_page import ResultsPage
from cauterule_gui.panels.agreement.team_page import TeamPage
from cauterule_gui.panels.base import StorePanel
from cauterule_gui.plain_text import plain_label
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices


class AgreementPanel(NewSessionPage, JudgePage, ResultsPage, TeamPage, StorePanel, QWidget):
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

    def keys_home(self) -> QWidget:
        """Ctrl+5: the judging page when it is in front (its digits, Enter and Space work there),
        else the page tabs; never the Semantic / Blind check boxes, where Space starts work."""
        if self.tabs.currentIndex() == TAB_JUDGE:
            return self.judge_page
        return self.tabs.tabBar()

    # == plumbing (reviewer and _db come from StorePanel) ====================================
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
