"""Semantic similarity for the promotion queue: the model is loaded once per process, kept in memory."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from core.promotion.similarity import Similarity, from_embedder

# -- semantic similarity: the model is loaded once per process, kept in memory --------
_EMBEDDER: Any = None


_EMBEDDER_LOCK = threading.Lock()


def load_embedder() -> Callable[[Any], Any]:
    """An in-memory-cached embedder (raises ``EmbeddingUnavailable`` with the reason)."""
    global _EMBEDDER
    with _EMBEDDER_LOCK:
        if _EMBEDDER is None:
            from core.embeddings import CachedEmbedder, SentenceEmbedder

            model = SentenceEmbedder()
            model.load()
            _EMBEDDER = CachedEmbedder(model, None)  # no store cache: CPU jobs never write
        return _EMBEDDER  # type: ignore[no-any-return]


def semantic_similarity(factory: Callable[[], Any]) -> Similarity:
    from core.embeddings import EmbeddingUnavailable

    try:
        return from_embedder(factory())
    except EmbeddingUnavailable as error:
        return from_embedder(None, str(error))
