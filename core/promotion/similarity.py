"""Text similarity for the near-duplicate and conflict gates.

Semantic (cosine of sentence embeddings, through ``core.embeddings``) when a model is
available, else lexical (set F1 over the extraction metric's tokens). Every result says which
method produced it: a lexical 0.4 and a cosine 0.4 are not the same claim.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from core.metrics.extraction import set_f1, tokens

EmbedFn = Callable[[Sequence[str]], np.ndarray]

# Thresholds per method. MiniLM cosines run high for any two sentences on one topic: two
# different git-push failures score ~0.64, paraphrases of one failure 0.72-0.98 (measured
# with all-MiniLM-L6-v2), so the semantic bar sits at 0.80.
DUPLICATE_THRESHOLD = {"semantic": 0.80, "lexical": 0.6}
# Directives BELOW these are "different"; two rules that fire together and say different
# things conflict.
DIRECTIVE_AGREE_THRESHOLD = {"semantic": 0.7, "lexical": 0.5}


@dataclass(frozen=True)
class Similarity:
    """Scores texts pairwise with one method; ``note`` says why semantic was not used."""

    method: str  # "semantic" | "lexical"
    embed: EmbedFn | None = None
    note: str | None = None

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        if not left or not right:
            return np.zeros((len(left), len(right)), dtype=np.float32)
        if self.embed is not None:
            vectors = self.embed(list(left) + list(right))
            a, b = vectors[: len(left)], vectors[len(left):]
            return np.asarray(np.clip(a @ b.T, -1.0, 1.0))
        lt = [tokens(t) for t in left]
        rt = [tokens(t) for t in right]
        return np.array([[set_f1(x, y) for y in rt] for x in lt], dtype=np.float32)

    def pair(self, a: str, b: str) -> float:
        return float(self.matrix([a], [b])[0, 0])


def lexical() -> Similarity:
    return Similarity("lexical", None, "lexical token F1 (semantic matching not requested)")


def from_embedder(embed: EmbedFn | None, why_not: str | None = None) -> Similarity:
    if embed is None:
        return Similarity("lexical", None, f"lexical token F1; semantic unavailable: {why_not}" if why_not
                          else "lexical token F1")
    return Similarity("semantic", embed, None)


def auto(store: object) -> Similarity:
    """Semantic if the store's embedding model loads, else lexical with the reason."""
    from core.replaying import make_embedder

    embedder, why = make_embedder(store)  # type: ignore[arg-type]
    return from_embedder(embedder, why)


def normalized(text: str | None) -> str:
    """Lowercased, whitespace collapsed: the reference's exact-duplicate key (#780)."""
    return " ".join((text or "").lower().split())
