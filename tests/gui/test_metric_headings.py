"""The labelling screen's metric columns read their headings from the metric registry."""

from __future__ import annotations

from PySide6.QtCore import Qt

from core.metrics.registry import EXTRACTION_METRICS

from cauterule_gui.models.label_accuracy_model import LabelAccuracyModel
from cauterule_gui.models.label_feedback_model import LabelFeedbackModel


def _headings(model: LabelAccuracyModel | LabelFeedbackModel) -> list[str]:
    return [model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
            for c in range(model.columnCount())]


def test_accuracy_table_headings_are_the_registry_keys_in_order() -> None:
    headings = _headings(LabelAccuracyModel())
    assert headings[2:2 + len(EXTRACTION_METRICS)] == [m.heading for m in EXTRACTION_METRICS]


def test_feedback_table_headings_are_the_registry_labels_in_order() -> None:
    headings = _headings(LabelFeedbackModel())
    assert headings[2:] == [m.label for m in EXTRACTION_METRICS]


def test_a_model_metric_tooltip_says_what_happens_without_the_model() -> None:
    model = LabelAccuracyModel()
    semantic = [m.key for m in EXTRACTION_METRICS].index("semantic_f1") + 2
    tip = model.headerData(semantic, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "without an embedding model" in str(tip)
