"""The promotion screen: queue order and gates, every action through the panel (as DB jobs),
the broken-evidence refusal and waiver flow, a stale approval's moved trajectories, plain
text for rule texts, semantic similarity in a CPU job, and File > Export rule store."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import REVIEWER, preset_reviewer
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from core.importing import import_paths
from core.promotion import approve
from core.replay.profiles import REFERENCE_0_3_1, profile_by_name
from core.replaying import run_replay
from core.store.engine import open_store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import RuleRepository

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.export_actions import export_rule_store_interactive
from cauterule_gui.jobs import JobRunner
from cauterule_gui.models import promotion_queue_model as qm
from cauterule_gui.models.promotion_queue_model import PromotionQueueModel, load_snapshot
from cauterule_gui.panels.promotion import (
    ApprovalInput,
    ApproveDialog,
    PromotionPanel,
    PromotionPrompts,
    WaiverDialog,
)
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices, open_services
from cauterule_gui.settings import make_settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from test_promotion_support import Builder  # noqa: E402

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"
LEXICAL = profile_by_name("workbench").with_(semantic=False)


# -- fixtures ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo corpus imported and replayed once with the reference-0.3.1 profile."""
    path = tmp_path_factory.mktemp("promotion") / "demo.sqlite"
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


class FakePrompts(PromotionPrompts):
    """Answers queued by the test; records what was asked."""

    def __init__(self) -> None:
        self.answers: list[Any] = []
        self.asked: list[str] = []

    def _next(self, what: str) -> Any:
        self.asked.append(what)
        assert self.answers, f"the panel asked for {what} but the test gave no answer"
        return self.answers.pop(0)

    def approval(self, parent: Any, item: Any, title: str) -> ApprovalInput | None:
        return self._next(f"approval:{title}")  # type: ignore[no-any-return]

    def reason(self, parent: Any, title: str, prompt: str) -> str | None:
        return self._next(f"reason:{title}")  # type: ignore[no-any-return]

    def waivers(self, parent: Any, item: Any, trajectory_ids: list[str]) -> dict[str, str] | None:
        self.asked.append("waivers")
        return {tid: f"checked the log of {tid}: unrelated pip output" for tid in trajectory_ids}

    def successor(self, parent: Any, item: Any, choices: list[Any]) -> tuple[str, str] | None:
        return self._next("successor")  # type: ignore[no-any-return]


def make_panel(qtbot: Any, services: StoreServices, runner: JobRunner) -> PromotionPanel:
    preset_reviewer()
    panel = PromotionPanel(lambda: services, runner, ReviewerIdentity(make_settings()), prompts=FakePrompts())
    qtbot.addWidget(panel)
    panel.resize(1500, 900)
    refresh_and_wait(qtbot, panel)
    return panel


def wait_idle(qtbot: Any, panel: PromotionPanel) -> None:
    qtbot.waitUntil(lambda: not panel.busy, timeout=15_000)


def refresh_and_wait(qtbot: Any, panel: PromotionPanel) -> None:
    with qtbot.waitSignal(panel.queue_refreshed, timeout=15_000):
        panel.refresh()
    wait_idle(qtbot, panel)


def rule_id(services: StoreServices, origin_part: str) -> int:
    return next(r.id for r in RuleRepository(services.store).list_rules() if origin_part in r.origin)


def select(panel: PromotionPanel, rid: int) -> Any:
    assert panel.select_rule(rid)
    item = panel.current_item()
    assert item is not None and item.rule_id == rid
    return item


def click(qtbot: Any, panel: PromotionPanel, key: str) -> None:
    button = panel.buttons[key]
    assert button.isEnabled(), f"{key} is disabled"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, panel)


@pytest.fixture
def panel(qtbot: Any, demo: StoreServices, runner: JobRunner) -> Iterator[PromotionPanel]:
    made = make_panel(qtbot, demo, runner)
    yield made
    wait_idle(qtbot, made)


