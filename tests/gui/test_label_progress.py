"""The Label tab's progress figure and the real reason a corpus is not measured."""

from __future__ import annotations

from typing import Any

from core.labels.accuracy import CorpusAccuracy
from core.metrics.extraction import aggregate

from cauterule_gui.main_window import MainWindow
from cauterule_gui.models.label_accuracy_model import COL_AGREE, COL_TOKEN, LabelAccuracyModel


def _unmeasured(corpus: str, no_truth: int, no_rule: int, no_candidate: int) -> CorpusAccuracy:
    return CorpusAccuracy(corpus=corpus, reviewer="me", accuracy=aggregate([], excluded=no_truth + no_rule + no_candidate),
                          semantic_state="unavailable", agreement_basis="lexical", sources={},
                          no_ground_truth=no_truth, no_rule_expected=no_rule, no_candidate=no_candidate,
                          conflicting=0, rows=())


def test_labelled_trajectories_without_a_candidate_read_no_candidate(qapp: Any) -> None:
    model = LabelAccuracyModel()
    model.set_rows([_unmeasured("labelled-but-not-extracted", 3, 0, 4), _unmeasured("never-labelled", 5, 0, 0)])
    assert model.index(0, COL_TOKEN).data() == "no candidate"
    assert model.index(0, COL_AGREE).data().startswith("no candidate")
    assert model.index(1, COL_TOKEN).data() == "no ground truth"


def test_the_progress_figure_counts_my_labels_in_this_corpus(qtbot: Any, window: MainWindow) -> None:
    window.identity.set_name("labeller")
    labelling = window.workflows.labelling
    labelling.set_filter(corpus="failures")
    qtbot.waitUntil(lambda: labelling.progress.progress is not None
                    and labelling.progress.progress.corpus == "failures", timeout=10_000)
    assert labelling.progress.text() == "0 / 3 labelled in this corpus (failures)"
    qtbot.waitUntil(lambda: labelling.current_pk() is not None and not labelling._loading, timeout=10_000)
    qtbot.keyClicks(labelling.trigger, "when a rollout times out")
    qtbot.keyClicks(labelling.directive, "check the readiness probe")
    labelling.save_now()
    qtbot.waitUntil(lambda: labelling.progress.text() == "1 / 3 labelled in this corpus (failures)", timeout=10_000)
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=10_000)


def test_semantic_feedback_turns_on_once_the_model_is_ready_unless_switched_off(
        qtbot: Any, window: MainWindow) -> None:
    from cauterule_gui.settings import make_settings

    box = window.workflows.labelling.semantic_box
    assert not box.isChecked()
    window.replay.model_state_changed.emit("semantic matching ready (model@test)")
    assert not box.isChecked()  # not while another tab is in front (it would load the model here)
    window.tabs.setCurrentWidget(window.workflows.labelling)
    assert box.isChecked()
    box.click()  # the reviewer switches it off: remembered, and the model state no longer overrides it
    assert make_settings().value("label/semantic") in (False, "false")
    window.replay.model_state_changed.emit("semantic matching ready (model@test)")
    assert not box.isChecked()
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=60_000)
