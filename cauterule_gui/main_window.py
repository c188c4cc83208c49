"""The main window: layout and action wiring only. Panels and models do the work."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QSplitter, QWidget

from cauterule_gui import settings as keys
from cauterule_gui.import_controller import ImportController
from cauterule_gui.jobs import JobRunner
from cauterule_gui.models.corpus_table_model import CorpusTableModel
from cauterule_gui.models.trajectory_table_model import TrajectoryTableModel
from cauterule_gui.panels.corpus_navigator import CorpusNavigatorPanel
from cauterule_gui.panels.import_dialogs import JobProgressWidget
from cauterule_gui.panels.trajectory_table import TrajectoryTablePanel
from cauterule_gui.panels.trajectory_viewer import TrajectoryViewerPanel
from cauterule_gui.plain_text import plain_label
from cauterule_gui.services import STORE_ERRORS, StoreServices, describe_store_error

STORE_FILTER = "Workbench store (*.sqlite *.db);;All files (*)"
DEFAULT_SIZES = (330, 790, 440)


class MainWindow(QMainWindow):
    def __init__(self, services: StoreServices, runner: JobRunner, settings: QSettings,
                 open_services: Callable[[Path], StoreServices], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services: StoreServices | None = services
        self.runner = runner
        self._settings = settings
        self._open_services = open_services
        self.setWindowTitle("CauterRule Workbench")

        self.corpus_model = CorpusTableModel(services.corpora, self)
        self.trajectory_model = TrajectoryTableModel(services.corpora, self)
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
        self.setCentralWidget(self.splitter)

        self.store_label = plain_label("", self)
        self.store_label.setObjectName("storePath")
        self.progress = JobProgressWidget(self)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.store_label)
        self.importer = ImportController(runner, lambda: self.services, self.progress, self)

        self._build_actions()
        self._connect()
        self._show_store_path()
        self._restore_settings()

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
        std = QKeySequence.StandardKey
        self.new_store_action = self._action("&New store…", self.new_store, std.New, "Create an empty store")
        self.open_store_action = self._action("&Open store…", self.open_store, std.Open, "Open another store")
        self.import_action = self._action("&Import corpus folder…", self.import_folder, "Ctrl+I",
                                          "Import CauterRule trajectories and rules from a folder")
        self.quit_action = self._action("&Quit", self.close, std.Quit)
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.find_action = self._action("&Filter trajectories", self.table_panel.focus_filter, std.Find)
        self.refresh_action = self._action("&Refresh", self.refresh, std.Refresh)
        self.newlines_action = QAction("Show \\n as &line breaks", self)
        self.newlines_action.setCheckable(True)
        self.newlines_action.setShortcut(QKeySequence("Ctrl+L"))
        self.newlines_action.toggled.connect(self.viewer.set_literal_newlines)
        self.viewer.literal_newlines_changed.connect(self.newlines_action.setChecked)

        file_menu = self.menuBar().addMenu("&File")
        for action in (self.new_store_action, self.open_store_action, None, self.import_action, None,
                       self.quit_action):
            file_menu.addSeparator() if action is None else file_menu.addAction(action)
        edit_menu = self.menuBar().addMenu("&Edit")
        edit_menu.addAction(self.find_action)
        view_menu = self.menuBar().addMenu("&View")
        view_menu.addAction(self.refresh_action)
        view_menu.addAction(self.newlines_action)

    def _connect(self) -> None:
        self.navigator.corpus_selected.connect(self.table_panel.set_corpus)
        self.table_panel.trajectory_selected.connect(self.show_trajectory)
        self.importer.status_message.connect(lambda text: self.statusBar().showMessage(text, 10_000))
        self.importer.import_started.connect(lambda _handle: self._set_store_actions_enabled(False))
        self.importer.import_done.connect(self._on_import_done)

    # -- behaviour ---------------------------------------------------------------------
    def show_trajectory(self, pk: int) -> None:
        detail = self.services.corpora.get_trajectory(pk) if self.services else None
        self.viewer.show_trajectory(detail)

    def refresh(self) -> None:
        self.corpus_model.refresh()
        self.trajectory_model.refresh()

    def _on_import_done(self) -> None:
        self._set_store_actions_enabled(True)
        self.refresh()

    def _set_store_actions_enabled(self, enabled: bool) -> None:
        for action in (self.new_store_action, self.open_store_action, self.import_action):
            action.setEnabled(enabled)

    def import_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Import corpus folder")
        if folder:
            self.importer.start([Path(folder)])

    def new_store(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "New store", "workbench.sqlite", STORE_FILTER,
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if not name:
            return
        if Path(name).exists():
            self._warn("Store exists", f"{name}\nalready exists. Use File ▸ Open store… to open it.")
            return
        self.switch_store(Path(name))

    def open_store(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Open store", "", STORE_FILTER)
        if name:
            self.switch_store(Path(name))

    def switch_store(self, path: Path) -> bool:
        if self.runner.is_busy():
            self._warn("Work in progress", "Wait for the running job to finish (or cancel it) first.")
            return False
        try:
            services = self._open_services(path)
        except (*STORE_ERRORS, OSError) as error:
            self._warn(*describe_store_error(error, path), icon=QMessageBox.Icon.Critical)
            return False
        previous, self.services = self.services, services
        self.corpus_model.set_repository(services.corpora)
        self.trajectory_model.set_repository(services.corpora)
        self.viewer.show_trajectory(None)
        self._show_store_path()
        if previous is not None:
            previous.close()
        return True

    def _show_store_path(self) -> None:
        path = str(self.services.path) if self.services else "no store"
        self.store_label.setText(f"Store: {path}")
        self.store_label.setToolTip(None)

    def _warn(self, title: str, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Warning) -> None:
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.open()

    # -- settings ----------------------------------------------------------------------
    def _restore_settings(self) -> None:
        geometry = keys.read_bytes(self._settings, keys.KEY_GEOMETRY)
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1560, 900)
        splitter = keys.read_bytes(self._settings, keys.KEY_SPLITTER)
        if splitter is not None:
            self.splitter.restoreState(splitter)
        self.table_panel.restore_header_state(keys.read_bytes(self._settings, keys.KEY_TABLE_HEADER))
        self.viewer.set_literal_newlines(keys.read_bool(self._settings, keys.KEY_LITERAL_NEWLINES))

    def save_settings(self) -> None:
        self._settings.setValue(keys.KEY_GEOMETRY, self.saveGeometry())
        self._settings.setValue(keys.KEY_SPLITTER, self.splitter.saveState())
        self._settings.setValue(keys.KEY_TABLE_HEADER, self.table_panel.header_state())
        self._settings.setValue(keys.KEY_LITERAL_NEWLINES, self.viewer.literal_newlines)
        self._settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_settings()
        self.runner.shutdown()  # cancels; imports stop between files and keep what they wrote
        super().closeEvent(event)