# -- the model ---------------------------------------------------------------------------
def test_queue_model_passes_modeltester(qtmodeltester: Any, demo: StoreServices) -> None:
    model = PromotionQueueModel()
    qtmodeltester.check(model)  # empty
    approve(demo.store, rule_id(demo, "C-01"), 1, REVIEWER, "reviewed")
    model.set_snapshot(load_snapshot(demo.store, REVIEWER))
    assert model.rowCount() == 8 and model.columnCount() == len(qm.COLUMNS)
    qtmodeltester.check(model)


# -- the queue ---------------------------------------------------------------------------
def test_queue_lists_passing_undecided_rules_first_with_readable_gates(panel: PromotionPanel) -> None:
    items = list(panel.model.items())
    groups = [qm.tooltip_text(i, qm.COL_GROUP) for i in items]  # the core's whole wording
    ready = [i for i in items if i.verdict == "pass" and i.decision is None]
    assert len(ready) >= 3 and items[: len(ready)] == ready  # passing, undecided: all first
    # No blind session yet: replay alone is not trusted, so no row reads "ready".
    unmeasured = "human approval required: no blind agreement measured for run #1"
    assert all(g.startswith(unmeasured) for g in groups[: len(ready)] if g[:8] != "imported")
    assert not any(g.startswith("ready") for g in groups)
    assert [i.verdict for i in items[len(ready):]] and all(i.verdict != "pass" for i in items[len(ready):])
    first = items[0]
    assert qm.cell_text(first, qm.COL_VERDICT) == "✓ pass"
    assert qm.cell_text(first, qm.COL_AGREEMENT) == "— not measured"  # never a pass, never 0 %
    assert qm.tooltip_text(first, qm.COL_AGREEMENT).startswith(unmeasured)  # then: it is the run's pooled gate
    assert qm.cell_text(first, qm.COL_DUPLICATES) == "✓ none (lexical)"
    assert qm.cell_text(first, qm.COL_CONFLICTS) == "✓ none"
    failing = next(i for i in items if "C-02" in i.origin)
    assert qm.cell_text(failing, qm.COL_BROKEN) == "✗ 4/4 unreviewed"
    assert qm.cell_text(failing, qm.COL_VERDICT) == "✗ breaks successes"  # glossary word, code in the tooltip
    assert "blocked_by_broken" in qm.tooltip_text(failing, qm.COL_VERDICT)
    assert "lexical" in panel.similarity_label.text()
    assert panel.current_item() == first and "Gates" in panel.detail.toPlainText()


def test_approving_a_passing_rule_with_a_reason_creates_a_standing_rule(
    qtbot: Any, panel: PromotionPanel, demo: StoreServices
) -> None:
    rid = rule_id(demo, "C-05")
    select(panel, rid)
    assert not panel.buttons["retire"].isEnabled()
    panel.prompts.answers.append(ApprovalInput("both OOMKilled failures prevented, nothing broken"))  # type: ignore[attr-defined]
    click(qtbot, panel, "approve")
    promotion = PromotionRepository(demo.store).active_for_rule(rid)
    assert promotion is not None and promotion.standing_id == "R-003"  # the demo store already holds
    assert promotion.provenance["reviewer"] == REVIEWER and promotion.provenance["replay_run_id"] == 1
    assert promotion.provenance["reason"] == "both OOMKilled failures prevented, nothing broken"
    assert "is now the standing rule R-003" in panel.message.text()
    item = panel.current_item()  # the queue refreshed and kept the rule selected
    assert item is not None and item.rule_id == rid and item.decision == "approve"
    assert qm.cell_text(item, qm.COL_DECISION) == "✓ approved · active"  # the id is in the Rule column
    assert qm.cell_text(item, qm.COL_RULE).startswith("R-003")
    assert "R-003" in qm.tooltip_text(item, qm.COL_DECISION)
    assert qm.cell_text(item, qm.COL_GROUP) == "approved (R-003 active)"
    assert panel.buttons["retire"].isEnabled() and not panel.buttons["approve"].isEnabled()


