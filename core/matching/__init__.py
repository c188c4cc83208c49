"""The matcher: re-implements ``cauterule.replay.matcher`` 0.3.1 with explanations.

* :mod:`.text` — normalisation, content tokens, stemming, bigrams
* :mod:`.views` — :class:`TrajectoryViews` (H, S, S⁻, R) from a raw record; position mapping
* :mod:`.profile` — :class:`MatcherProfile`; ``REFERENCE_0_3_1`` reproduces 0.3.1
* :mod:`.score` — scalar path: ``explain`` (ScoreParts, spans) and ``decide``
* :mod:`.batch` — [R, T] arrays for replay: ``score_matrix``, ``semantic_pairs``,
  ``cosine_matrix``

See docs/matcher.md.
"""

from core.matching.batch import (
    BLOCKED_CODES,
    FLOOR_CODES,
    VIEW_CODES,
    BatchScores,
    ViewIndex,
    index_views,
    score_matrix,
)
from core.matching.profile import (
    REFERENCE_0_3_1,
    REFERENCE_0_3_1_SEMANTIC,
    AliasPhraseMode,
    MatcherProfile,
    SemanticTarget,
)
from core.matching.rule import RuleText
from core.matching.score import (
    MatchDecision,
    ScoreParts,
    context_status,
    decide,
    domain_conflict,
    explain,
    prefilter_reason,
    trajectory_domain_group,
    trigger_domain_group,
)
from core.matching.semantic import cosine_matrix, semantic_pairs
from core.matching.views import Span, TrajectoryViews

__all__ = [
    "BLOCKED_CODES",
    "FLOOR_CODES",
    "REFERENCE_0_3_1",
    "REFERENCE_0_3_1_SEMANTIC",
    "VIEW_CODES",
    "AliasPhraseMode",
    "BatchScores",
    "MatchDecision",
    "MatcherProfile",
    "RuleText",
    "ScoreParts",
    "SemanticTarget",
    "Span",
    "TrajectoryViews",
    "ViewIndex",
    "context_status",
    "cosine_matrix",
    "decide",
    "domain_conflict",
    "explain",
    "index_views",
    "prefilter_reason",
    "score_matrix",
    "semantic_pairs",
    "trajectory_domain_group",
    "trigger_domain_group",
]
