"""Opening, creating and switching the main window's store (with the Open Recent menu)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEventLoop
from PySide6.QtWidgets import (
    QFileDialog,
    QMessageBox,
)

from cauterule_gui import session_state, window_settings
from cauterule_gui.live_changes import install_live_changes
from cauterule_gui.recent_stores import recent_stores
from cauterule_gui.services import STORE_ERRORS, describe_store_error

if TYPE_CHECKING:
    from cauterule_gui.main_window import MainWindow

STORE_FILTER = "Workbench store (*.sqlite *.db);;All files (*)"


def new_store(window: MainWindow) -> None:
    """Ask for a new store's file and open it (an existing file is refused)."""
    name, _ = QFileDialog.getSaveFileName(window, "New store", "workbench.sqlite", STORE_FILTER,
                                          options=QFileDialog.Option.DontConfirmOverwrite)
    if not name:
        return
    if Path(name).exists():
        window._warn("Store exists", f"{name}\nalready exists. Use File ▸ Open store… to open it.")
        return
    window.switch_store(Path(name))


def open_store(window: MainWindow) -> None:
    """Ask for a store file and open it."""
    name, _ = QFileDialog.getOpenFileName(window, "Open store", "", STORE_FILTER)
    if name:
        window.switch_store(Path(name))


def fill_recent_menu(window: MainWindow) -> None:
    """List the recent stores other than the open one."""
    window.recent_menu.clear()
    current = window.services.path.resolve() if window.services else None
    paths = [p for p in recent_stores(window._settings) if p.resolve() != current]
    for path in paths:
        action = window.recent_menu.addAction(str(path))
        action.triggered.connect(lambda _c=False, p=path: window.switch_store(p))
    if not paths:
        window.recent_menu.addAction("No other recent stores").setEnabled(False)


def switch_store(window: MainWindow, path: Path) -> bool:
    """Open the store at ``path`` in place of the current one; False (with a message) when refused."""
    window.workflows.flush()  # a typed label is saved to the store it was typed in
    session_state.remember(window, window._settings)  # each store resumes where it was left
    window.integrity.stop()  # a background check of the old store must not hold up the switch
    window.loop.stop()  # nor the loop's gate scan of the old store (it stops within one chunk)
    for _ in range(5):
        # A finished job's signals are still queued (and a read may start the next read,
        # e.g. the Label tab's filters then its list): deliver them, so quick reads that
        # just ended do not count as "work in progress".
        window.runner.wait_for_done(5000)
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
        if not window.runner.is_busy():
            break
    if window.runner.is_busy():
        window._warn("Work in progress", "Wait for the running job to finish (or cancel it) first.")
        window.integrity.start()
        return False
    try:
        services = window._open_services(path)
    except (*STORE_ERRORS, OSError) as error:
        window._warn(*describe_store_error(error, path), icon=QMessageBox.Icon.Critical)
        window.integrity.start()  # the current store stays: finish its check
        return False
    previous, window.services = window.services, services
    window.identity.follow_store(services.login)
    window.corpus_model.set_repository(services.corpora)
    window.trajectory_model.set_repository(services.corpora)
    window.viewer.show_trajectory(None)
    window.workspace.rules.set_repository(services.results)
    window.blind.store_switched()  # the new store's blind sessions (nothing revealed there yet)
    window.refresh_history()  # off the GUI thread
    window._show_store_path()
    window.workflows.store_switched(services)
    window.start.describe()
    window.bulk.refresh_duplicates()
    if not session_state.restore(window, window._settings):
        window_settings.open_results_tab(window)  # asks the store off the GUI thread
    install_live_changes(window)  # a team store: follow its changes; the old store's feed stops
    if previous is not None:
        previous.close()
    window.integrity.start()  # a big store's full integrity check, in the background
    return True