def test_broken_evidence_is_refused_with_the_message_then_waived_and_audited(
    qtbot: Any, panel: PromotionPanel, demo: StoreServices
) -> None:
    rid = rule_id(demo, "C-02")  # fails: 4 broken successes
    item = select(panel, rid)
    assert panel.buttons["waive"].isEnabled()
    prompts: FakePrompts = panel.prompts  # type: ignore[assignment]
    prompts.answers.append(ApprovalInput("the broken runs install unrelated packages", against_verdict=True))
    click(qtbot, panel, "approve")
    message = panel.message.text()
    assert message.startswith("approval refused: 4 broken trajectories not yet opened or waived")
    assert "Waive broken" in message and panel.message.isVisible() is panel.isVisible()
    assert PromotionRepository(demo.store).active_for_rule(rid) is None

    asked = len(prompts.asked)
    click(qtbot, panel, "waive")
    assert prompts.asked[asked:] == ["waivers"]  # the refused approval's reason is reused
    promotion = PromotionRepository(demo.store).active_for_rule(rid)
    assert promotion is not None and "4 broken trajectories waived" in panel.message.text()
    assert len(promotion.evidence["waivers"]) == 4
    events = ReviewRepository(demo.store).audit("result", item.result_id)
    waived = [e for e in events if e.action == "waive_broken"]
    assert len(waived) == 4 and all(e.actor == REVIEWER and "unrelated pip output" in (e.reason or "") for e in waived)
    after = panel.current_item()
    assert after is not None and qm.cell_text(after, qm.COL_BROKEN) == "✓ 4/4 reviewed (4 waived)"
    assert "waived " in panel.detail.toPlainText()


def test_approving_against_a_failed_verdict_without_the_override_is_refused_by_the_core(
    qtbot: Any, panel: PromotionPanel, demo: StoreServices
) -> None:
    rid = rule_id(demo, "C-02")
    select(panel, rid)
    prompts: FakePrompts = panel.prompts  # type: ignore[assignment]
    prompts.answers.append(ApprovalInput("pins urllib3 first"))
    click(qtbot, panel, "waive")
    assert "replay's verdict on run #1 is fail" in panel.message.text()
    assert PromotionRepository(demo.store).active_for_rule(rid) is None
    assert not [e for e in ReviewRepository(demo.store).audit("result") if e.action == "waive_broken"]  # rolled back


def test_reject_defer_retire_and_supersede_from_the_panel(
    qtbot: Any, panel: PromotionPanel, demo: StoreServices
) -> None:
    prompts: FakePrompts = panel.prompts  # type: ignore[assignment]
    c03, c04 = rule_id(demo, "C-03"), rule_id(demo, "C-04")
    select(panel, c03)
    prompts.answers.append("five near misses; wait for the registry mirror data")
    click(qtbot, panel, "defer")
    select(panel, c04)
    prompts.answers.append("no signal at all")
    click(qtbot, panel, "reject")
    reviews = ReviewRepository(demo.store)
    assert (reviews.current(c03).action, reviews.current(c04).action) == ("defer", "reject")  # type: ignore[union-attr]
    assert reviews.current(c04).reason == "no signal at all"  # type: ignore[union-attr]

    c01, c05, c06 = rule_id(demo, "C-01"), rule_id(demo, "C-05"), rule_id(demo, "C-06")
    for rid in (c01, c05, c06):
        approve(demo.store, rid, 1, REVIEWER, "passing")
    refresh_and_wait(qtbot, panel)
    repo = PromotionRepository(demo.store)
    first, second, third = (repo.active_for_rule(r).standing_id for r in (c01, c05, c06))  # type: ignore[union-attr]
    select(panel, c01)
    assert not panel.buttons["reject"].isEnabled()  # a standing rule is retired or superseded instead
    prompts.answers.append((second, "the OOM rule covers the same runs"))
    click(qtbot, panel, "supersede")
    assert repo.get(first).status == "superseded" and repo.get(first).superseded_by == second  # type: ignore[union-attr]
    select(panel, c06)
    prompts.answers.append("terraform moved to a remote backend")
    click(qtbot, panel, "retire")
    assert repo.get(third).status == "retired" and "retired" in panel.message.text()  # type: ignore[union-attr]
    retired_item = panel.current_item()
    assert retired_item is not None and qm.cell_text(retired_item, qm.COL_DECISION).endswith("retired")
    assert retired_item is not None and third in qm.tooltip_text(retired_item, qm.COL_DECISION)


