"""Live feedback: how the extraction metric would score each candidate against the label typed.

``semantic_f1`` is ``None`` when no embedding model is in use; it is shown as "—", never 0.
"""

from __future__ import annotations

from typing import Any

from core.labels.feedback import CandidateFeedback
from core.metrics.registry import EXTRACTION_METRICS, ExtractionMetric

from cauterule_gui import theme
from cauterule_gui.models.rows_table_model import RowsTableModel, one_line


def _tooltip(metric: ExtractionMetric) -> str:
    if not metric.needs_model:
        return metric.description
    if metric.aggregate == "mean":
        return metric.description + "; — when no embedding model is in use"
    return metric.description + " (the lexical-mode 0.3.1 comparator without a model)"


COLUMNS: tuple[tuple[str, str], ...] = (
    ("Candidate", "a rule extracted from this trajectory (origin, kind)"),
    ("Trigger", "the candidate's trigger (what the metric compares with your trigger)"),
    *((m.label, _tooltip(m)) for m in EXTRACTION_METRICS),  # the registry's order and names
)
COL_RULE, COL_TRIGGER, COL_TOKEN, COL_SEMANTIC, COL_DIRECTIVE, COL_TOKEN_AGREE, COL_AGREE = range(len(COLUMNS))


def _f(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _yes(value: bool) -> str:
    return "✓ yes" if value else "✗ no"


class LabelFeedbackModel(RowsTableModel[CandidateFeedback]):
    COLUMNS = COLUMNS
    CENTRED = frozenset({COL_TOKEN, COL_SEMANTIC, COL_DIRECTIVE, COL_TOKEN_AGREE, COL_AGREE})

    def cell(self, item: CandidateFeedback, column: int) -> str:
        if column == COL_RULE:
            return f"{item.origin} ({item.kind})"
        if column == COL_TRIGGER:
            return one_line(item.trigger)
        if column == COL_TOKEN:
            return _f(item.token_f1)
        if column == COL_SEMANTIC:
            return _f(item.semantic_f1)
        if column == COL_DIRECTIVE:
            return _f(item.directive_f1)
        if column == COL_TOKEN_AGREE:
            return _yes(item.token_agree)
        if column == COL_AGREE:
            return _yes(item.agreement) + ("" if item.agreement_basis == "semantic" else " (lexical)")
        return ""

    def tooltip(self, item: CandidateFeedback, column: int) -> str | None:
        from cauterule_gui.plain_text import plain_tooltip

        if column in (COL_RULE, COL_TRIGGER):
            phrasing = "your label" if item.matched_phrasing == 0 else f"variant {item.matched_phrasing}"
            return plain_tooltip(f"when: {item.trigger}\ndo: {item.directive}\nbest match: {phrasing}")
        return super().tooltip(item, column)

    def foreground(self, item: CandidateFeedback, column: int) -> Any:
        if column == COL_AGREE:
            swatch = theme.swatch("pass" if item.agreement else "fail")
            return None if swatch is None else swatch.foreground
        return None
