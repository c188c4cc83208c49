"""What the reference embeds, and the cosine it computes, for the semantic blend.

0.3.1 embeds the normalised trigger T against S (H when S is empty) and, when S⁻ is
non-empty and differs from S, also against S⁻, keeping the larger cosine (#722, J11).
Each text goes to the embedder as ``embedding_key(text)`` (lowercased, whitespace
collapsed; an identity on already-normalised views), each cosine is clamped to [0, 1].
A missing or zero vector gives cosine 0, which therefore never changes the max.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.matching.profile import REFERENCE_0_3_1, MatcherProfile, SemanticTarget
from core.matching.rule import RuleText, prepare_rule
from core.matching.text import embedding_key
from core.matching.views import TrajectoryViews

__all__ = ["cosine_matrix", "semantic_pairs"]


def semantic_pairs(
    rules: Sequence[RuleText],
    views: Sequence[TrajectoryViews],
    profile: MatcherProfile = REFERENCE_0_3_1,
) -> tuple[list[str], list[str], list[str | None]]:
    """``(trigger_texts[R], primary_texts[T], secondary_texts[T])``: the exact strings the
    reference hands its embedder. A blank trigger (never embedded by the reference, its
    score is 0 anyway) gives ``""``. ``secondary`` is None where no second cosine is taken.
    """
    triggers = [embedding_key(prepare_rule(rule).norm_trigger) for rule in rules]
    primary: list[str] = []
    secondary: list[str | None] = []
    for view in views:
        if profile.semantic_target is SemanticTarget.HAYSTACK:
            primary.append(embedding_key(view.haystack))
            secondary.append(None)
            continue
        primary.append(embedding_key(view.signature or view.haystack))
        classfree = view.classfree_signature
        use = bool(classfree) and classfree != view.signature
        secondary.append(embedding_key(classfree) if use else None)
    return triggers, primary, secondary


def _rows(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    matrix = np.nan_to_num(np.atleast_2d(np.asarray(vectors, dtype=np.float64)), nan=0.0)
    return matrix, np.sqrt(np.einsum("ij,ij->i", matrix, matrix))


def _cosines(a: np.ndarray, norms_a: np.ndarray, b: np.ndarray, norms_b: np.ndarray) -> np.ndarray:
    """dot / (|a| |b|) like the reference (not dot of unit vectors: orthogonal integer vectors
    must give exactly 0, which switches the blend back to lexical weights); 0 for a zero
    vector; clamped to [0, 1]."""
    denominator = norms_a[:, None] * norms_b[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        cos = np.where(denominator == 0.0, 0.0, (a @ b.T) / denominator)
    return np.clip(cos, 0.0, 1.0)


@dataclass(frozen=True)
class CosineTargets:
    """The trajectory side of :func:`cosine_matrix`, converted and normed once: a replay
    computes many rule chunks against the same targets."""

    primary: np.ndarray
    primary_norms: np.ndarray
    secondary: np.ndarray | None
    secondary_norms: np.ndarray | None

    @classmethod
    def of(cls, primary_vecs: np.ndarray, secondary_vecs: np.ndarray | None = None,
           has_secondary: np.ndarray | None = None) -> CosineTargets:
        prim, prim_norms = _rows(primary_vecs)
        if secondary_vecs is None:
            return cls(prim, prim_norms, None, None)
        second, second_norms = _rows(secondary_vecs)
        if has_secondary is not None:
            second_norms = np.where(np.asarray(has_secondary, dtype=bool), second_norms, 0.0)
        return cls(prim, prim_norms, second, second_norms)

    def cosines(self, trigger_vecs: np.ndarray) -> np.ndarray:
        trig, trig_norms = _rows(trigger_vecs)
        cos = _cosines(trig, trig_norms, self.primary, self.primary_norms)
        if self.secondary is not None and self.secondary_norms is not None:
            cos = np.maximum(cos, _cosines(trig, trig_norms, self.secondary, self.secondary_norms))
        return cos


def cosine_matrix(
    trigger_vecs: np.ndarray,
    primary_vecs: np.ndarray,
    secondary_vecs: np.ndarray | None = None,
    has_secondary: np.ndarray | None = None,
) -> np.ndarray:
    """[R, T] cosine, clamped to [0, 1], max over the primary and secondary targets.

    ``secondary_vecs`` rows for trajectories without a secondary text may be zeros or NaN,
    or be masked out with ``has_secondary`` (bool [T]).
    """
    return CosineTargets.of(primary_vecs, secondary_vecs, has_secondary).cosines(trigger_vecs)
