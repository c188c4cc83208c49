"""The welcome page's next step follows decisions (issue 24 item 12): after a decision it said
"review the 119 rules nobody has decided yet" until the store was opened again."""

from __future__ import annotations

import re
from typing import Any

from conftest import wait_idle
from PySide6.QtCore import Qt

from cauterule_gui.main_window import MainWindow


def _undecided(window: MainWindow) -> int | None:
    found = re.search(r"review the (\d+) rules? nobody has decided", window.welcome.next_label.text())
    return int(found.group(1)) if found else None


def test_the_next_step_counts_down_after_a_decision(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    window.tab_registry.show_tab(window.welcome)
    qtbot.waitUntil(lambda: _undecided(window) is not None, timeout=10_000)
    before = _undecided(window)
    assert before is not None and before > 1

    window.tab_registry.show_tab(window.workspace)
    window.workspace.rules.view.setFocus()
    qtbot.waitUntil(window.workspace.rules.view.hasFocus, timeout=5000)
    qtbot.keyClick(window.workspace.rules.view, Qt.Key.Key_D)  # defer: a decision, no reason asked
    wait_idle(window)

    window.tab_registry.show_tab(window.welcome)
    qtbot.waitUntil(lambda: _undecided(window) == before - 1, timeout=10_000)
