"""How long until the window is usable on a big store: the real window, offscreen.

    QT_QPA_PLATFORM=offscreen python benchmarks/first_window.py STORE [--repeat N]

Times, from before the store is opened (the GUI's own path: file check, instance lock,
``open_store``, the window built and shown) until the rules table and the trajectory table
both show their first rows; then how long the background integrity check of a store over
``EAGER_CHECK_BYTES`` took after that (the window was usable meanwhile). The process's CPU
time (every thread) is printed at both points, and each job the window started (marked when before it was usable),
with when it started and how long it ran (``--jobs``). The GUI thread's longest stall is
printed too: the largest gap between two beats of a 5 ms timer, counted from just before
``MainWindow(...)`` (so building the window is a stall) until the tables are shown, and until
the check is done. Settings go to a
temporary folder. Each repeat is a new window in the same process (the first one also pays
the imports' first use).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from cauterule_gui.jobs import JobRunner  # noqa: E402
from cauterule_gui.main_window import MainWindow  # noqa: E402
from cauterule_gui.services import open_services  # noqa: E402
from cauterule_gui.settings import KEY_WELCOME  # noqa: E402


def wait_until(app: QApplication, done: object, timeout_s: float = 120.0) -> bool:
    end = time.perf_counter() + timeout_s
    while not done():  # type: ignore[operator]
        if time.perf_counter() > end:
            return False
        app.processEvents()
        time.sleep(0.002)
    return True


class Heartbeat:
    """The longest the GUI thread went without running its event loop: the largest gap between
    two beats of a 5 ms timer, from ``start`` on (``take`` closes the gap still open)."""

    def __init__(self, start: float) -> None:
        self.start = self.last = start
        self.longest, self.at = 0.0, 0.0
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._beat)
        self.timer.start()

    def _beat(self) -> None:
        now = time.perf_counter()
        if now - self.last > self.longest:
            self.longest, self.at = now - self.last, self.last - self.start
        self.last = now

    def take(self) -> tuple[float, float]:
        self._beat()
        return self.longest, self.at


class JobLog:
    """When each job started and finished (seconds from the window's start)."""

    def __init__(self, runner: JobRunner, t0: float) -> None:
        self.t0 = t0
        self.started: dict[object, tuple[str, float]] = {}
        self.ended: dict[object, float] = {}
        runner.job_started.connect(lambda h: self.started.__setitem__(h, (h.name, time.perf_counter() - t0)))
        runner.job_finished.connect(lambda h: self.ended.__setitem__(h, time.perf_counter() - t0))

    def lines(self, usable: float) -> list[str]:
        out = []
        for handle, (name, at) in sorted(self.started.items(), key=lambda kv: kv[1][1]):
            end = self.ended.get(handle)
            ran = f"ran {end - at:6.2f} s" if end is not None else "still running at close"
            out.append(f"    {'*' if at <= usable else ' '} {at:6.2f} s  {name:<32} {ran}")
        return out


def gate_scan(app: QApplication, window: MainWindow, seconds: float) -> None:
    """Show the Corpus tab (which starts the loop's gate scan), let it run, report its rate."""
    window.tabs.setCurrentWidget(window.splitter)
    wait_until(app, lambda: window.loop.scanning, 10)
    handle = window.loop._scan  # noqa: SLF001 - the benchmark reads the scan's progress
    seen: list[tuple[int, int]] = []
    if handle is not None:
        handle.progress.connect(lambda done, total, _m: seen.append((done, total)))
    c0, t0 = time.process_time(), time.perf_counter()
    wait_until(app, lambda: window.loop.data is not None, seconds)
    done, total = seen[-1] if seen else (0, 0)
    print(f"    gate scan (Corpus tab shown): {done:,} of {total:,} trajectories in {time.perf_counter() - t0:5.2f} s "
          f"(process CPU {time.process_time() - c0:5.2f} s); then the window is closed", flush=True)


def one_window(app: QApplication, store: Path, settings_dir: Path,
               jobs: bool = False, gate_seconds: float = 0.0) -> tuple[float, float, float, float]:
    settings = QSettings(str(settings_dir / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue(KEY_WELCOME, False)
    runner = JobRunner()
    c0 = time.process_time()
    t0 = time.perf_counter()
    log = JobLog(runner, t0)
    services = open_services(store)
    opened = time.perf_counter() - t0
    beat = Heartbeat(time.perf_counter())
    window = MainWindow(services, runner, settings, open_services)
    window.show()
    built = time.perf_counter() - beat.start
    ok = wait_until(app, lambda: window.rule_model.rowCount() > 0 and window.trajectory_model.rowCount() > 0)
    usable = time.perf_counter() - t0
    cpu_usable = time.process_time() - c0
    stall_usable, stall_at = beat.take()
    wait_until(app, lambda: not window.integrity.running, 600)
    checked = time.perf_counter() - t0
    stall_all, stall_all_at = beat.take()
    beat.timer.stop()
    print(f"    GUI thread: window built and shown in {built:5.3f} s; longest stall until the tables were shown "
          f"{stall_usable:5.3f} s (from {stall_at:5.2f} s), until the check was done {stall_all:5.3f} s "
          f"(from {stall_all_at:5.2f} s)", flush=True)
    damaged = window.integrity.banner.isVisible()
    if gate_seconds:
        gate_scan(app, window, gate_seconds)
    closing = time.perf_counter()
    window.close()  # runner.shutdown(10 s): every job must stop on cancel well within it
    stopped = runner.shutdown(600_000)
    print(f"    closed: every job stopped {time.perf_counter() - closing:5.2f} s after close"
          + ("" if stopped else " (NOT within the wait)"))
    services.close()
    window.deleteLater()
    app.processEvents()
    if jobs:
        print("    jobs the window started (* before it was usable), seconds from the start:")
        print("\n".join(log.lines(usable)))
    if not ok:
        raise SystemExit("the tables did not fill within 120 s")
    if damaged:
        print("  the background check found damage: " + window.integrity.label.text())
    return opened, usable, checked, cpu_usable


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--gate-seconds", type=float, default=0.0,
                    help="after the check, show the Corpus tab for this long (the gate scan runs), then close")
    ap.add_argument("--jobs", action="store_true", help="list the jobs the window started")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication(["first_window"])
    size = args.store.stat().st_size
    print(f"first window on {args.store} ({size / 1e6:,.0f} MB)", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        for i in range(args.repeat):
            c0 = time.process_time()
            opened, usable, checked, cpu = one_window(app, args.store, Path(folder), args.jobs, args.gate_seconds)
            print(f"  window {i + 1}: store opened {opened:6.2f} s; rules and trajectories shown {usable:6.2f} s "
                  f"(process CPU, all threads: {cpu:5.2f} s by then, {time.process_time() - c0:5.2f} s incl. "
                  f"the check); background integrity check done at {checked:6.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
