"""Start-up measurement hook, active only when ``CAUTERULE_STARTUP_PROBE`` names a JSON file.

``packaging/entry.py`` installs it before calling ``cauterule_gui.app.main``; it changes
nothing in the app. It wraps ``QApplication.exec`` so that, once the event loop runs, it records:

- ``window_usable``: the first moment the event loop is idle with the main window visible and
  painted (a zero-timer fires after the start-up events, including the window's first paint).
  The model load may still be running in the background; that is the point.
- ``model_ready``: when the window's replay controller reports the embedding model as loaded
  (``semantic matching ready``), or ``null`` if the app does not load the model at start-up.
- RSS (current and peak) at both moments.

Times are ``time.time()`` stamps; ``packaging/measure_startup.py`` subtracts its launch stamp.
The app quits after the model is ready (or after ``CAUTERULE_STARTUP_PROBE_TIMEOUT`` seconds).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

ENV = "CAUTERULE_STARTUP_PROBE"
TIMEOUT_ENV = "CAUTERULE_STARTUP_PROBE_TIMEOUT"
GRACE_ENV = "CAUTERULE_STARTUP_PROBE_GRACE"  # seconds to wait for a model load to be reported


def _memory_mb() -> dict[str, float]:
    values: dict[str, float] = {}
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = round(int(rest.split()[0]) / 1024, 1)
    except OSError:
        pass
    return values


def _children_rss_mb() -> float | None:
    """Summed RSS of this process's children (the replay helper holds the model)."""
    total = 0.0
    found = False
    try:
        for task in Path("/proc/self/task").iterdir():
            for pid in (task / "children").read_text(encoding="ascii").split():
                for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) / 1024
                        found = True
    except OSError:
        return None
    return round(total, 1) if found else None


def install() -> bool:
    target = os.environ.get(ENV)
    if not target:
        return False
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    record: dict[str, Any] = {"entry": time.time(), "window_usable": None, "model_ready": None,
                              "model_state": None}
    timeout_s = float(os.environ.get(TIMEOUT_ENV, "180"))
    original_exec = QApplication.exec

    def write() -> None:
        Path(target).write_text(json.dumps(record, indent=2), encoding="utf-8")

    def finish() -> None:
        write()
        QApplication.quit()

    def main_window() -> Any:
        return next((w for w in QApplication.topLevelWidgets() if isinstance(w, QMainWindow) and w.isVisible()), None)

    def on_model_state(text: str) -> None:
        record["model_state"] = text
        if text.startswith("semantic matching ready") or "unavailable" in text:
            record["model_ready"] = time.time() if text.startswith("semantic matching ready") else None
            record["memory_model"] = _memory_mb()
            record["children_rss_model_mb"] = _children_rss_mb()
            QTimer.singleShot(0, finish)

    def on_idle() -> None:
        window = main_window()
        if window is None:  # not shown yet: look again on the next turn of the loop
            QTimer.singleShot(10, on_idle)
            return
        record["window_usable"] = time.time()
        record["memory_window"] = _memory_mb()
        replay = getattr(window, "replay", None)
        state = getattr(replay, "model_state", None)
        record["model_state"] = state
        signal = getattr(replay, "model_state_changed", None)
        if signal is None or not isinstance(state, str):
            QTimer.singleShot(0, finish)  # this app version does not load the model at start-up
            return
        if state.startswith("semantic matching ready"):
            on_model_state(state)
            return
        signal.connect(on_model_state)

        def nothing_loading() -> None:
            # The load job reports "loading" through a queued signal; give it a moment.
            current = str(record.get("model_state") or "")
            if record["model_ready"] is None and "loading" not in current:
                finish()

        # Under load the helper process can take many seconds to start and say "loading".
        QTimer.singleShot(int(float(os.environ.get(GRACE_ENV, "30")) * 1000), nothing_loading)
        QTimer.singleShot(int(timeout_s * 1000), finish)

    def exec_with_probe(*_args: Any) -> int:  # app.exec() or QApplication.exec(): a static in PySide6
        QTimer.singleShot(0, on_idle)
        return original_exec()

    QApplication.exec = exec_with_probe  # type: ignore[method-assign]
    return True
