"""The window process never loads the embedding model: the promotion queue's semantic
similarity, the label feedback and the metrics dashboard's semantic comparators get their
vectors from a replay child. Real model, real panels; a spy on the model's loader in this
process (it still loads for real if called) must see no call."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import preset_reviewer

from core.embeddings import SentenceEmbedder
from core.importing import import_paths
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH
from core.replaying import materialise_expected_rules, run_replay
from core.store.engine import open_store

from cauterule_gui.jobs import JobRunner
from cauterule_gui.jobs.replay_process import ReplayProcess, share
from cauterule_gui.panels.labelling import LabellingPanel
from cauterule_gui.panels.metrics_dashboard import MetricsDashboardPanel
from cauterule_gui.panels.promotion import PromotionPanel
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices, open_services
from cauterule_gui.settings import make_settings

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model_out") / "demo.sqlite"
    store = open_store(path)
    try:
        import_paths(store, [DEMO])
        materialise_expected_rules(store)
        run_replay(store, REFERENCE_0_3_1)
        run_replay(store, WORKBENCH.with_(semantic=False))
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
def loads_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every load or encode of the model in this process (the real ones still run)."""
    calls: list[str] = []
    load, encode = SentenceEmbedder.load, SentenceEmbedder.encode

    def spied_load(self: SentenceEmbedder) -> None:
        calls.append("load")
        load(self)

    def spied_encode(self: SentenceEmbedder, texts: Any) -> Any:
        calls.append("encode")
        return encode(self, texts)

    monkeypatch.setattr(SentenceEmbedder, "load", spied_load)
    monkeypatch.setattr(SentenceEmbedder, "encode", spied_encode)
    return calls


@pytest.fixture
def children() -> Iterator[ReplayProcess]:
    """The window's replay process, as ``ReplayController`` shares it with the panels."""
    process = ReplayProcess()
    share(process)
    yield process
    process.stop()


def test_promotion_labelling_and_dashboard_get_semantic_scores_without_the_model_in_the_window(
    qtbot: Any, demo: StoreServices, runner: JobRunner, loads_here: list[str], children: ReplayProcess,
) -> None:
    torch_before = "sentence_transformers" in sys.modules
    preset_reviewer()

    promotion = PromotionPanel(lambda: demo, runner, ReviewerIdentity(make_settings()))
    qtbot.addWidget(promotion)
    with qtbot.waitSignal(promotion.queue_refreshed, timeout=300_000):
        promotion.semantic_box.setChecked(True)
    qtbot.waitUntil(lambda: not promotion.busy, timeout=60_000)
    assert "semantic" in promotion.similarity_label.text(), promotion.message.text()
    item = promotion.current_item()
    assert item is not None and item.gate("duplicates").data["method"] == "semantic"

    labelling = LabellingPanel(lambda: demo, runner, ReviewerIdentity(make_settings()))
    qtbot.addWidget(labelling)
    labelling.show()
    labelling.semantic_box.setChecked(True)
    labelling.refresh()
    pk = next(t.id for t in demo.corpora.list_trajectories(limit=10_000) if t.trajectory_id == "DF-GIT-001-push-non-ff")
    labelling.select_trajectory(pk)
    qtbot.waitUntil(lambda: labelling._context is not None and labelling._context.detail.id == pk, timeout=30_000)
    qtbot.keyClicks(labelling.trigger, "git push is rejected with non-fast-forward")
    qtbot.waitUntil(lambda: bool(labelling.last_feedback is not None and labelling.last_feedback.candidates
                                 and labelling.last_feedback.semantic_state == "on"), timeout=120_000)
    assert labelling.last_feedback.candidates[0].semantic_f1 is not None

    dashboard = MetricsDashboardPanel(demo, runner, semantic=True)
    qtbot.addWidget(dashboard)
    with qtbot.waitSignal(dashboard.data_loaded, timeout=300_000) as loaded:
        dashboard.refresh()
    assert loaded.args[0]["ruler"]["semantic"] == "on"
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=60_000)
    labelling.hide()

    assert loads_here == [], "the window process loaded or ran the embedding model"
    if not torch_before:
        assert "sentence_transformers" not in sys.modules
    assert children.pids, "the vectors came from a replay child"
