"""The extraction metrics, each declared once: key, names, what it needs, how it is computed, its null rule.

Everything that names or lists an extraction metric reads it from here: the per-corpus
aggregate (``core.metrics.extraction``), the ruler's comparators, floors and figures, the
labelling views (``core.labels``), the team comparison (``core.agreement.team``), the report
(``core.report``) and the GUI's tables. Adding a metric is one entry here plus its per-pair
function; a screen that lists metrics picks it up.

The per-pair values themselves are computed by ``core.metrics.extraction.score_rule`` (one
pass over both halves of a rule); ``score`` below reads a metric's value from that
``ExtractionScore``, and ``aggregate`` says how per-pair values become a corpus figure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the registry is pure declaration; extraction imports it, not the other way round
    from core.metrics.extraction import ExtractionScore

Aggregate = Literal["mean", "rate"]

AGREEMENT_THRESHOLD = 0.6  # both agreement rates: a per-pair F1 at or above it counts as agreeing

MEAN_NULL_RULE = "None when nothing was measurable (n = 0): unmeasured, shown as such, never 0.0 (J10)"
RATE_NULL_RULE = "a Rate with value None and no interval at n = 0, never 0/0 shown as 0 (J10)"


@dataclass(frozen=True)
class ExtractionMetric:
    key: str  # the field of ExtractionScore / ExtractionAccuracy, the report's key and column heading
    label: str  # the readable column heading ("Token F1")
    ruler_label: str  # the name in the ruler's tables ("extraction agreement")
    description: str  # what it measures, one line (tooltips, the ruler's claim)
    computed: str  # how a pair is scored, in words
    aggregate: Aggregate  # "mean" of per-pair values in [0, 1], or "rate": k agreeing of n with a Wilson interval
    needs_model: bool  # meaning needs the embedding model (without one: lexical matcher, or None where so noted)
    null_rule: str
    score: Callable[[ExtractionScore], float | bool]  # the pair's value, read from score_rule's result
    in_ruler: bool = True  # the ruler checks it with a comparator (canaries, floor, figure)

    @property
    def heading(self) -> str:
        """The report's and the accuracy table's column heading: the key itself, so a number in a
        table can be found in the JSON under the same name."""
        return self.key

    def column_tooltip(self) -> str:
        """The accuracy table's header tooltip (plain text)."""
        text = ("mean " + self.description) if self.aggregate == "mean" else self.description
        if self.aggregate == "rate":
            text += ", with the Wilson 95 % interval"
        if self.needs_model and self.aggregate == "mean":
            text += "; — without an embedding model"
        return text


TOKEN_F1 = ExtractionMetric(
    key="token_f1", label="Token F1", ruler_label="token_f1",
    description="word-overlap F1 of the triggers (surface form)",
    computed="set F1 of the metric's own tokens (19 stop words, no stemming) of the two triggers",
    aggregate="mean", needs_model=False, null_rule=MEAN_NULL_RULE, score=lambda s: s.token_f1,
)
SEMANTIC_F1 = ExtractionMetric(
    key="semantic_f1", label="Semantic F1", ruler_label="semantic_f1",
    description="the matcher's score both ways on the triggers (meaning)",
    computed="max(matcher score of a as trigger vs b as task, b vs a), prefilter not applied (0.3.1)",
    aggregate="mean", needs_model=True,
    null_rule=MEAN_NULL_RULE + "; the labelling and team views also show None without an embedding model "
    "(the report uses the 0.3.1 lexical matcher and says so)",
    score=lambda s: s.semantic_f1,
)
DIRECTIVE_F1 = ExtractionMetric(
    key="directive_f1", label="Directive F1", ruler_label="directive_f1",
    description="word-overlap F1 of the directives (the 'do' half, surface form)",
    computed="set F1 of the metric's tokens of the two directives; 0 when the expected rule has no directive",
    aggregate="mean", needs_model=False, null_rule=MEAN_NULL_RULE, score=lambda s: s.directive_f1,
)
TOKEN_AGREE = ExtractionMetric(
    key="token_agree", label="Token agree", ruler_label="token_agree",
    description=f"token_f1 ≥ {AGREEMENT_THRESHOLD} on the trigger: a rate",
    computed=f"token_f1 >= {AGREEMENT_THRESHOLD}", aggregate="rate", needs_model=False, null_rule=RATE_NULL_RULE,
    score=lambda s: s.token_agree, in_ruler=False,
)
AGREEMENT = ExtractionMetric(
    key="agreement", label="Agreement", ruler_label="extraction agreement",
    description=f"semantic_f1 ≥ {AGREEMENT_THRESHOLD} on the trigger only (J6): a rate, the headline comparator",
    computed=f"semantic_f1 >= {AGREEMENT_THRESHOLD} on the trigger; a reworded directive never lowers it (J6)",
    aggregate="rate", needs_model=True, null_rule=RATE_NULL_RULE, score=lambda s: s.agreement,
)

EXTRACTION_METRICS: tuple[ExtractionMetric, ...] = (TOKEN_F1, SEMANTIC_F1, DIRECTIVE_F1, TOKEN_AGREE, AGREEMENT)
MEAN_METRICS = tuple(m for m in EXTRACTION_METRICS if m.aggregate == "mean")
RATE_METRICS = tuple(m for m in EXTRACTION_METRICS if m.aggregate == "rate")
RULER_METRICS = tuple(m for m in EXTRACTION_METRICS if m.in_ruler)


def metric(key: str) -> ExtractionMetric:
    """The metric called ``key`` (a ``KeyError`` names the known ones)."""
    for m in EXTRACTION_METRICS:
        if m.key == key:
            return m
    raise KeyError(f"no extraction metric {key!r}; known: {', '.join(m.key for m in EXTRACTION_METRICS)}")


def metric_keys() -> tuple[str, ...]:
    return tuple(m.key for m in EXTRACTION_METRICS)