def test_a_stale_approval_shows_its_moved_trajectories_and_can_be_reapproved(
    qtbot: Any, tmp_path: Path, runner: JobRunner
) -> None:
    corpus = tmp_path / "demo"
    shutil.copytree(DEMO, corpus)
    services = open_services(tmp_path / "stale.sqlite")
    try:
        store = services.store
        import_paths(store, [corpus])
        first = run_replay(store, LEXICAL, include_expected_rules=False)
        rid = rule_id(services, "C-05-k8s-pod-oomkilled")
        approve(store, rid, first.run_id, REVIEWER, "both OOMKilled failures prevented")
        k8s = corpus / "failures" / "k8s.jsonl"
        lines = k8s.read_text(encoding="utf-8").splitlines()
        record = json.loads(lines[1])
        record["steps"][1]["error"] = "Back-off restarting failed container; last termination reason: Error"
        record["failure_point"] = "Step 2: pod in CrashLoopBackOff"
        lines[1] = json.dumps(record)
        k8s.write_text("\n".join(lines) + "\n", encoding="utf-8")
        new = dict(json.loads(lines[0]), trajectory_id="DF-K8S-005-batch-oomkilled", id="DF-K8S-005-batch-oomkilled")
        (corpus / "failures" / "k8s-more.jsonl").write_text(json.dumps(new) + "\n", encoding="utf-8")
        import_paths(store, [corpus])
        second = run_replay(store, LEXICAL, include_expected_rules=False)

        panel = make_panel(qtbot, services, runner)
        item = select(panel, rid)
        assert qm.cell_text(item, qm.COL_GROUP) == "approved, stale: re-check the evidence" and item.priority == 1
        assert qm.cell_text(item, qm.COL_STALE) == "⚠ STALE: 2 moved"
        text = panel.detail.toPlainText()
        assert f"⚠ STALE approval — approved on run #{first.run_id}, compared with run #{second.run_id}" in text
        assert "DF-K8S-002-crashloop-after-upgrade: prevented → missed" in text
        assert "DF-K8S-005-batch-oomkilled: no effect → prevented" in text
        assert "verdict: pass → pass" in text and "corpus_hash:" in text
        assert panel.buttons["reapprove"].isEnabled() and not panel.buttons["approve"].isEnabled()
        panel.prompts.answers.append(ApprovalInput("re-checked on the changed corpus"))  # type: ignore[attr-defined]
        click(qtbot, panel, "reapprove")
        assert "R-003 re-approved on run #" in panel.message.text()
        after = panel.current_item()
        assert after is not None and not qm.is_stale(after) and qm.cell_text(after, qm.COL_STALE) == "✓ current"
        wait_idle(qtbot, panel)
    finally:
        runner.wait_for_done(5000)
        services.close()


# -- duplicates, conflicts, plain text ---------------------------------------------------
@pytest.fixture
def built(tmp_path: Path) -> Iterator[StoreServices]:
    services = open_services(tmp_path / "built.sqlite")
    b = Builder(services.store)
    b.trajectories("F-1", "F-2", "F-3")
    approved = b.rule("c/a.yaml", "when git push is rejected as non-fast-forward", "pull --rebase then push")
    b.rule("c/b.yaml", "when a git push gets rejected as non fast forward", "rebase onto the remote")
    b.rule("c/c.yaml", "when the remote refuses the upload <b>now</b><img src=x>",
           "force push to overwrite the remote branch")
    rules = {r.origin: r.id for r in RuleRepository(services.store).list_rules()}
    run = b.run([(rules["c/a.yaml"], "pass", {"prevented": ["F-1", "F-2"]}),
                 (rules["c/b.yaml"], "pass", {"prevented": ["F-1"]}),
                 (rules["c/c.yaml"], "pass", {"prevented": ["F-1", "F-2"], "near_miss": ["F-3"]})])
    approve(services.store, approved, run, "ana", "the reference case")
    yield services
    services.close()


