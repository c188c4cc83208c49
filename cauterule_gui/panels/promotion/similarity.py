"""Semantic similarity for the promotion queue (and the label feedback), computed by a
replay child process: the window process never loads the embedding model. The embedder
is made once per process and keeps the vectors it has fetched."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from core.promotion.similarity import Similarity, from_embedder

from cauterule_gui.jobs.remote_embedder import RemoteEmbedder

_EMBEDDER: RemoteEmbedder | None = None
_EMBEDDER_LOCK = threading.Lock()


def load_embedder() -> RemoteEmbedder:
    """The shared remote embedder, its model loaded in a child (raises ``EmbeddingUnavailable``
    with the child's reason). Call from a pool job: it waits for the child."""
    global _EMBEDDER
    with _EMBEDDER_LOCK:
        if _EMBEDDER is None:
            _EMBEDDER = RemoteEmbedder().load()  # the window's replay process (shared_process)
        return _EMBEDDER


def semantic_similarity(factory: Callable[[], Any]) -> Similarity:
    from core.embeddings import EmbeddingUnavailable

    try:
        return from_embedder(factory())
    except EmbeddingUnavailable as error:
        return from_embedder(None, str(error))
