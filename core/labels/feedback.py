"""Live feedback while labelling: how the metric will score each extracted candidate.

The candidates of a trajectory are the rules extracted from it (``source_trajectory_pk`` is
that trajectory; the materialised ``expected_rule`` rules are left out, they *are* the old
ground truth). Each is scored against the label being typed with the extraction-accuracy
parts of ``core.metrics.extraction`` (reference §7): token F1, semantic F1, directive F1,
token agreement and agreement, side by side. The label's explicit trigger / directive split is
used directly (no first-comma parsing); each acceptable variant is scored too and the best
phrasing is reported.

Without an embedding model ``semantic_f1`` is ``None`` (never 0.0) and ``agreement`` is the
0.3.1 *lexical-mode* agreement (the matcher score with no cosine), marked
``agreement_basis = "lexical"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.domain.labels import LabelText, strip_when
from core.matching.profile import REFERENCE_0_3_1, REFERENCE_0_3_1_SEMANTIC
from core.metrics.extraction import (
    AGREEMENT_THRESHOLD,
    EmbedFn,
    ExtractionScore,
    directive_f1,
    parse_expected_rule,
    semantic_f1,
    token_f1,
)
from core.store.dto import RuleInfo
from core.store.engine import Store
from core.store.rule_repo import RuleRepository

EXTRACTED_KINDS = ("candidate", "standing", "user")


@dataclass(frozen=True)
class CandidateFeedback:
    rule_id: int
    origin: str
    kind: str
    trigger: str
    directive: str
    token_f1: float
    semantic_f1: float | None  # None: no embedding model
    directive_f1: float
    token_agree: bool
    agreement: bool
    agreement_basis: str  # "semantic" | "lexical"
    matched_phrasing: int  # 0 = the label itself, i = variant i (1-based)


@dataclass(frozen=True)
class LabelFeedback:
    trajectory_pk: int
    sentence: str
    candidates: tuple[CandidateFeedback, ...]
    semantic_state: str  # "on" | "unavailable"
    note: str | None = None  # e.g. why semantic matching is unavailable, or "no candidates"


def phrasings(text: LabelText) -> list[tuple[str, str]]:
    """(trigger, directive) of the label and of each acceptable variant sentence."""
    norm = text.normalised()
    result = [(strip_when(norm.trigger), norm.directive)]
    result.extend(parse_expected_rule(v) for v in norm.variants)
    return result


def score_against(
    trigger: str, directive: str, text: LabelText, embed: EmbedFn | None = None,
    threshold: float = AGREEMENT_THRESHOLD,
) -> tuple[ExtractionScore, int]:
    """Best score of an extracted (trigger, directive) over the label's phrasings, and which one."""
    profile = REFERENCE_0_3_1_SEMANTIC if embed is not None else REFERENCE_0_3_1
    best: tuple[tuple[bool, float, float, float], ExtractionScore, int] | None = None
    for index, (exp_trigger, exp_directive) in enumerate(phrasings(text)):
        tf1 = token_f1(trigger, exp_trigger)
        sf1 = semantic_f1(trigger, exp_trigger, profile, embed)
        score = ExtractionScore(
            token_f1=tf1, semantic_f1=sf1, directive_f1=directive_f1(directive, exp_directive),
            token_agree=tf1 >= threshold, agreement=sf1 >= threshold,
        )
        rank = (score.agreement, score.semantic_f1, score.token_f1, score.directive_f1)
        if best is None or rank > best[0]:
            best = (rank, score, index)
    assert best is not None
    return best[1], best[2]


def feedback_for_rules(
    trajectory_pk: int, rules: Sequence[RuleInfo], text: LabelText, embed: EmbedFn | None = None,
    semantic_note: str | None = None,
) -> LabelFeedback:
    items: list[CandidateFeedback] = []
    if not text.normalised().is_empty:
        for rule in rules:
            score, phrasing = score_against(rule.latest.trigger, rule.latest.directive, text, embed)
            items.append(
                CandidateFeedback(
                    rule_id=rule.id, origin=rule.origin, kind=rule.kind, trigger=rule.latest.trigger,
                    directive=rule.latest.directive, token_f1=score.token_f1,
                    semantic_f1=score.semantic_f1 if embed is not None else None,
                    directive_f1=score.directive_f1, token_agree=score.token_agree, agreement=score.agreement,
                    agreement_basis="semantic" if embed is not None else "lexical", matched_phrasing=phrasing,
                )
            )
    note = semantic_note if embed is None else None
    if not rules:
        note = "no candidate was extracted from this trajectory" + (f"; {note}" if note else "")
    elif text.normalised().is_empty:
        note = "the label says no rule is expected: nothing to compare"
    return LabelFeedback(trajectory_pk, text.sentence(), tuple(items), "on" if embed is not None else "unavailable",
                         note)


def extracted_rules(store: Store, trajectory_pk: int) -> list[RuleInfo]:
    """Rules extracted from this trajectory (not the materialised ``expected_rule`` ones)."""
    return [r for r in RuleRepository(store).list_rules(kinds=EXTRACTED_KINDS) if r.source_trajectory_pk == trajectory_pk]


def label_feedback(
    store: Store, trajectory_pk: int, text: LabelText, embed: EmbedFn | None = None,
    semantic_note: str | None = None,
) -> LabelFeedback:
    """Score every candidate extracted from ``trajectory_pk`` against the label being written.

    ``embed``: pass ``core.replaying.make_embedder(store)[0]`` when a model is available
    (the GUI builds it once); ``None`` gives lexical-only feedback with ``semantic_f1 = None``.
    """
    return feedback_for_rules(trajectory_pk, extracted_rules(store, trajectory_pk), text, embed, semantic_note)
