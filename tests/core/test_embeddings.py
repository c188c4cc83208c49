"""Embeddings: the real bundled model, the persistent cache, honest unavailability."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.embeddings import CachedEmbedder, EmbeddingUnavailable, SentenceEmbedder, resolve_model_path
from core.store.embedding_repo import EmbeddingCacheRepository
from core.store.engine import open_store


@pytest.fixture(scope="module")
def embedder() -> SentenceEmbedder:
    model = SentenceEmbedder()
    model.load()
    return model


def test_bundled_model_is_resolved_without_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CAUTERULE_WORKBENCH_MODEL", raising=False)
    assert (resolve_model_path() / "config.json").is_file()


def test_a_setting_pointing_nowhere_is_unavailable_with_a_reason(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingUnavailable, match="holds no sentence-transformers model"):
        resolve_model_path(tmp_path)


def test_vectors_are_unit_length_and_paraphrases_are_close(embedder: SentenceEmbedder) -> None:
    vectors = embedder.encode(
        ["git push rejected non-fast-forward", "push was refused because the remote has new commits", "bake bread"]
    )
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_second_run_embeds_nothing_new(store_location: Path | str, embedder: SentenceEmbedder) -> None:
    store = open_store(store_location)  # the vector cache on each back end
    texts = ["module not found", "permission denied", "module not found"]
    first = CachedEmbedder(embedder, EmbeddingCacheRepository(store))
    vectors = first(texts)
    assert first.stats.embedded == 2
    second = CachedEmbedder(embedder, EmbeddingCacheRepository(store))
    again = second(texts)
    assert second.stats.embedded == 0 and second.stats.cache_hits == 2
    assert np.allclose(vectors, again)
    store.close()


def test_encoding_leaves_no_thread_behind(embedder: SentenceEmbedder) -> None:
    """A second Python thread (tqdm's monitor) would keep a replay from forking its scoring workers."""
    import threading

    embedder.encode(["git push is rejected", "docker build times out"])
    assert [t.name for t in threading.enumerate() if t.name == "tqdm_monitor"] == []
