"""packaging/screenshots.py presses A, A, D so the screenshots show decided rules (docs/gui.md):
on the first rows, two of the three were refused by their gates and one decision was saved.
It now picks rules that can be decided; every key press saves its decision."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from conftest import wait_idle

from cauterule_gui.main_window import MainWindow

SCRIPT = Path(__file__).resolve().parents[2] / "packaging" / "screenshots.py"


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("screenshots_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_a_d_saves_two_approvals_and_a_deferral(qtbot: Any, review_window: MainWindow) -> None:
    script = _script()
    window = review_window
    pressed = script.decide_with_keys(window)
    wait_idle(window)
    decided = [window.services.reviews.current(rule_id) for rule_id in pressed]
    assert [d.action if d is not None else None for d in decided] == ["approve", "approve", "defer"]
