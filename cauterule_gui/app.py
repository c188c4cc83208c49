"""Composition root: ``cauterule-gui [--store DB] [--screenshot PNG]``.

Builds the application, the job runner, the store services and the window. A store without
corpora stays empty: the welcome page offers to import a corpus or to open the demo store
(its own file; the demo is never imported into a reviewer's store).
``--screenshot`` renders the window once loading has finished, saves it and exits.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from core.plain import terminal_safe
from core.store.engine import default_store_path, store_location

from cauterule_gui.jobs import JobRunner
from cauterule_gui.live_changes import install_live_changes
from cauterule_gui.main_window import MainWindow
from cauterule_gui.screenshot import show_review_example
from cauterule_gui.services import STORE_ERRORS, StoreServices, describe_store_error, open_services
from cauterule_gui.settings import configure_application_names, make_settings

EXIT_OK = 0
EXIT_ERROR = 1
SCREENSHOT_TIMEOUT_MS = 120_000


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="cauterule-gui", description="CauterRule Workbench")
    parser.add_argument("--store", type=store_location, default=None,
                        help=f"store file or postgresql:// URL (default: {default_store_path()})")
    parser.add_argument("--screenshot", type=Path, default=None, metavar="PNG",
                        help="render the window after loading, save it to PNG and exit")
    parser.add_argument("--self-test", action="store_true",
                        help="check this installation offscreen (fresh temporary store, demo corpus, replay "
                             "with the bundled model, window) and exit 0 or 1")
    return parser.parse_args(argv)


def _set_window_icon(app: QApplication) -> None:
    from PySide6.QtGui import QGuiApplication, QIcon

    from cauterule_gui.self_test import icon_path

    icon = QIcon()
    for size in (16, 32, 48, 64, 128, 256, 512):
        path = icon_path(size)
        if path.is_file():
            icon.addFile(str(path))
    app.setWindowIcon(icon)
    QGuiApplication.setDesktopFileName("cauterule-workbench")


def _application() -> QApplication:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    return QApplication([sys.argv[0] if sys.argv else "cauterule-gui"])


def _report_store_error(error: BaseException, path: Path, interactive: bool) -> None:
    title, text = describe_store_error(error, path)
    print(terminal_safe(f"cauterule-gui: {title}: {error}"), file=sys.stderr)
    if interactive:
        box = QMessageBox(QMessageBox.Icon.Critical, title, text, QMessageBox.StandardButton.Close)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.exec()


def _confirm_new_store(path: Path) -> bool:
    """Ask before a store named on the command line that does not exist is created."""
    box = QMessageBox(QMessageBox.Icon.Question, "No store there",
                      f"There is no store at\n{path}\n\nCreate a new, empty store there?",
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    return box.exec() == QMessageBox.StandardButton.Yes


def _wait_until_idle(runner: JobRunner, timeout_ms: int) -> bool:
    """Run the event loop until no job is active (signals delivered) or the timeout passes."""
    if not runner.is_busy():
        return True
    loop = QEventLoop()
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)

    def _check(_handle: object) -> None:
        if not runner.is_busy():
            loop.quit()

    runner.job_finished.connect(_check)
    timer.start(timeout_ms)
    loop.exec()
    runner.job_finished.disconnect(_check)
    return not runner.is_busy()


def save_screenshot(window: MainWindow, path: Path) -> bool:
    if window.services is not None and window.services.results.has_results():
        show_review_example(window)
    elif window.table_panel.current_pk() is None:
        window.table_panel.select_row(0)  # show the viewer with content, not the placeholder
    for _ in range(3):
        QApplication.processEvents()
    path.parent.mkdir(parents=True, exist_ok=True)
    return window.grab().save(str(path), "PNG")


def main(argv: Sequence[str] | None = None) -> int:
    raw = list(sys.argv[1:] if argv is None else argv)
    if "--self-test" in raw:
        from cauterule_gui.self_test import run_self_test

        return run_self_test(raw)  # before any QApplication exists: it forces offscreen
    args = parse_args(raw)
    app = _application()
    configure_application_names()
    _set_window_icon(app)
    store_path = (args.store or default_store_path()).expanduser()
    interactive = args.screenshot is None
    if interactive and args.store is not None and not store_path.exists() and not _confirm_new_store(store_path):
        # A mistyped --store is not silently a new empty store (the CLI's read commands refuse
        # it; the window asks, since it can start a store as `import` does).
        print(terminal_safe(f"cauterule-gui: no store at {store_path}; nothing was created"), file=sys.stderr)
        return EXIT_ERROR
    try:
        services: StoreServices = open_services(store_path)
    except (*STORE_ERRORS, OSError) as error:
        _report_store_error(error, store_path, interactive)
        return EXIT_ERROR

    runner = JobRunner()
    # A screenshot neither reads nor writes the user's settings: it always shows the defaults.
    scratch = tempfile.TemporaryDirectory(prefix="cauterule-gui-") if not interactive else None
    settings = (QSettings(str(Path(scratch.name) / "settings.ini"), QSettings.Format.IniFormat)
                if scratch is not None else make_settings())
    if scratch is not None:
        # A screenshot shows the loaded store (the Review tab when replay has run), not the welcome page.
        from cauterule_gui.settings import KEY_WELCOME

        settings.setValue(KEY_WELCOME, False)
    window = MainWindow(services, runner, settings, open_services)
    live = install_live_changes(window)  # a team store: other reviewers' changes appear as they commit
    try:
        window.review.interactive = interactive
        window.start.interactive = interactive
        window.show()
        window.replay.load_model()  # in the background: the window is usable meanwhile
        if not interactive:
            if not _wait_until_idle(runner, SCREENSHOT_TIMEOUT_MS):
                print("cauterule-gui: loading did not finish in time", file=sys.stderr)
                return EXIT_ERROR
            if not save_screenshot(window, args.screenshot):
                print(f"cauterule-gui: could not write {args.screenshot}", file=sys.stderr)
                return EXIT_ERROR
            return EXIT_OK
        return int(app.exec())
    finally:
        live = getattr(window, "_live_changes", None) or live  # the store shown last (it may have switched)
        if live is not None:
            live.stop()
        window.close()  # saves settings and stops jobs (cancel + wait)
        runner.shutdown()
        if window.services is not None:
            window.services.close()
        window.deleteLater()
        if scratch is not None:
            scratch.cleanup()


if __name__ == "__main__":
    sys.exit(main())
