"""The labelling screen: lazy list and filters, autosave with history, keyboard navigation,
live feedback, accuracy per corpus ("no ground truth", never 0), export through the core,
the guidelines, and corpus text shown verbatim. Every store call runs as a DB job."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REVIEWER, preset_reviewer
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from core.domain.labels import LabelText
from core.importing import import_paths
from core.labels.service import save_label
from core.replay.profiles import REFERENCE_0_3_1
from core.replaying import run_replay
from core.store.engine import open_store
from core.store.label_repo import LabelRepository

from cauterule_gui.jobs import JobRunner
from cauterule_gui.models import label_data
from cauterule_gui.models.label_accuracy_model import LabelAccuracyModel
from cauterule_gui.models.label_feedback_model import COL_SEMANTIC, LabelFeedbackModel
from cauterule_gui.models.label_history_model import COL_AFTER, COL_BEFORE, LabelHistoryModel
from cauterule_gui.models.label_queue_model import COL_MINE, LabelQueueModel
from cauterule_gui.panels import labelling as lp
from cauterule_gui.panels.labelling import LabellingPanel
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices, open_services
from cauterule_gui.settings import make_settings

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"
PAYLOAD = "<b>NOTE TO THE RULE EXTRACTOR:</b>"


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("labelling") / "demo.sqlite"
    store = open_store(path)
    try:
        import_paths(store, [DEMO])
        run_replay(store, REFERENCE_0_3_1)
    finally:
        store.close()
    return path


@pytest.fixture
def demo(tmp_path: Path, demo_template: Path) -> Iterator[StoreServices]:
    target = tmp_path / "demo.sqlite"
    shutil.copy(demo_template, target)
    opened = open_services(target)
    yield opened
    opened.close()


@pytest.fixture
def panel(qtbot: Any, demo: StoreServices, runner: JobRunner) -> Iterator[LabellingPanel]:
    preset_reviewer()
    widget = LabellingPanel(lambda: demo, runner, ReviewerIdentity(make_settings()))
    widget.resize(1500, 900)
    qtbot.addWidget(widget)
    widget.show()
    widget.refresh()
    qtbot.waitUntil(lambda: widget.model.rowCount() > 0 and widget._context is not None, timeout=10_000)
    yield widget
    widget.hide()
    idle(qtbot, runner)


def idle(qtbot: Any, runner: JobRunner) -> None:
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=10_000)


def pk_of(services: StoreServices, trajectory_id: str) -> int:
    rows = [t for t in services.corpora.list_trajectories(limit=10_000) if t.trajectory_id == trajectory_id]
    assert len(rows) == 1
    return rows[0].id


def open_trajectory(qtbot: Any, panel: LabellingPanel, pk: int) -> None:
    panel.select_trajectory(pk)
    qtbot.waitUntil(lambda: panel._context is not None and panel._context.detail.id == pk, timeout=10_000)


# -- models ------------------------------------------------------------------------------
def test_every_table_model_passes_the_model_tester(qtmodeltester: Any, panel: LabellingPanel, qtbot: Any,
                                                   demo: StoreServices, runner: JobRunner) -> None:
    open_trajectory(qtbot, panel, pk_of(demo, "DF-GIT-001-push-non-ff"))
    qtbot.keyClicks(panel.trigger, "git push is rejected as non-fast-forward")
    panel.compute_feedback()
    qtbot.waitUntil(lambda: panel.feedback_model.rowCount() > 0, timeout=10_000)
    panel.save_now()
    qtbot.waitUntil(lambda: panel.history_model.rowCount() > 0, timeout=10_000)
    panel.tabs.setCurrentIndex(2)
    qtbot.waitUntil(lambda: panel.accuracy_model.rowCount() > 0, timeout=10_000)
    for model in (panel.model, panel.feedback_model, panel.history_model, panel.accuracy_model):
        assert model.rowCount() > 0
        qtmodeltester.check(model, force_py=True)
    for empty in (LabelQueueModel(), LabelFeedbackModel(), LabelHistoryModel(), LabelAccuracyModel()):
        qtmodeltester.check(empty, force_py=True)
    idle(qtbot, runner)


def test_the_list_is_lazy_and_pages_come_from_db_jobs(qtbot: Any, demo: StoreServices, runner: JobRunner,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    preset_reviewer()
    monkeypatch.setattr(label_data, "QUEUE_PAGE", 10)
    monkeypatch.setattr(label_data.queue_page, "__defaults__", (10,))
    widget = LabellingPanel(lambda: demo, runner, ReviewerIdentity(make_settings()))
    qtbot.addWidget(widget)
    widget.show()
    started: list[str] = []
    runner.job_started.connect(lambda h: started.append(h.name))
    widget.refresh()
    qtbot.waitUntil(lambda: widget.model.total == 43 and widget.model.rowCount() >= 10, timeout=10_000)
    assert widget.model.rowCount() < 43  # only what the view needed so far
    for _ in range(20):  # scrolling asks for the next pages, each fetched by a DB job
        shown = widget.model.rowCount()
        widget.view.scrollToBottom()
        widget.model.fetchMore()
        qtbot.waitUntil(lambda: widget.model.rowCount() > shown, timeout=10_000)  # the page job delivered
        if widget.model.rowCount() == 43:
            break
    assert widget.model.rowCount() == 43 and not widget.model.canFetchMore()
    assert len({widget.model.row_at(r).trajectory_pk for r in range(43)}) == 43  # type: ignore[union-attr]
    assert "label queue page" in started and "label queue" in started
    widget.hide()
    idle(qtbot, runner)


# -- autosave and history ----------------------------------------------------------------
def test_typing_autosaves_and_creates_history(qtbot: Any, panel: LabellingPanel, demo: StoreServices,
                                              runner: JobRunner) -> None:
    pk = pk_of(demo, "DF-GIT-001-push-non-ff")
    open_trajectory(qtbot, panel, pk)
    assert panel.save_state.text().startswith("○ No label yet")
    panel.trigger.setFocus()
    qtbot.keyClicks(panel.trigger, "git push is rejected as non-fast-forward")
    assert panel.save_state.text().startswith("● Unsaved")
    # No Save button: the pause saves it.
    qtbot.waitUntil(lambda: panel.save_state.text().startswith("✓ Saved"), timeout=5_000)
    labels = LabelRepository(demo.store)
    label = labels.get(pk, REVIEWER)
    assert label is not None and label.text.trigger == "git push is rejected as non-fast-forward"
    assert label.text.directive == ""
    assert len(labels.history(label.id)) == 1

    qtbot.keyClicks(panel.directive, "run git pull --rebase, then push again")
    qtbot.waitUntil(lambda: panel.history_model.rowCount() == 2, timeout=5_000)
    history = labels.history(label.id)
    assert [h.actor for h in history] == [REVIEWER, REVIEWER]
    assert history[1].before is not None and history[1].before.directive == ""
    assert history[1].after.directive == "run git pull --rebase, then push again"
    newest = panel.history_model.index(0, COL_AFTER).data()
    assert "run git pull --rebase, then push again" in newest
    assert panel.history_model.index(0, COL_BEFORE).data() == "when git push is rejected as non-fast-forward"
    assert panel.history_model.index(1, COL_BEFORE).data() == "— (new)"
    row = panel.model.row_of(pk)
    assert row is not None and "git pull --rebase" in panel.model.index(row, COL_MINE).data()

    # Variants and the note are part of the label.
    panel.variants.add_variant("when a push is refused as non-fast-forward, rebase and push")
    panel.note.setPlainText("the branch name does not belong in the trigger")
    qtbot.waitUntil(lambda: panel.history_model.rowCount() == 3, timeout=5_000)  # one pause, one save
    idle(qtbot, runner)
    stored = labels.get(pk, REVIEWER)
    assert stored is not None
    assert stored.text.variants == ("when a push is refused as non-fast-forward, rebase and push",)
    assert stored.text.note == "the branch name does not belong in the trigger"


def test_moving_on_saves_and_keys_work_while_typing(qtbot: Any, panel: LabellingPanel, demo: StoreServices,
                                                    runner: JobRunner) -> None:
    panel.set_filter(corpus="failures")
    qtbot.waitUntil(lambda: panel.model.rowCount() == 23, timeout=10_000)
    panel._select_row(0)
    first = panel.model.row_at(0).trajectory_pk  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: panel._context is not None and panel._context.detail.id == first, timeout=10_000)
    panel.trigger.setFocus()
    qtbot.keyClicks(panel.trigger, "the API answers 401 Unauthorized")
    qtbot.keyClick(panel.trigger, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # save and next
    second = panel.model.row_at(1).trajectory_pk  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: panel._context is not None and panel._context.detail.id == second, timeout=10_000)
    assert panel.trigger.text() == ""
    assert panel.focusWidget() is panel.view  # the queue: `?` there is help, never a typed label
    panel.trigger.setFocus()
    idle(qtbot, runner)
    saved = LabelRepository(demo.store).get(first, REVIEWER)
    assert saved is not None and saved.text.trigger == "the API answers 401 Unauthorized"

    # Typing a letter never navigates; Alt+K goes back, Alt+J forward (the draft is saved first).
    qtbot.keyClicks(panel.trigger, "jk")
    assert panel._pk == second
    qtbot.keyClick(panel.trigger, Qt.Key.Key_K, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: panel._context is not None and panel._context.detail.id == first, timeout=10_000)
    assert panel.trigger.text() == "the API answers 401 Unauthorized"
    idle(qtbot, runner)
    draft = LabelRepository(demo.store).get(second, REVIEWER)
    assert draft is not None and draft.text.trigger == "jk"
    qtbot.keyClick(panel.trigger, Qt.Key.Key_J, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: panel._context is not None and panel._context.detail.id == second, timeout=10_000)
    assert panel.trigger.text() == "jk"


def test_filters_missing_labelled_and_domain(qtbot: Any, panel: LabellingPanel, demo: StoreServices,
                                             runner: JobRunner) -> None:
    pk = pk_of(demo, "DF-GIT-002-hotfix-push-behind")
    save_label(demo.store, pk, REVIEWER, LabelText("git push is rejected as behind", "pull --rebase"))
    panel.set_filter(status="labelled")
    qtbot.waitUntil(lambda: panel.model.total == 1, timeout=10_000)
    assert panel.model.row_at(0).trajectory_pk == pk  # type: ignore[union-attr]
    panel.set_filter(status="missing")
    qtbot.waitUntil(lambda: panel.model.total == 42, timeout=10_000)
    panel.set_filter(status="all", domain="git")
    qtbot.waitUntil(lambda: panel.model.total == sum(
        1 for t in demo.corpora.list_trajectories(limit=1000) if t.domain == "git"), timeout=10_000)
    assert {panel.model.row_at(r).domain for r in range(panel.model.rowCount())} == {"git"}  # type: ignore[union-attr]
    assert "git" in [panel.domain_combo.itemData(i) for i in range(panel.domain_combo.count())]
    idle(qtbot, runner)


def test_no_rule_expected_is_a_label(qtbot: Any, panel: LabellingPanel, demo: StoreServices, runner: JobRunner) -> None:
    pk = pk_of(demo, "DA-001-injection-in-task")
    open_trajectory(qtbot, panel, pk)
    panel.no_rule.click()
    qtbot.waitUntil(lambda: panel.save_state.text().startswith("✓ Saved (no rule expected)"), timeout=5_000)
    label = LabelRepository(demo.store).get(pk, REVIEWER)
    assert label is not None and label.sentence == ""
    idle(qtbot, runner)


# -- feedback, accuracy, export ---------------------------------------------------------
def test_live_feedback_scores_the_extracted_candidate(qtbot: Any, panel: LabellingPanel, demo: StoreServices,
                                                      runner: JobRunner) -> None:
    pk = pk_of(demo, "DF-GIT-001-push-non-ff")  # R-001 was extracted from it
    open_trajectory(qtbot, panel, pk)
    qtbot.keyClicks(panel.trigger, "git push is rejected with non-fast-forward")
    qtbot.waitUntil(lambda: panel.feedback_model.rowCount() == 1, timeout=5_000)
    feedback = panel.last_feedback
    assert feedback is not None and feedback.candidates[0].token_f1 == pytest.approx(1.0)
    assert panel.feedback_model.index(0, COL_SEMANTIC).data() == "—"  # no model: unmeasured, not 0
    assert "semantic F1: —" in panel.feedback_note.text()
    qtbot.keyClicks(panel.trigger, " after a force push")
    qtbot.waitUntil(lambda: panel.last_feedback is not None
                    and panel.last_feedback.candidates[0].token_f1 < 1.0, timeout=5_000)
    other = pk_of(demo, "DF-GIT-003-merge-conflict")
    open_trajectory(qtbot, panel, other)
    qtbot.waitUntil(lambda: "no candidate" in panel.feedback_note.text(), timeout=5_000)
    assert panel.feedback_model.rowCount() == 0
    idle(qtbot, runner)


def test_accuracy_per_corpus_shows_why_a_corpus_is_unmeasured_never_zero(qtbot: Any, panel: LabellingPanel,
                                                              runner: JobRunner) -> None:
    panel.tabs.setCurrentIndex(2)
    qtbot.waitUntil(lambda: panel.accuracy_model.rowCount() >= 4, timeout=10_000)
    rows = {panel.accuracy_model.row_at(r).corpus: r for r in range(panel.accuracy_model.rowCount())}  # type: ignore[union-attr]
    failures = rows["failures"]
    n = int(panel.accuracy_model.index(failures, 1).data())
    assert n >= 1
    assert panel.accuracy_model.index(failures, 3).data() == "—"  # semantic off: unmeasured
    assert "[" in panel.accuracy_model.index(failures, 6).data()  # Wilson interval on the rate
    silent = rows["successes"]
    assert panel.accuracy_model.index(silent, 1).data() == "0"
    for column in range(2, 7):  # successes expect no rule: that is the reason, not missing ground truth
        assert panel.accuracy_model.index(silent, column).data().startswith("no rule expected")
    assert "replay's best from run #1" in panel.accuracy_note.text()
    idle(qtbot, runner)


def test_export_labels_writes_the_corpus_jsonl_through_the_core(qtbot: Any, panel: LabellingPanel,
                                                                demo: StoreServices, runner: JobRunner,
                                                                tmp_path: Path) -> None:
    pk = pk_of(demo, "DF-GIT-003-merge-conflict")
    open_trajectory(qtbot, panel, pk)
    qtbot.keyClicks(panel.trigger, "git rebase stops on a merge conflict")
    qtbot.keyClicks(panel.directive, "resolve the conflicting hunks then continue the rebase")
    out = tmp_path / "export"
    exported: list[Any] = []
    panel.labels_exported.connect(exported.append)
    panel.set_filter(corpus="failures")
    panel.export_labels_to(out)  # saves the draft first (same DB queue, in order)
    qtbot.waitUntil(lambda: bool(exported), timeout=10_000)
    summary = exported[0]
    assert summary.corpus == "failures" and summary.replaced == 1
    original = (DEMO / "failures" / "git.jsonl").read_text(encoding="utf-8").splitlines()
    written = (out / "failures" / "git.jsonl").read_text(encoding="utf-8").splitlines()
    changed = [i for i, (a, b) in enumerate(zip(original, written)) if a != b]
    assert len(written) == len(original) and len(changed) == 1
    record = json.loads(written[changed[0]])
    assert record["expected_rule"] == ("when git rebase stops on a merge conflict, "
                                       "resolve the conflicting hunks then continue the rebase")
    assert {k: v for k, v in record.items() if k != "expected_rule"} == {
        k: v for k, v in json.loads(original[changed[0]]).items() if k != "expected_rule"}
    assert "1 expected_rule value(s) replaced" in panel.count_label.text()
    idle(qtbot, runner)


# -- guidelines and untrusted text --------------------------------------------------------
def test_guidelines_render_markdown_or_a_placeholder(qtbot: Any, panel: LabellingPanel, tmp_path: Path) -> None:
    assert lp.guidelines_path().name == "labelling-guidelines.md"
    guide = tmp_path / "guide.md"
    guide.write_text("# Our rules\n\n**Never** put a comma in the trigger.\n", encoding="utf-8")
    panel.load_guidelines(guide)
    assert "Never put a comma" in panel.guidelines.toPlainText()
    assert "#" not in panel.guidelines.toPlainText()  # rendered, not shown as source
    panel.load_guidelines(tmp_path / "missing.md")
    assert "No labelling guidelines yet" in panel.guidelines.toPlainText()
    assert "missing.md" in panel.guidelines.toPlainText()


def test_adversarial_text_is_shown_verbatim(qtbot: Any, panel: LabellingPanel, demo: StoreServices,
                                            runner: JobRunner) -> None:
    pk = pk_of(demo, "DA-001-injection-in-task")
    open_trajectory(qtbot, panel, pk)
    assert PAYLOAD in panel.viewer.plain_text()
    assert "<script>alert(1)</script>" in panel.viewer.plain_text()
    evil = "<i>x</i> & <img src=x onerror=alert(1)>"
    qtbot.keyClicks(panel.trigger, evil)
    panel.save_now()
    qtbot.waitUntil(lambda: panel.history_model.rowCount() == 1, timeout=5_000)
    assert evil in panel.history_model.index(0, COL_AFTER).data()
    row = panel.model.row_of(pk)
    assert row is not None and evil in panel.model.index(row, COL_MINE).data()
    tip = panel.model.index(row, COL_MINE).data(Qt.ItemDataRole.ToolTipRole)
    assert "&lt;i&gt;" in tip  # escaped: Qt shows the markup literally
    for label in panel.findChildren(QLabel):
        assert label.textFormat() == Qt.TextFormat.PlainText, label.objectName()
    idle(qtbot, runner)


def test_feedback_and_progress_go_through_the_executor(qtbot: Any, panel: LabellingPanel, demo: StoreServices,
                                                         runner: JobRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    from submit_spy import not_through_executor, spy_submit_callers

    open_trajectory(qtbot, panel, pk_of(demo, "DF-GIT-001-push-non-ff"))
    idle(qtbot, runner)
    panel.last_feedback = None
    panel.progress.progress = None
    callers = spy_submit_callers(monkeypatch)
    assert panel.compute_feedback() is not None
    panel.update_progress()
    qtbot.waitUntil(lambda: panel.last_feedback is not None and panel.progress.progress is not None, timeout=10_000)
    assert any("label feedback" in c for c in callers) and any("label progress" in c for c in callers)
    assert not_through_executor(callers) == []
    idle(qtbot, runner)
