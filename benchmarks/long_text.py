"""How long the GUI thread is busy while the viewer opens a 10 MB unbroken field (defect 11).

    QT_QPA_PLATFORM=offscreen PYTHONPATH=. python benchmarks/long_text.py [--repeat 3]

The figures tests/gui/test_long_text.py used to bound (issue 29 moved the bound here; the test
now checks, without a clock, that the document is built in slices while the event loop turns):
the time ``show_trajectory`` takes to return with the shortened view, and, while the shortened
and then the full document are built, the GUI thread's longest stretch of its own CPU time
(``time.thread_time``: what the thread did, not what a loaded machine's scheduler added) and
the longest wall gap between two beats of a 5 ms timer. Each attempt prints one line; the
exit code is 0 when the best attempt keeps the former bounds (open < 100 ms, busy < 100 ms,
wall gap < 300 ms).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.importing import import_paths  # noqa: E402

from cauterule_gui.panels.trajectory_viewer import TrajectoryViewerPanel  # noqa: E402
from cauterule_gui.services import open_services  # noqa: E402

TEN_MB = 10 * 1024 * 1024


class Heartbeat:
    """A 5 ms timer on the GUI thread recording the longest wall gap and GUI-thread CPU stretch."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.longest_busy = 0.0
        self._last, self._last_cpu = time.perf_counter(), time.thread_time()
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.longest = max(self.longest, now - self._last)
        self.longest_busy = max(self.longest_busy, cpu - self._last_cpu)
        self._last, self._last_cpu = now, cpu

    def start(self) -> None:
        self._last, self._last_cpu = time.perf_counter(), time.thread_time()
        self.timer.start()


def spin_until(condition: object, timeout_s: float = 300.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():  # type: ignore[operator]
        loop = QEventLoop()
        QTimer.singleShot(5, loop.quit)
        loop.exec()
        if time.monotonic() > deadline:
            raise SystemExit("the viewer did not finish the document")


def attempt(detail: object) -> tuple[float, float, float]:
    viewer = TrajectoryViewerPanel()
    viewer.resize(900, 700)
    viewer.show()
    beat = Heartbeat()
    beat.start()
    started = time.perf_counter()
    viewer.show_trajectory(detail)  # type: ignore[arg-type]
    opened = time.perf_counter() - started
    spin_until(lambda: viewer.is_complete)
    viewer.show_all_button.click()
    spin_until(lambda: viewer.is_complete)
    beat.timer.stop()
    viewer.close()
    viewer.deleteLater()
    return opened, beat.longest_busy, beat.longest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "long" / "failures"
        folder.mkdir(parents=True)
        record = {"trajectory_id": "LONG-1", "timestamp": "2026-01-01T00:00:00+00:00", "task": "x" * TEN_MB,
                  "steps": [{"step_number": 1, "tool": "shell", "input": "ls", "output": "", "error": "failed"}],
                  "success": False, "domain": "devops", "failure_class": "deploy/timeout", "failure_point": "step_1"}
        (folder / "a.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
        services = open_services(Path(tmp) / "store.sqlite")
        try:
            import_paths(services.store, [Path(tmp) / "long"])
            pk = next(t.id for t in services.corpora.list_trajectories(limit=10) if t.trajectory_id == "LONG-1")
            detail = services.corpora.get_trajectory(pk)
            results = []
            for n in range(args.repeat):
                opened, busy, gap = attempt(detail)
                results.append((opened, busy, gap))
                print(f"attempt {n + 1}: shortened view opened in {opened * 1000:.0f} ms; longest GUI-thread busy "
                      f"stretch {busy * 1000:.0f} ms; longest wall gap {gap * 1000:.0f} ms", flush=True)
        finally:
            services.close()
    del app
    best = min(results, key=lambda r: max(r[0] / 0.1, r[1] / 0.1, r[2] / 0.3))
    ok = best[0] < 0.1 and best[1] < 0.1 and best[2] < 0.3
    print(f"best attempt within the bounds (open < 100 ms, busy < 100 ms, wall gap < 300 ms): {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
