"""Issue 16, the last reads: no SQL on the GUI thread while a reviewer pages an evidence
bucket past its first page, switches buckets, opens a deep row with its highlights, selects
a duplicate group larger than the rules table's page with G, and opens the loop's views
(injection strip, candidate editor with its live preview and save, the gate panel and its
filter, the cross-session card).

The same listener as ``test_gui_thread_free.py`` (``before_cursor_execute``) records every
statement run on the main thread; excluded only: opening the store and building the window
(before it is installed) and the test's own checks (``guard.paused()``). The store holds a
group of 230 duplicate rules (the table pages 200 rows) whose prevented buckets hold 229
rows each (the evidence table pages 200).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import preset_reviewer, shown_window, wait_idle
from gui_thread_guard import GuiThreadStatements
from paging_stores import build_big_group_store
from PySide6.QtCore import Qt

from core.store.evidence_pages import PAGE

from cauterule_gui.jobs import JobRunner
from cauterule_gui.main_window import MainWindow
from cauterule_gui.services import open_services

GROUP = 230


@pytest.fixture(scope="module")
def group_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big-group") / "group.sqlite"
    build_big_group_store(path, copies=GROUP)
    return path


@pytest.fixture
def group_window(qtbot: Any, tmp_path: Path, group_template: Path, runner: JobRunner) -> Iterator[MainWindow]:
    target = tmp_path / "group.sqlite"
    shutil.copy(group_template, target)
    preset_reviewer()
    services = open_services(target)
    window = shown_window(qtbot, services, runner)
    yield window
    window.close()
    services.close()


def test_paging_buckets_g_and_the_loop_views_run_no_sql_on_the_gui_thread(
        qtbot: Any, group_window: MainWindow, runner: JobRunner) -> None:
    window = group_window
    rules, evidence = window.workspace.rules, window.workspace.evidence
    model = evidence.model
    window.loop.ensure_scan()  # lazy (normally started by showing the Corpus tab)
    qtbot.waitUntil(lambda: rules.model.rowCount() == 1 and window.loop.data is not None, timeout=30_000)
    rules.select_row(0)
    qtbot.waitUntil(lambda: evidence.result is not None, timeout=30_000)
    wait_idle(window)
    with GuiThreadStatements(window.services.store.engine) as guard:
        # The injection strip of the rule shown (read through the executor).
        guard.step = "showing the injection strip"
        qtbot.waitUntil(lambda: window.loop.strip.data is not None, timeout=30_000)

        # The prevented bucket: 229 rows, 200 read with the board; scrolling reads the rest.
        guard.step = "scrolling an evidence bucket past its first page"
        rules.view.setFocus()
        qtbot.keyClick(rules.view, Qt.Key.Key_1)
        wait_idle(window)
        total = evidence.count("prevented")
        assert total == GROUP - 1 and model.rowCount() <= total
        evidence.view.scrollToBottom()
        evidence.view.viewport().repaint()  # paint the rows now: data() must not read
        qtbot.waitUntil(lambda: model.rowCount() == total, timeout=20_000)
        evidence.view.scrollToBottom()
        evidence.view.viewport().repaint()

        # A row past the first page, opened deliberately: the trajectory and its spans.
        guard.step = "opening a row past the first page"
        deep = model.index(total - 3, 0)
        evidence.view.setCurrentIndex(deep)
        opened = evidence.current_outcome()
        assert opened is not None
        viewer = window.workspace.viewer
        qtbot.waitUntil(lambda: viewer._detail is not None and viewer._detail.id == opened.trajectory_pk,  # noqa: SLF001
                        timeout=20_000)
        wait_idle(window)
        with guard.paused():
            assert opened.trajectory_pk in window.services.reviews.viewed("tester", evidence.result.id)

        # Switching buckets: broken (2, its first row opened), missed (4), back to prevented (1).
        guard.step = "switching buckets"
        for key, bucket in ((Qt.Key.Key_2, "broken"), (Qt.Key.Key_4, "missed"), (Qt.Key.Key_1, "prevented")):
            qtbot.keyClick(rules.view, key)
            qtbot.waitUntil(lambda b=bucket: evidence.bucket == b and model.rowCount() == min(evidence.count(b), PAGE),
                            timeout=10_000)
            evidence.view.viewport().repaint()
            wait_idle(window)

        # G on a group larger than one page of the rules table: the ids are read, then selected.
        guard.step = "selecting a duplicate group with G"
        with qtbot.waitSignal(window.bulk.group_selected, timeout=20_000) as selected:
            qtbot.keyClick(rules.view, Qt.Key.Key_G)
        assert selected.args == [GROUP] and len(window.bulk.selected_rows()) == GROUP
        rules.view.viewport().repaint()
        wait_idle(window)

        # The candidate editor on the evidence row (Ctrl+Shift+N): source, pool, preview, save.
        guard.step = "writing a candidate in the loop's editor"
        evidence.view.setCurrentIndex(model.index(0, 0))
        wait_idle(window)
        with qtbot.waitSignal(window.loop.editor_opened, timeout=20_000) as editor_opened:
            window.loop.new_candidate_action.trigger()
        editor = editor_opened.args[0]
        qtbot.waitUntil(lambda: editor.last_preview is not None, timeout=30_000)
        editor.trigger_edit.setPlainText("the payments rollout timed out")
        with qtbot.waitSignal(editor.preview_shown, timeout=30_000):
            pass
        with qtbot.waitSignal(window.replay.replay_done, timeout=120_000):
            editor.save_button.click()
        assert editor.saved_rule_id is not None
        wait_idle(window)

        # The Corpus tab: the gate panel (reloaded on the "rules" write) and its filter.
        guard.step = "the gate panel on the Corpus tab"
        window.tab_registry.actions[2].trigger()
        assert window.tabs.currentWidget() is window.splitter
        qtbot.waitUntil(lambda: window.loop.gate_panel.table.rowCount() > 0, timeout=20_000)
        window.loop.gate_panel.set_filter("tainted")  # none here: the table empties
        qtbot.waitUntil(lambda: window.trajectory_model.rowCount() == 0, timeout=20_000)
        window.loop.gate_panel.set_filter("all")
        qtbot.waitUntil(lambda: window.trajectory_model.rowCount() > 0, timeout=20_000)
        wait_idle(window)

        # The cross-session card: files read and counted off the GUI thread, the measurement kept.
        guard.step = "the cross-session card"
        card = window.workflows.metrics.panel.cross_session  # type: ignore[union-attr]
        with qtbot.waitSignal(window.db.changes_applied, timeout=30_000):
            card.load_demo()
        assert card.result is not None
        wait_idle(window)
    assert not guard.seen, guard.report()
