"""``cauterule-gui --self-test``: prove that this installation works, end to end, offscreen.

Opens a fresh temporary store, imports the bundled demo corpus, replays it with the
``reference-0.3.1`` profile (in this process, then through the window's replay helper
process) and then with the ``workbench`` profile and the bundled embedding model, renders
the main window offscreen, optionally saves a screenshot, prints a short
report and returns 0 (all good) or 1 (the first failure, with the reason). Nothing outside
the temporary folder is read or written except the bundled files: the window gets its own
settings file there, so the user's settings are untouched.

"Semantic unavailable" is a failure here: a packaged app without its model is broken, even
though the app itself degrades honestly and keeps working lexically.

Bundled files are found from the source tree, an installed wheel and a frozen (PyInstaller)
app the same way: ``bundle_root()`` is the project root from source, ``cauterule_gui/bundle``
in a wheel and ``sys._MEIPASS`` when frozen, and each holds ``corpora/demo`` and ``resources/``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1
DEMO_TRAJECTORIES = 43  # corpora/demo/README.md


# -- bundled files ----------------------------------------------------------------------
def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False)) and hasattr(sys, "_MEIPASS")


def bundle_root() -> Path:
    """The unpacked bundle (``sys._MEIPASS``) when frozen; ``cauterule_gui/bundle`` in an
    installed wheel (``setup.py`` copies the data there); the project root from source."""
    if is_frozen():
        return Path(sys._MEIPASS)  # type: ignore[attr-defined]
    installed = Path(__file__).resolve().parent / "bundle"
    if (installed / "resources").is_dir():
        return installed
    return Path(__file__).resolve().parent.parent


def demo_corpus_path() -> Path:
    return bundle_root() / "corpora" / "demo"


def resources_path() -> Path:
    return bundle_root() / "resources"


def icon_path(size: int | None = None) -> Path:
    """The application icon: the SVG, or the PNG rendered at ``size`` pixels."""
    hicolor = resources_path() / "icons" / "hicolor"
    if size is None:
        return hicolor / "scalable" / "apps" / "cauterule-workbench.svg"
    return hicolor / f"{size}x{size}" / "apps" / "cauterule-workbench.png"


# -- the report -------------------------------------------------------------------------
class SelfTestFailure(Exception):
    """One step failed; the message says what and why."""


@dataclass
class SelfTestReport:
    lines: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    def step(self, name: str, action: Callable[[], str | None]) -> None:
        started = time.perf_counter()
        try:
            detail = action()
        except SelfTestFailure as failure:
            self.lines.append(f"  {name:<13} FAILED  {failure}")
            raise SelfTestFailure(f"{name}: {failure}") from failure
        except Exception as error:  # an unexpected crash is a failed step, reported as such
            self.lines.append(f"  {name:<13} FAILED  {type(error).__name__}: {error}")
            raise SelfTestFailure(f"{name}: {type(error).__name__}: {error}") from error
        seconds = time.perf_counter() - started
        self.timings[name] = seconds
        if detail is None:
            self.lines.append(f"  {name:<13} skipped (not in this version)")
            return
        self.lines.append(f"  {name:<13} ok      {detail} ({seconds:.2f} s)")


def memory_mb() -> tuple[float | None, float | None]:
    """(current RSS, peak RSS) in MB from /proc (Linux); (None, None) elsewhere."""
    values: dict[str, float] = {}
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(rest.split()[0]) / 1024
    except OSError:
        return None, None
    return values.get("VmRSS"), values.get("VmHWM")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="cauterule-gui --self-test",
                                     description="Check this installation end to end, offscreen.")
    parser.add_argument("--self-test", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--screenshot", type=Path, default=None, metavar="PNG",
                        help="also save the rendered window to PNG")
    parser.add_argument("--keep", action="store_true", help="keep the temporary store and print its path")
    return parser.parse_args(list(argv))


# -- the steps --------------------------------------------------------------------------
def _check(condition: bool, message: str) -> None:
    if not condition:
        raise SelfTestFailure(message)


def _replay_detail(summary: Any) -> str:
    verdicts = Counter(r.verdict for r in summary.results)
    counts = ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items()))
    return (f"run #{summary.run_id} {summary.status}, {len(summary.results)} rules x "
            f"{len(summary.inputs.trajectories)} trajectories, semantic {summary.semantic_state}; {counts}")


class _SelfTest:
    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.args = args
        self.workdir = workdir
        self.services: Any = None
        self.embedder: Any = None
        self.app: Any = None
        self.runner: Any = None
        self.window: Any = None

    def open_store(self) -> str:
        from cauterule_gui.services import open_services

        path = self.workdir / "self-test.sqlite"
        self.services = open_services(path)
        _check(not self.services.corpora.list_corpora(), f"the fresh store {path} is not empty")
        return str(path)

    def import_demo(self) -> str:
        from core.importing import import_paths

        demo = demo_corpus_path()
        _check(demo.is_dir(), f"demo corpus not found at {demo} (bundle root {bundle_root()})")
        summary = import_paths(self.services.store, [demo])
        _check(summary.imported == DEMO_TRAJECTORIES,
               f"imported {summary.imported} trajectories from {demo}, expected {DEMO_TRAJECTORIES}")
        _check(summary.rejected == 0, f"{summary.rejected} demo records were rejected: {summary.issues[:3]}")
        _check(summary.rules_imported > 0, "no rules were imported from the demo corpus")
        return (f"{summary.imported} trajectories, {summary.rules_imported} rules, "
                f"{len(summary.corpora)} corpora from {demo}")

    def replay_reference(self) -> str:
        from core.replay.profiles import profile_by_name
        from core.replaying import run_replay

        summary = run_replay(self.services.store, profile_by_name("reference-0.3.1"))
        _check(summary.status == "complete", f"reference replay ended {summary.status}")
        _check(bool(summary.results), "reference replay produced no rule results")
        _check(summary.semantic_state == "off", f"reference replay semantic state is {summary.semantic_state}")
        return _replay_detail(summary)

    def replay_process(self) -> str | None:
        """Replay through the window's helper process, started the way the window starts it
        (``sys.executable -m cauterule_gui.replay_server``): in a frozen app that is the app
        itself, so this is what proves the bundle can start its own helper."""
        try:
            from cauterule_gui.jobs.replay_process import ReplayProcess
        except ImportError:
            return None  # this version of the window replays in-process
        from core.replay.messages import Finished, RunReplay

        process = ReplayProcess()
        done: Finished | None = None
        request = RunReplay(store=str(self.services.path), profile="reference-0.3.1", semantic=False, rule_ids=None,
                            materialise=False, scope="self-test")
        try:
            with process.lease() as worker:
                for reply in worker.replies(request):
                    if isinstance(reply, Finished):
                        done = reply
        except Exception as error:  # the helper's own failure, reported as the step's result
            raise SelfTestFailure(str(error)) from error
        finally:
            process.stop()
        _check(done is not None and done.status == "complete",
               f"the replay process ended {done.status if done else 'without a result'!r}")
        assert done is not None
        return f"run #{done.run_id} {done.status}, {done.rules} rules in the helper process"

    def load_model(self) -> str:
        from core.replaying import make_embedder

        self.embedder, why = make_embedder(self.services.store)
        if self.embedder is None:
            raise SelfTestFailure(f"semantic unavailable: {why}")
        return f"{self.embedder.model_id} from {self.embedder.embedder.model_path}"

    def replay_workbench(self) -> str:
        from core.replay.profiles import profile_by_name
        from core.replaying import run_replay

        summary = run_replay(self.services.store, profile_by_name("workbench"), embedder=self.embedder)
        _check(summary.status == "complete", f"workbench replay ended {summary.status}")
        _check(summary.semantic_state == "on", f"semantic unavailable: the run's semantic state is "
                                              f"{summary.semantic_state!r}")
        _check(self.embedder.stats.embedded > 0, "the model embedded nothing")
        return _replay_detail(summary) + f"; {self.embedder.stats.embedded} texts embedded"

    def render_window(self) -> str:
        from PySide6.QtCore import QSettings
        from PySide6.QtWidgets import QApplication

        from cauterule_gui.jobs import JobRunner
        from cauterule_gui.main_window import MainWindow
        from cauterule_gui.services import open_services
        from cauterule_gui.settings import configure_application_names

        self.app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "cauterule-gui"])
        configure_application_names()
        # The window saves its geometry on close: give it a settings file of its own.
        settings = QSettings(str(self.workdir / "settings.ini"), QSettings.Format.IniFormat)
        self.runner = JobRunner()
        self.window = MainWindow(self.services, self.runner, settings, open_services)
        review = getattr(self.window, "review", None)
        if review is not None and hasattr(review, "interactive"):
            review.interactive = False  # never open a modal dialog in a self-test
        self.window.show()
        for _ in range(5):
            QApplication.processEvents()
        # The first pages are read off the GUI thread: let them arrive before the picture.
        deadline = time.monotonic() + 30
        while getattr(self.window, "first_pages_loading", False) and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.01)
        _check(self.window.isVisible(), "the main window did not become visible")
        corpora = self.window.corpus_model.rowCount() if hasattr(self.window, "corpus_model") else None
        _check(corpora is None or corpora > 0, "the window lists no corpora after the import")
        image = self.window.grab().toImage()
        _check(not image.isNull() and image.width() > 0, "the window rendered an empty image")
        shown = f", {corpora} corpora listed" if corpora is not None else ""
        platform = self.app.platformName()
        return f"{image.width()}x{image.height()} on '{platform}'{shown}"

    def save_screenshot(self) -> str:
        from cauterule_gui.app import save_screenshot  # the same picture as `cauterule-gui --screenshot`

        path: Path = self.args.screenshot
        _check(save_screenshot(self.window, path), f"could not write {path}")
        return str(path)

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
        if self.runner is not None:
            self.runner.shutdown()
        if self.window is not None:
            services = getattr(self.window, "services", None)
            if services is not None and services is not self.services:
                services.close()
            self.window.deleteLater()
        if self.services is not None:
            self.services.close()


def run_self_test(argv: Sequence[str] | None = None) -> int:
    """Run every step; print the report; 0 when all passed, 1 at the first failure."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # the self-test never shows a window
    started = time.perf_counter()
    mode = "frozen" if is_frozen() else "installed" if bundle_root().name == "bundle" else "source"
    print(f"CauterRule Workbench self-test ({mode}; bundle {bundle_root()})", flush=True)
    report = SelfTestReport()
    workdir = Path(tempfile.mkdtemp(prefix="cauterule-self-test-"))
    test = _SelfTest(args, workdir)
    failure: SelfTestFailure | None = None
    try:
        report.step("fresh store", test.open_store)
        report.step("import demo", test.import_demo)
        report.step("replay ref", test.replay_reference)
        report.step("replay proc", test.replay_process)
        report.step("load model", test.load_model)
        report.step("replay wb", test.replay_workbench)
        report.step("render window", test.render_window)
        if args.screenshot is not None:
            report.step("screenshot", test.save_screenshot)
    except SelfTestFailure as error:
        failure = error
    finally:
        test.close()
        print("\n".join(report.lines), flush=True)
        if args.keep:
            print(f"  kept {workdir}")
        else:
            _remove_tree(workdir)
    rss, peak = memory_mb()
    memory = f"; RSS {rss:.0f} MB, peak {peak:.0f} MB" if rss is not None and peak is not None else ""
    elapsed = time.perf_counter() - started
    if failure is not None:
        print(f"self-test FAILED after {elapsed:.1f} s: {failure}", file=sys.stderr, flush=True)
        return EXIT_FAILED
    print(f"self-test passed in {elapsed:.1f} s{memory}", flush=True)
    return EXIT_OK


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(run_self_test())