def test_duplicates_and_conflicts_list_the_other_rules_text_as_plain_text(
    qtbot: Any, built: StoreServices, runner: JobRunner
) -> None:
    panel = make_panel(qtbot, built, runner)
    rules = {r.origin: r.id for r in RuleRepository(built.store).list_rules()}
    item = select(panel, rules["c/b.yaml"])
    assert qm.cell_text(item, qm.COL_DUPLICATES).startswith("⚠ R-001 0.") and "(lexical)" in qm.cell_text(
        item, qm.COL_DUPLICATES)
    text = panel.detail.toPlainText()
    assert "Near-duplicates among approved rules (lexical similarity, threshold 0.6)" in text
    assert "when: when git push is rejected as non-fast-forward" in text and "do:   pull --rebase then push" in text
    item = select(panel, rules["c/c.yaml"])
    assert qm.cell_text(item, qm.COL_CONFLICTS) == "⚠ R-001 (2 shared)"
    text = panel.detail.toPlainText()
    assert "R-001 — fires on 2 of the same trajectories; directives differ" in text and "shared: F-1, F-2" in text
    # Rule text is data: the markup shows literally and nothing is rendered from it.
    assert "when: when the remote refuses the upload <b>now</b><img src=x>" in text
    assert "<img" not in panel.detail.document().toHtml().replace("&lt;img", "")
    assert panel.message.textFormat() == Qt.TextFormat.PlainText
    tip = panel.model.index(panel.model.row_for_rule(rules["c/c.yaml"]), qm.COL_TRIGGER).data(
        Qt.ItemDataRole.ToolTipRole)
    assert "&lt;b&gt;" in tip
    wait_idle(qtbot, panel)


def _fake_embed(texts: Any) -> np.ndarray:
    rows = []
    for text in texts:
        seed = int(hashlib.sha256(" ".join(sorted(set(text.lower().split()) - {"a", "the"})).encode()).hexdigest()[:8], 16)
        vector = np.random.default_rng(seed).normal(size=16)
        rows.append(vector / np.linalg.norm(vector))
    return np.array(rows, dtype=np.float32)


def test_semantic_similarity_runs_in_a_cpu_job_and_falls_back_honestly(
    qtbot: Any, built: StoreServices, runner: JobRunner
) -> None:
    from core.embeddings import EmbeddingUnavailable

    panel = make_panel(qtbot, built, runner)
    panel.embedder_factory = lambda: _fake_embed
    pools: list[str] = []
    runner.job_started.connect(lambda handle: pools.append(handle.pool.value))
    with qtbot.waitSignal(panel.queue_refreshed, timeout=15_000):
        panel.semantic_box.setChecked(True)
    wait_idle(qtbot, panel)
    assert pools == ["cpu"] and "semantic" in panel.similarity_label.text()
    item = panel.current_item()
    assert item is not None and item.gate("duplicates").data["method"] == "semantic"

    def unavailable() -> Any:
        raise EmbeddingUnavailable("no embedding model: set CAUTERULE_WORKBENCH_MODEL")

    panel.embedder_factory = unavailable
    refresh_and_wait(qtbot, panel)
    assert not panel.semantic_box.isChecked() and "lexical" in panel.similarity_label.text()
    assert "Semantic similarity is not available" in panel.message.text()
    assert "CAUTERULE_WORKBENCH_MODEL" in panel.message.text()


# -- dialogs -----------------------------------------------------------------------------
def test_waiver_dialog_needs_a_reason_for_every_trajectory(qtbot: Any, panel: PromotionPanel,
                                                           demo: StoreServices) -> None:
    item = select(panel, rule_id(demo, "C-02"))
    dialog = WaiverDialog(item, ["S-1", "S-2"], panel)
    qtbot.addWidget(dialog)
    assert not dialog.ok.isEnabled()
    dialog.edits["S-1"].setText("unrelated")
    assert not dialog.ok.isEnabled()
    dialog.same.click()
    assert dialog.ok.isEnabled() and dialog.value() == {"S-1": "unrelated", "S-2": "unrelated"}
    approve_dialog = ApproveDialog(item, "Approve", panel)
    qtbot.addWidget(approve_dialog)
    assert not approve_dialog.ok.isEnabled() and not approve_dialog.against.isHidden()
    approve_dialog.edit.setText("  ")
    assert not approve_dialog.ok.isEnabled()
    approve_dialog.edit.setText("why")
    approve_dialog.against.setChecked(True)
    assert approve_dialog.value() == ApprovalInput("why", True)
    assert approve_dialog.findChild(QDialogButtonBox) is not None
    assert approve_dialog.acknowledge_no_task.isHidden()  # trigger and directive differ


