"""Extraction accuracy per corpus against the labels: n, token_f1, semantic_f1, directive_f1,
token_agree and agreement side by side, one row per corpus.

Rates (token_agree, agreement) carry Wilson 95 % intervals; F1 values are means. A corpus with
nothing measurable shows why in every metric ("no ground truth", "no candidate", "no rule
expected"), never 0; semantic_f1 without an
embedding model is "—".
"""

from __future__ import annotations

from typing import Any

from core.labels.accuracy import CorpusAccuracy
from core.metrics.registry import EXTRACTION_METRICS
from core.stats.wilson import Rate

from cauterule_gui.models.rows_table_model import RowsTableModel

NO_TRUTH = "no ground truth"

COLUMNS: tuple[tuple[str, str], ...] = (
    ("Corpus", "corpus (folder relative to the import root)"),
    ("n", "trajectories measured: ground truth (adjudicated, your label, else the imported expected_rule) "
          "and an extracted candidate"),
    *((m.heading, m.column_tooltip()) for m in EXTRACTION_METRICS),  # the registry's order and names
    ("Excluded", "left out and counted (never scored 0): no ground truth / no rule expected / no candidate"),
)
(COL_CORPUS, COL_N, COL_TOKEN, COL_SEMANTIC, COL_DIRECTIVE, COL_TOKEN_AGREE, COL_AGREE,
 COL_EXCLUDED) = range(len(COLUMNS))


def unmeasured_reason(item: CorpusAccuracy) -> str:
    """Why a corpus has n = 0, in the reviewer's words: labelled trajectories without an
    extracted candidate are "no candidate" (labelling more will not help; replay / extraction
    will), not "no ground truth"."""
    if item.no_candidate:
        return "no candidate"
    if item.no_rule_expected and not item.no_ground_truth:
        return "no rule expected"
    return NO_TRUTH


def rate_text(rate: Rate, reason: str = NO_TRUTH) -> str:
    if rate.value is None:
        return reason
    if rate.ci is None:
        return f"{rate.value:.2f} ({rate.k}/{rate.n})"
    return f"{rate.value:.2f} [{rate.ci[0]:.2f}–{rate.ci[1]:.2f}] ({rate.k}/{rate.n})"


class LabelAccuracyModel(RowsTableModel[CorpusAccuracy]):
    COLUMNS = COLUMNS
    CENTRED = frozenset({COL_N, COL_TOKEN, COL_SEMANTIC, COL_DIRECTIVE})

    def cell(self, item: CorpusAccuracy, column: int) -> str:
        acc = item.accuracy
        empty = acc.n == 0
        if column == COL_CORPUS:
            return item.corpus
        if column == COL_N:
            return str(acc.n)
        if column in (COL_TOKEN, COL_SEMANTIC, COL_DIRECTIVE):
            if empty:
                return unmeasured_reason(item)
            value = {COL_TOKEN: acc.token_f1, COL_SEMANTIC: acc.semantic_f1, COL_DIRECTIVE: acc.directive_f1}[column]
            return "—" if value is None else f"{value:.3f}"
        if column == COL_TOKEN_AGREE:
            return rate_text(acc.token_agree, unmeasured_reason(item))
        if column == COL_AGREE:
            basis = "" if empty or item.agreement_basis == "semantic" else " lexical"
            return rate_text(acc.agreement, unmeasured_reason(item)) + basis
        if column == COL_EXCLUDED:
            return f"{item.no_ground_truth} / {item.no_rule_expected} / {item.no_candidate}"
        return ""

    def tooltip(self, item: CorpusAccuracy, column: int) -> str | None:
        from cauterule_gui.plain_text import plain_tooltip

        if column == COL_SEMANTIC and item.accuracy.semantic_f1 is None and item.accuracy.n:
            return "no embedding model in use (semantic matching off or unavailable): unmeasured, not 0"
        if column == COL_EXCLUDED:
            return (f"{item.no_ground_truth} without ground truth, {item.no_rule_expected} 'no rule expected', "
                    f"{item.no_candidate} without an extracted candidate; {item.conflicting} with conflicting "
                    "labels (need a lead's ruling)")
        if column == COL_N:
            sources = ", ".join(f"{n} {s}" for s, n in sorted(item.sources.items())) or "nothing measured"
            return plain_tooltip(f"ground truth from: {sources}")
        return super().tooltip(item, column)

    def foreground(self, item: CorpusAccuracy, column: int) -> Any:
        return None
