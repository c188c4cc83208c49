"""The full integrity check of a big store, run after the window opened, off the GUI thread.

Opening checks only what costs a few pages (``core.store.store_file``): a store file bigger
than ``EAGER_CHECK_BYTES`` gets SQLite's full ``quick_check`` here, on the runner's read pool,
so the first window is not held up by reading every page (about 6 s at 760 MB). Damage it
finds is shown in a banner across the top of the window, in plain text, with what to do.
Switching stores or closing the window cancels a check still running (it polls the job's
cancel flag), so it never holds up either. A PostgreSQL store is the server's to check.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QToolBar

from core.store import store_file
from core.store.store_file import integrity_problem

from cauterule_gui.jobs.runner import JobContext, JobHandle, JobPool
from cauterule_gui.plain_text import plain_label

if TYPE_CHECKING:
    from cauterule_gui.main_window import MainWindow

BANNER_STYLE = "QLabel { background: #b00020; color: white; padding: 6px; font-weight: bold; }"


def damage_text(path: Path, problem: str) -> str:
    return (f"This store is damaged: {path} (integrity check: {problem}). What it shows may be wrong "
            "or missing, and writing to it may make the damage worse. Close it and restore it from a "
            "backup, or open another store (File ▸ Open store…).")


class StoreIntegrity(QObject):
    """Owns the window's background check and its damage banner (hidden until damage is found)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self._handle: JobHandle | None = None
        self.banner = QToolBar("Store damage", window)
        self.banner.setObjectName("storeDamageBanner")
        self.banner.setMovable(False)
        self.banner.setFloatable(False)
        self.label = plain_label("", self.banner)
        self.label.setObjectName("storeDamageText")
        self.label.setWordWrap(True)
        self.label.setStyleSheet(BANNER_STYLE)
        self.banner.addWidget(self.label)
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.banner)
        self.banner.hide()

    @property
    def running(self) -> bool:
        return self._handle is not None and self._handle.running

    def start(self) -> None:
        """Check the window's store in the background if opening did not already read it all."""
        self.stop()
        self.banner.hide()
        services = self._window.services
        if services is None or services.store.is_postgres:
            return
        path = Path(services.path)
        try:
            size = path.stat().st_size
        except OSError:
            return
        if size <= store_file.EAGER_CHECK_BYTES:
            return  # read in full by the open itself

        def check(ctx: JobContext) -> str | None:
            return integrity_problem(path, cancelled=lambda: ctx.cancelled)

        handle = self._window.runner.submit(check, name="check store", pool=JobPool.READ, key="store-integrity")
        handle.result.connect(lambda problem, checked=path: self._checked(checked, problem))
        self._handle = handle

    def stop(self) -> None:
        """Cancel a check still running (before a store switch or the window closing)."""
        if self._handle is not None and self._handle.running:
            self._handle.supersede()
        self._handle = None

    def _checked(self, path: Path, problem: object) -> None:
        services = self._window.services
        if problem is None or services is None or Path(services.path) != path:
            return  # sound, or a store the window no longer shows
        self.label.setText(damage_text(path, str(problem)))
        self.banner.show()
        self._window.statusBar().showMessage(f"The store {path} is damaged: see the banner", 15_000)