def test_the_approve_dialog_asks_to_acknowledge_a_one_sentence_rule(qtbot: Any, panel: PromotionPanel,
                                                                    demo: StoreServices) -> None:
    from dataclasses import replace

    item = select(panel, rule_id(demo, "C-01"))
    one_sentence = replace(item, directive=item.trigger)  # how an expected_rule copy is queued
    dialog = ApproveDialog(one_sentence, "Approve", panel)
    qtbot.addWidget(dialog)
    assert not dialog.acknowledge_no_task.isHidden()
    dialog.edit.setText("on record")
    dialog.acknowledge_no_task.setChecked(True)
    assert dialog.value() == ApprovalInput("on record", acknowledge_no_task=True)


# -- export ------------------------------------------------------------------------------
def test_export_writes_a_rule_store_that_cauterule_loads_and_refuses_a_foreign_folder(
    qtbot: Any, demo: StoreServices, runner: JobRunner, tmp_path: Path
) -> None:
    pytest.importorskip("cauterule")
    from cauterule.serialization.rule_yaml import load_rules_from_dir
    from cauterule.store.validator import validate_store

    for origin in ("C-01", "C-05"):
        approve(demo.store, rule_id(demo, origin), 1, REVIEWER, "passing")
    reports: list[tuple[str, str, bool]] = []

    def report(_parent: Any, title: str, text: str, is_error: bool) -> None:
        reports.append((title, text, is_error))

    out = tmp_path / "exported"
    db = DatabaseExecutor(runner, lambda: demo)
    handle = export_rule_store_interactive(None, db, choose_folder=lambda _p: out, report=report)
    assert handle is not None
    qtbot.waitUntil(lambda: bool(reports), timeout=15_000)
    title, text, is_error = reports[-1]
    assert not is_error and title == "Rule store exported" and "Exported 2 standing rules" in text and str(out) in text
    assert validate_store(str(out)) == []
    loaded = {r.id: r for r in load_rules_from_dir(out, strict=True, quarantine=False)}
    assert set(loaded) == {"R-003", "R-004"}

    foreign = tmp_path / "someone-elses-rules"
    foreign.mkdir()
    (foreign / "R-001.yaml").write_text("id: R-001\n", encoding="utf-8")
    export_rule_store_interactive(None, db, choose_folder=lambda _p: foreign, report=report)
    qtbot.waitUntil(lambda: len(reports) == 2, timeout=15_000)
    title, text, is_error = reports[-1]
    assert is_error and title == "Export refused" and "is not empty" in text and "nothing in the folder" in text
    assert sorted(p.name for p in foreign.iterdir()) == ["R-001.yaml"]
    assert export_rule_store_interactive(None, db, choose_folder=lambda _p: None, report=report) is None
    closed = DatabaseExecutor(runner, lambda: None)
    assert export_rule_store_interactive(None, closed, report=report) is None and reports[-1][2]
    runner.wait_for_done(5000)
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=5000)


def test_the_queue_and_the_export_go_through_the_executor(qtbot: Any, panel: PromotionPanel, demo: StoreServices,
                                                            runner: JobRunner, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from submit_spy import not_through_executor, spy_submit_callers

    callers = spy_submit_callers(monkeypatch)
    refresh_and_wait(qtbot, panel)
    reports: list[tuple[str, str, bool]] = []
    handle = export_rule_store_interactive(None, DatabaseExecutor(runner, lambda: demo),
                                           choose_folder=lambda _p: tmp_path / "out",
                                           report=lambda _p, title, text, error: reports.append((title, text, error)))
    assert handle is not None
    qtbot.waitUntil(lambda: bool(reports), timeout=15_000)
    assert any("promotion queue" in c for c in callers) and any("export rule store" in c for c in callers)
    assert not_through_executor(callers) == []
