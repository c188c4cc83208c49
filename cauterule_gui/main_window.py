"""The main window: layout and action wiring only. Panels and controllers do the work.

Tabs: Review (rules table, evidence board, evidence trajectory), Corpus (navigator,
trajectory table, viewer), and the workflow tabs Label, Agreement, Promotion and Metrics
(``WorkflowTabs``). Review behaviour lives in ``ReviewController``, replay in
``ReplayController``, what-if in ``WhatIfController``; every review key is defined in
``review_menu.install``; a replay's results reaching the Review tab as they arrive in
``window_replay.LiveResults``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QWidget,
)

from core.store.workspace_query import WorkspaceScope

from cauterule_gui import settings as keys
from cauterule_gui import theme, window_menus, window_replay, window_settings, window_store
from cauterule_gui.blind_guard import install_blind_guard, watch_promotion
from cauterule_gui.bulk_decisions import BulkDecisions
from cauterule_gui.db import DatabaseExecutor
from cauterule_gui.import_controller import ImportController
from cauterule_gui.jobs import JobRunner
from cauterule_gui.jobs.replay_job import ReplayProcess
from cauterule_gui.models.corpus_table_model import CorpusTableModel
from cauterule_gui.models.rule_table_model import RuleTableModel
from cauterule_gui.models.trajectory_table_model import TrajectoryTableModel
from cauterule_gui.panels.corpus_navigator import CorpusNavigatorPanel
from cauterule_gui.panels.import_dialogs import JobProgressWidget
from cauterule_gui.panels.review_workspace import ReviewWorkspace
from cauterule_gui.panels.run_history_dock import RunHistoryDock
from cauterule_gui.panels.trajectory_table import TrajectoryTablePanel
from cauterule_gui.panels.trajectory_viewer import TrajectoryViewerPanel
from cauterule_gui.panels.welcome_panel import WelcomePanel
from cauterule_gui.recent_stores import remember_store
from cauterule_gui.replay_controller import ReplayController
from cauterule_gui.review_controller import ReviewController
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices
from cauterule_gui.start_flow import StartFlow
from cauterule_gui.status_bar import WindowStatusBar, section_label
from cauterule_gui.store_integrity import StoreIntegrity
from cauterule_gui.tab_registry import TabRegistry, rows_of_actions
from cauterule_gui.whatif_controller import WhatIfController
from cauterule_gui.window_replay import LiveResults
from cauterule_gui.workflow_tabs import WorkflowTabs

DEFAULT_SIZES = (330, 790, 440)


class MainWindow(LiveResults, QMainWindow):
    def __init__(self, services: StoreServices, runner: JobRunner, settings: QSettings,
                 open_services: Callable[[Path], StoreServices], parent: QWidget | None = None,
                 process: ReplayProcess | None = None) -> None:
        super().__init__(parent)
        self.services: StoreServices | None = services
        self.runner = runner
        self._settings = settings
        self._open_services = open_services
        self.setWindowTitle("CauterRule Workbench")
        self.shortcuts_dialog: window_menus.ShortcutsDialog | None = None
        # Every read and write after the store opened goes through this (off the GUI thread).
        self.db = DatabaseExecutor(runner, lambda: self.services, self)

        # Corpus tab. The models get the executor before any read: their first pages are read
        # on a worker from the first event-loop turn, so the window paints before (docs/gui.md).
        self.corpus_model = CorpusTableModel(services.corpora, self, db=self.db)
        self.trajectory_model = TrajectoryTableModel(services.corpora, self, db=self.db)
        self.navigator = CorpusNavigatorPanel(self.corpus_model)
        self.table_panel = TrajectoryTablePanel(self.trajectory_model)
        self.viewer = TrajectoryViewerPanel()
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("mainSplitter")
        for panel in (self.navigator, self.table_panel, self.viewer):
            self.splitter.addWidget(panel)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 1)
        self.splitter.setSizes(list(DEFAULT_SIZES))
        self.splitter.setContentsMargins(6, 6, 6, 0)

        # Review tab.
        self.identity = ReviewerIdentity(settings, self)
        self.identity.follow_store(services.login)
        self.rule_model = RuleTableModel(services.results, self, db=self.db)
        self.rule_model.set_reviewer(self.identity.name)
        self.workspace = ReviewWorkspace(self.rule_model, self)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("mainTabs")
        self.tab_registry = TabRegistry(self, self.tabs)
        self.setCentralWidget(self.tabs)
        self.workspace.rules.set_executor(self.db)
        self.workspace.evidence.set_executor(self.db)  # a bucket's later pages
        self.history = RunHistoryDock(self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.history)
        self.history.hide()

        # Status bar: jobs, store, reviewer, embedding model.
        # Each section elides (whole text in its tooltip) so the bar never widens the window.
        self.store_label = section_label(self, "storePath", 16, 60, Qt.TextElideMode.ElideMiddle)  # both ends matter
        self.reviewer_label = section_label(self, "reviewerName", 10, 40)
        self.model_label = section_label(self, "modelState", 10, 50)
        self.progress = JobProgressWidget(self)
        self.replay_progress = JobProgressWidget(self)
        self.replay_progress.setObjectName("replayProgress")
        status_bar = WindowStatusBar(self)
        self.setStatusBar(status_bar)
        for widget in (self.progress, self.replay_progress):
            status_bar.addPermanentWidget(widget)
        for widget in (self.store_label, self.reviewer_label, self.model_label):
            status_bar.add_section(widget)
        self.importer = ImportController(runner, lambda: self.services, self.progress, self)
        self.review = ReviewController(self.db, self.identity, self.workspace.rules,
                                       self.workspace.evidence, self.workspace.viewer, self)
        self.replay = ReplayController(runner, lambda: self.services, settings, process or ReplayProcess(),
                                       self.replay_progress, self)
        self.whatif = WhatIfController(self.db, self.replay, self.identity, self)
        self.blind = install_blind_guard(self)  # blind means blind: the rules of an unfinished blind session
        self.review.split_requested.connect(lambda rule, proposal: self.whatif.open(rule, proposal))
        self.bulk = BulkDecisions(self)
        self.tab_registry.register(
            self.workspace, "Review", kinds={"decisions", "marks", "rules", "replay", "corpora", "promotion"},
            refresh=self._refresh_review, sources=(self.review, self.bulk), focus=lambda: self.workspace.rules.view,
            keys=lambda: [
                row for name, actions in self.review_actions.groups.items() for row in rows_of_actions(name, actions)])
        self.tab_registry.register(self.splitter, "Corpus", kinds={"corpora", "labels"}, refresh=self._refresh_corpus,
                                   focus=lambda: self.table_panel.view)
        self.workflows = WorkflowTabs(self, self.tab_registry, self.db, self.identity,
                                      lambda text: self.statusBar().showMessage(text, 8000), self._show_rule_in_review)
        watch_promotion(self.blind, self.workflows.promotion)
        self.db.changes_applied.connect(self.tab_registry.changes_applied)
        self.db.changes_applied.connect(lambda kinds, _by: self._after_change(kinds))
        self.db.failed.connect(lambda failure: self.statusBar().showMessage(f"Not saved: {failure}", 15_000))
        self._build_live_refresh()

        self.welcome = WelcomePanel("", keys.read_bool(settings, keys.KEY_WELCOME, True), self)
        # Its next step ("review the n rules nobody has decided yet") follows every decision.
        self.tab_registry.register(self.welcome, "Welcome", index=0, focus=lambda: self.welcome.next_button,
                                   kinds={"decisions", "promotion", "replay", "corpora", "rules"},
                                   refresh=lambda: self.start.describe())
        self.welcome.workflow_chosen.connect(self._start_workflow)
        self.welcome.show_at_start_changed.connect(lambda on: settings.setValue(keys.KEY_WELCOME, on))
        self.start = StartFlow(self)

        self._build_actions()
        self._connect()
        self._show_store_path()
        self._show_reviewer(self.identity.name or "")
        self.model_label.set_full_text(self.replay.model_state)
        self.workspace.rules.set_repository(services.results)
        # Queued behind the first table pages (their reads start on the first turn, in this order).
        for read in (self.refresh_history, self.start.describe, self.bulk.refresh_duplicates):
            QTimer.singleShot(0, self, read)
        from cauterule_gui.loop.install import install_loop  # gate, injection, taint, new candidate (H15)

        self.loop = install_loop(self)
        self._restore_settings()
        self.integrity = StoreIntegrity(self)  # a big store's full check, off the GUI thread
        self.integrity.start()

    # -- construction ------------------------------------------------------------------
    def _action(self, text: str, slot: Callable[[], object], shortcut: QKeySequence | str | None = None,
                tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _build_actions(self) -> None:
        window_menus.build_actions(self)

    def _connect(self) -> None:
        self.navigator.corpus_selected.connect(self.table_panel.set_corpus)
        self.table_panel.trajectory_selected.connect(self.show_trajectory)
        for source in (self.importer, self.review, self.replay, self.bulk, self.whatif):
            source.status_message.connect(lambda text: self.statusBar().showMessage(text, 10_000))
        self.importer.import_started.connect(lambda _handle: self._set_store_actions_enabled(False))
        self.importer.import_done.connect(self._on_import_done)
        self.identity.changed.connect(self._show_reviewer)
        self.replay.replay_started.connect(lambda _r: self._set_store_actions_enabled(False))
        for panel in (self.workspace.rules, self.workspace.evidence):  # an empty Review tab says why
            self.replay.replay_started.connect(lambda _r, p=panel: p.set_replaying(True))
            self.replay.replay_done.connect(lambda p=panel: p.set_replaying(False))
        self.replay.results_arrived.connect(self._on_results_arrived)
        self.replay.replay_done.connect(self._on_replay_done)
        self.replay.model_state_changed.connect(self.model_label.set_full_text)
        # The Label tab's feedback words its semantic state like the status bar does.
        self.replay.model_state_changed.connect(lambda text: setattr(self.workflows.labelling, "window_model_state", text))
        self.replay.model_state_changed.connect(
            lambda text: self.workflows.model_ready(self._settings) if text.startswith("semantic matching ready") else None)
        self.workflows.remember_semantic_choice(self._settings)
        self.history.run_activated.connect(lambda run_id: self.workspace.rules.set_scope(WorkspaceScope(run_id=run_id)))
        self.workspace.rules.show_latest_requested.connect(lambda: self.workspace.rules.set_scope(WorkspaceScope()))
        hints = QGuiApplication.styleHints()
        hints.colorSchemeChanged.connect(lambda _scheme: self._on_colours_changed())

    @property
    def first_pages_loading(self) -> bool:
        """The corpora, trajectory and rules tables' first pages are still being read (off the GUI thread)."""
        return self.corpus_model.loading or self.trajectory_model.loading or self.rule_model.loading

    # -- behaviour ---------------------------------------------------------------------
    def _review_active(self) -> bool:
        return self.tabs.currentWidget() is self.workspace

    def show_trajectory(self, pk: int) -> None:
        self._corpus_pk = pk

        def shown(detail: object) -> None:
            if self._corpus_pk == pk:
                self.viewer.show_trajectory(detail)  # type: ignore[arg-type]

        if self.db.query(lambda s: s.corpora.get_trajectory(pk), shown, name="trajectory", key="corpus-viewer") is None:
            self.viewer.show_trajectory(None)

    def refresh_history(self) -> None:
        self.db.query(lambda s: s.replays.runs(), self.history.model.set_runs, name="run history", key="history")

    def _refresh_review(self) -> None:
        window_replay.refresh_review(self)

    def _refresh_corpus(self) -> None:
        self.corpus_model.refresh()
        self.trajectory_model.refresh()

    def _after_change(self, kinds: frozenset[str]) -> None:
        if "replay" in kinds or "corpora" in kinds:
            self.refresh_history()

    def show_review(self) -> None:
        self.tab_registry.show_tab(self.workspace)

    def _start_workflow(self, key: str) -> None:
        if key == "import":
            self.import_folder()
        elif key == "demo":
            self.start.open_demo_store()
        elif key == "replay":
            self.replay_everything()
            self.show_review()
        elif key == "review":
            self.show_review()
            self.db.query(lambda s: s.results.has_results(),  # none yet: they stream in as they finish
                          lambda has: None if has else self.replay_everything(), name="has results")
        elif key == "label":
            self.tab_registry.show_tab(self.workflows.labelling)
        elif key == "agreement":
            self.tab_registry.show_tab(self.workflows.agreement)

    def _show_rule_in_review(self, rule_id: int) -> None:
        self.show_review()
        self.workspace.rules.select_rule(rule_id)

    def show_shortcuts(self) -> None:
        """`?` / F1: the keys of the tab in front first, then the window's keys."""
        self.shortcuts_dialog = window_menus.show_shortcuts(self)

    def set_theme(self, name: str) -> None:
        theme.apply_choice(name)
        self._settings.setValue(keys.KEY_THEME, name)
        self.theme_actions[theme.THEMES.index(name)].setChecked(True)
        self._on_colours_changed()
        # Widgets receive the new palette through events: render the documents again once
        # they have it (else the viewer keeps light colours on a dark background).
        QTimer.singleShot(0, self._on_colours_changed)

    def refresh(self) -> None:
        """View ▸ Refresh (and a store switch): every tab reads the store again."""
        self._refresh_review()
        self._refresh_corpus()
        self.refresh_history()
        self.workflows.refresh()

    def replay_selection(self) -> None:
        self.workspace.rules.with_selected_rule_ids(  # a collapsed duplicate group: its members, read first
            lambda ids: self.replay.start(f"selection ({len(ids)} rule{'s' if len(ids) != 1 else ''})", ids))

    def replay_corpus(self) -> None:
        window_replay.replay_corpus(self)

    def replay_everything(self) -> None:
        self.replay.start("everything", None, materialise_expected=True)

    def _on_import_done(self) -> None:
        self._set_store_actions_enabled(True)
        self.refresh()  # an import changes every tab's rows

    def _on_colours_changed(self) -> None:
        self.workflows.colours_changed()
        self.rule_model.colours_changed()
        self.viewer.rerender()
        self.workspace.viewer.rerender()
        self.review.show_rule(self.review.rule)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._on_colours_changed()

    def _set_store_actions_enabled(self, enabled: bool) -> None:
        for action in (self.new_store_action, self.open_store_action, self.import_action):
            action.setEnabled(enabled)
        self.recent_menu.setEnabled(enabled)

    def import_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Import corpus folder")
        if folder:
            self.importer.start([Path(folder)])

    def new_store(self) -> None:
        window_store.new_store(self)

    def open_store(self) -> None:
        window_store.open_store(self)

    def _fill_recent_menu(self) -> None:
        window_store.fill_recent_menu(self)

    def switch_store(self, path: Path) -> bool:
        return window_store.switch_store(self, path)

    def _show_store_path(self) -> None:
        path = str(self.services.path) if self.services else "no store"
        self.store_label.set_full_text(f"Store: {path}")
        if self.services is not None:
            remember_store(self._settings, self.services.path)

    def _show_reviewer(self, name: str) -> None:
        self.reviewer_label.set_full_text(f"Reviewer: {name or '— (asked when you first open evidence or decide)'}")
        self.rule_model.set_reviewer(name or None)
        self.review.show_rule(self.workspace.rules.current_rule())

    def _warn(self, title: str, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Warning) -> None:
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.open()

    # -- settings ----------------------------------------------------------------------
    def _restore_settings(self) -> None:
        window_settings.restore_settings(self)

    def save_settings(self) -> None:
        window_settings.save_settings(self)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_settings()
        self.workflows.flush()  # the last typed label is committed before anything stops
        self.runner.shutdown()  # cancels; imports stop between files and keep what they wrote
        self.db.close()  # after the flush's write: nothing late reaches closed widgets
        self.replay.shutdown()  # the replay process quits (jobs using it have finished)
        for dialog in self.findChildren(QDialog):
            dialog.close()  # a dialog left open must not outlive its window
        super().closeEvent(event)
