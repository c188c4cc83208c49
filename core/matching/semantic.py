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

from core.matching.profile import REFERENCE_0_3_1, MatcherProfile
from core.matching.rule import RuleText, condition_of, prepare_rule
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
    ``profile.semantic_target`` says which texts (``SemanticTarget``); the default is 0.3.1's.
    """
    target = profile.semantic_target
    if target.embeds_condition:  # blank triggers stay blank (cosine 0, as the reference's)
        triggers = [embedding_key(condition_of(rule.trigger)) if not prepare_rule(rule).blank else ""
                    for rule in rules]
    else:
        triggers = [embedding_key(prepare_rule(rule).norm_trigger) for rule in rules]
    primary: list[str] = []
    secondary: list[str | None] = []
    for view in views:
        if target.embeds_haystack:
            primary.append(embedding_key(view.haystack))
            secondary.append(None)
            continue
        errors = view.error_text if target.embeds_errors else ""
        if errors:  # the failure itself, without the point and the label
            primary.append(embedding_key(errors))
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
    computes many rule chunks against the same targets.

    Built with :meth:`of_table`, each distinct target vector is multiplied once however many
    trajectories share it (at 10^5 trajectories 42% of the primary texts and 15% of the
    secondary ones are distinct) and the products are spread to the trajectories after."""

    primary: np.ndarray  # [U, D] float64
    primary_norms: np.ndarray
    secondary: np.ndarray | None = None  # [Us, D]
    secondary_norms: np.ndarray | None = None
    primary_index: np.ndarray | None = None  # [T] row of `primary` per trajectory (None: row t)
    secondary_columns: np.ndarray | None = None  # trajectories with a secondary target (None: all)
    secondary_index: np.ndarray | None = None  # row of `secondary` per secondary column

    @classmethod
    def of(cls, primary_vecs: np.ndarray, secondary_vecs: np.ndarray | None = None,
           has_secondary: np.ndarray | None = None) -> CosineTargets:
        prim, prim_norms = _rows(primary_vecs)
        if secondary_vecs is None:
            return cls(prim, prim_norms)
        second, second_norms = _rows(secondary_vecs)
        if has_secondary is not None:
            second_norms = np.where(np.asarray(has_secondary, dtype=bool), second_norms, 0.0)
        return cls(prim, prim_norms, second, second_norms)

    @classmethod
    def of_table(cls, table: np.ndarray, primary_rows: np.ndarray, secondary_rows: np.ndarray) -> CosineTargets:
        """``table`` [N, D]: one vector per distinct text; ``primary_rows`` / ``secondary_rows``
        [T]: each trajectory's row in it, -1 for no text (cosine 0; no secondary cosine)."""
        table = np.atleast_2d(np.asarray(table))
        padded = np.vstack([table, np.zeros((1, table.shape[1]), dtype=table.dtype)])  # row -1: zeros
        used, inverse = np.unique(np.asarray(primary_rows, dtype=np.int64), return_inverse=True)
        prim, prim_norms = _rows(padded[used])
        secondary_rows = np.asarray(secondary_rows, dtype=np.int64)
        columns = np.flatnonzero(secondary_rows >= 0)
        second_used, second_inverse = np.unique(secondary_rows[columns], return_inverse=True)
        second, second_norms = _rows(padded[second_used].reshape(len(second_used), table.shape[1]))
        return cls(prim, prim_norms, second, second_norms, inverse.reshape(-1), columns, second_inverse.reshape(-1))

    def cosines(self, trigger_vecs: np.ndarray) -> np.ndarray:
        trig, trig_norms = _rows(trigger_vecs)
        cos = _cosines(trig, trig_norms, self.primary, self.primary_norms)
        if self.primary_index is not None:
            cos = np.take(cos, self.primary_index, axis=1)
        if self.secondary is not None and self.secondary_norms is not None:
            second = _cosines(trig, trig_norms, self.secondary, self.secondary_norms)
            if self.secondary_index is not None:
                second = np.take(second, self.secondary_index, axis=1)
            if self.secondary_columns is None:
                np.maximum(cos, second, out=cos)
            else:
                cos[:, self.secondary_columns] = np.maximum(cos[:, self.secondary_columns], second)
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
