"""The window's database executor: reads and writes off the GUI thread, results on it, and
``changes_applied`` after a write commits (real store, real pools)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QMainWindow, QTabWidget

from core.domain.labels import LabelText
from core.labels.service import save_label
from core.store.label_repo import LabelRepository
from core.store.workspace_query import WorkspaceFilter

from cauterule_gui.db import DatabaseExecutor, in_write_op
from cauterule_gui.jobs import JobRunner
from cauterule_gui.jobs.runner import JobPool
from cauterule_gui.models.rule_table_model import RuleTableModel
from cauterule_gui.services import StoreServices
from cauterule_gui.tab_registry import TabRegistry


@pytest.fixture
def db(qapp: Any, runner: JobRunner, populated: StoreServices) -> DatabaseExecutor:
    return DatabaseExecutor(runner, lambda: populated)


def test_a_query_runs_off_the_gui_thread_and_answers_on_it(qtbot: Any, db: DatabaseExecutor) -> None:
    seen: dict[str, Any] = {}

    def read(services: StoreServices) -> int:
        seen["worker"] = threading.current_thread()
        return len(services.corpora.list_corpora())

    handle = db.query(read, lambda n: seen.update(result=n, slot=threading.current_thread()))
    assert handle is not None
    qtbot.waitUntil(lambda: "result" in seen, timeout=5000)
    assert seen["result"] == 2
    assert seen["worker"] is not threading.main_thread() and seen["slot"] is threading.main_thread()


def test_an_op_runs_inside_the_write_op_and_announces_its_kinds_after_commit(
        qtbot: Any, db: DatabaseExecutor, populated: StoreServices) -> None:
    inside: list[bool] = []
    pk = populated.corpora.list_trajectories(limit=1)[0].id

    def write(services: StoreServices) -> None:
        inside.append(in_write_op() and threading.current_thread() is not threading.main_thread())
        save_label(services.store, pk, "ana", LabelText("when a", "do b"))

    with qtbot.waitSignal(db.changes_applied, timeout=5000) as blocker:
        db.op(write, kinds={"labels"}, initiator="me")
    assert blocker.args == [frozenset({"labels"}), "me"]
    assert inside == [True] and not in_write_op()
    assert [lb.reviewer for lb in LabelRepository(populated.store).labels_for(pk)] == ["ana"]  # committed first


def test_a_failed_op_reports_its_error_and_announces_nothing(qtbot: Any, db: DatabaseExecutor) -> None:
    announced: list[object] = []
    errors: list[BaseException] = []
    db.changes_applied.connect(lambda kinds, _by: announced.append(kinds))

    def refuse(_services: StoreServices) -> None:
        raise ValueError("a reason is required")

    handle = db.op(refuse, kinds={"decisions"}, on_error=errors.append)
    assert handle is not None
    qtbot.waitUntil(lambda: not handle.running, timeout=5000)
    assert [str(e) for e in errors] == ["a reason is required"] and announced == []


def test_an_unknown_change_kind_is_refused_by_name(db: DatabaseExecutor) -> None:
    with pytest.raises(ValueError, match="unknown change kinds \\['decision'\\]"):
        db.op(lambda _s: None, kinds={"decision"})


def test_an_answer_for_a_store_no_longer_open_is_dropped(qtbot: Any, runner: JobRunner,
                                                        populated: StoreServices) -> None:
    current: list[StoreServices | None] = [populated]
    db = DatabaseExecutor(runner, lambda: current[0])
    answers: list[int] = []
    handle = db.query(lambda s: len(s.corpora.list_corpora()), answers.append)
    assert handle is not None
    current[0] = None  # the store was switched while the read ran
    qtbot.waitUntil(lambda: not handle.running, timeout=5000)
    assert answers == [] and db.query(lambda _s: 1, answers.append) is None


def test_compute_runs_pure_work_on_the_cpu_pool_and_drops_it_for_a_closed_store(
        qtbot: Any, runner: JobRunner, populated: StoreServices) -> None:
    current: list[StoreServices | None] = [populated]
    db = DatabaseExecutor(runner, lambda: current[0])
    seen: dict[str, Any] = {}

    def work() -> int:
        seen["worker"] = threading.current_thread()
        return sum(range(10))

    handle = db.compute(work, lambda n: seen.update(result=n, slot=threading.current_thread()))
    assert handle is not None and handle.pool is JobPool.CPU
    qtbot.waitUntil(lambda: "result" in seen, timeout=5000)
    assert seen["result"] == 45 and seen["slot"] is threading.main_thread()
    assert seen["worker"] is not threading.main_thread()
    late: list[int] = []
    handle = db.compute(lambda: 1, late.append)
    assert handle is not None
    current[0] = None  # the store was switched while it ran: its answer describes the old one
    qtbot.waitUntil(lambda: not handle.running, timeout=5000)
    assert late == []


def test_a_cancellable_query_stops_when_a_newer_read_of_its_key_supersedes_it(
        qtbot: Any, db: DatabaseExecutor, populated: StoreServices) -> None:
    started, stopped = threading.Event(), threading.Event()

    def long_read(services: StoreServices, cancel: threading.Event) -> int:
        count = len(services.corpora.list_corpora())
        started.set()
        if not cancel.wait(10):  # a long computation that checks its flag
            return count
        stopped.set()
        raise InterruptedError("cancelled")

    first = db.query_cancellable(long_read, name="slow", key="k", heavy=True)
    assert first is not None and first.pool is JobPool.CPU
    assert started.wait(5)
    answers: list[int] = []
    second = db.query_cancellable(lambda s, _c: len(s.corpora.list_corpora()), answers.append, key="k")
    assert second is not None and second.pool is JobPool.READ
    qtbot.waitUntil(lambda: answers == [2] and not first.running, timeout=5000)
    assert stopped.is_set() and first.outcome == "cancelled"


def test_rule_rows_arrive_by_signal_and_a_stale_refresh_is_dropped(qtbot: Any, replayed: StoreServices,
                                                                   runner: JobRunner) -> None:
    model = RuleTableModel(replayed.results)
    model.set_executor(DatabaseExecutor(runner, lambda: replayed))
    everything = model.total
    assert everything > 3

    with qtbot.waitSignal(model.loaded, timeout=5000):
        model.set_filter(WorkspaceFilter(text="zzz-no-such-rule"))
        model.set_filter(WorkspaceFilter())  # the first answer belongs to an older query
        assert model.total == everything  # nothing applied yet: rows arrive by signal
    assert model.total == everything and model.rowCount() == min(everything, 200)


def test_a_tab_refreshes_on_its_kinds_now_if_shown_else_when_shown(qtbot: Any) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    tabs = QTabWidget(window)
    registry = TabRegistry(window, tabs)
    calls: list[str] = []
    first, second = QLabel("a"), QLabel("b")
    registry.register(first, "First", kinds={"labels"}, refresh=lambda: calls.append("first"))
    registry.register(second, "Second", kinds={"labels", "decisions"}, refresh=lambda: calls.append("second"))
    registry.changes_applied(frozenset({"labels"}))
    assert calls == ["first"]  # the hidden tab waits
    registry.changes_applied(frozenset({"labels"}), first)  # the first tab's own change
    assert calls == ["first"]
    tabs.setCurrentWidget(second)
    assert calls == ["first", "second"]  # refreshed once, when shown
    registry.changes_applied(frozenset({"rules"}))
    assert calls == ["first", "second"]
