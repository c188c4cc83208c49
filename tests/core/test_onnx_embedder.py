"""The ONNX embedders: the same vectors as the torch path (within a stated tolerance), input
order kept through length buckets, built files keyed by the weights, caches kept apart."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.embeddings import (
    CachedEmbedder,
    EmbeddingUnavailable,
    SentenceEmbedder,
    model_id_for,
    onnx_build,
    open_embedder,
    resolve_embedder_kind,
    resolve_model_path,
)
from core.embeddings.onnx_build import FP32_TOLERANCE, INT8_MIN_COSINE, weights_digest
from core.embeddings.onnx_runtime import OnnxEmbedder, length_buckets
from core.store.embedding_repo import EmbeddingCacheRepository
from core.store.engine import open_store

# Empty, whitespace only, non-ASCII (accents, CJK, emoji), well over the 256-token window
# (truncated), a one-token text and ordinary failure text of several lengths.
TEXTS = [
    "",
    "   ",
    "x",
    "git push rejected non-fast-forward",
    "überprüfung fehlgeschlagen: 文件未找到 🚀 ñandú",
    "modulenotfounderror: no module named 'yaml' " * 60,
    "the docker daemon is not running; start it and retry the build",
    "timeout",
    "permission denied while writing /var/cache/apt/archives/lock (are you root?)",
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both ONNX files, built once for this module from the packaged weights."""
    folder = tmp_path_factory.mktemp("onnx")
    model = resolve_model_path()
    digest = weights_digest(model)
    onnx_build.onnx_file(model, quantised=True, folder=folder, digest=digest)  # builds fp32, then int8
    return folder


@pytest.fixture(scope="module")
def torch_vectors() -> np.ndarray:
    return SentenceEmbedder().encode(TEXTS)


def _onnx(kind: str, folder: Path) -> OnnxEmbedder:
    return OnnxEmbedder(resolve_model_path(), kind, onnx_folder=folder)


def test_onnx_vectors_equal_the_torch_vectors(built: Path, torch_vectors: np.ndarray) -> None:
    vectors = _onnx("onnx", built).encode(TEXTS)
    assert vectors.shape == torch_vectors.shape
    assert np.max(np.abs(vectors - torch_vectors)) <= FP32_TOLERANCE


def test_int8_vectors_point_where_the_torch_vectors_point(built: Path, torch_vectors: np.ndarray) -> None:
    vectors = _onnx("onnx-int8", built).encode(TEXTS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(vectors * torch_vectors, axis=1)) >= INT8_MIN_COSINE


def test_a_batch_gives_each_text_the_vector_it_gets_alone(built: Path) -> None:
    embedder = _onnx("onnx", built)
    # Lengths deliberately out of order, so the buckets reorder the texts and must put them back.
    together = embedder.encode(TEXTS)
    alone = np.vstack([embedder.encode([text]) for text in TEXTS])
    assert np.max(np.abs(together - alone)) <= FP32_TOLERANCE


@given(st.lists(st.integers(min_value=0, max_value=300), max_size=200), st.integers(min_value=1, max_value=70))
def test_length_buckets_cover_every_text_once_in_length_order(lengths: list[int], size: int) -> None:
    batches = length_buckets(lengths, size)
    flat = [index for batch in batches for index in batch]
    assert sorted(flat) == list(range(len(lengths)))
    assert all(1 <= len(batch) <= size for batch in batches)
    assert [lengths[index] for index in flat] == sorted(lengths)


def test_an_existing_build_is_reused_and_new_weights_get_a_new_file(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = resolve_model_path()
    exported: list[Path] = []
    monkeypatch.setattr(onnx_build, "_export", lambda source, target: exported.append(target) or target.touch())
    assert onnx_build.onnx_file(model, quantised=False, folder=built).is_file()
    assert exported == []  # same weights: the fixture's file, not a rebuild
    changed = tmp_path / "model"
    changed.mkdir()
    for item in model.iterdir():
        (changed / item.name).symlink_to(item)
    (changed / "config.json").unlink()
    (changed / "config.json").write_text((model / "config.json").read_text().replace("0.1", "0.2"))
    onnx_build.onnx_file(changed, quantised=False, folder=built)
    assert len(exported) == 1 and exported[0].name != onnx_build.onnx_file(model, False, built).name


def test_vectors_of_one_embedder_are_never_read_by_another(store_location: Path | str, built: Path) -> None:
    store = open_store(store_location)
    texts = ["module not found", "permission denied"]
    first = CachedEmbedder(SentenceEmbedder(), EmbeddingCacheRepository(store))
    first(texts)
    other = CachedEmbedder(_onnx("onnx-int8", built), EmbeddingCacheRepository(store))
    other(texts)
    assert other.stats.cache_hits == 0 and other.stats.embedded == 2
    repo = EmbeddingCacheRepository(store)
    assert repo.count(first.model_id) == 2 and repo.count(other.model_id) == 2
    assert first.model_id != other.model_id and other.model_id.endswith("+onnx-int8")
    store.close()


def test_the_torch_model_id_is_unchanged_so_existing_caches_stay_valid() -> None:
    model = resolve_model_path()
    assert SentenceEmbedder(model).model_id == model_id_for(model)


def test_the_setting_chooses_the_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CAUTERULE_WORKBENCH_EMBEDDER", "onnx-int8")
    assert isinstance(open_embedder(), OnnxEmbedder) and open_embedder().model_id.endswith("+onnx-int8")
    monkeypatch.delenv("CAUTERULE_WORKBENCH_EMBEDDER")
    assert isinstance(open_embedder(), SentenceEmbedder)  # torch is the default


def test_an_unknown_embedder_is_refused_in_one_line() -> None:
    with pytest.raises(EmbeddingUnavailable, match="unknown embedder 'tensorrt': expected one of torch, onnx, onnx-int8"):
        resolve_embedder_kind("tensorrt")


def test_replay_gets_the_embedder_the_setting_names(
    store_location: Path | str, built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.replaying import make_embedder

    monkeypatch.setenv("CAUTERULE_WORKBENCH_ONNX_DIR", str(built))
    store = open_store(store_location)
    embedder, why = make_embedder(store, embedder_setting="onnx")
    assert why is None and embedder is not None and embedder.model_id.endswith("+onnx")
    store.close()


def test_a_bad_embedder_setting_leaves_semantic_unavailable_with_the_reason(
    store_location: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.replaying import make_embedder

    monkeypatch.setenv("CAUTERULE_WORKBENCH_EMBEDDER", "gpu")
    store = open_store(store_location)
    embedder, why = make_embedder(store)
    assert embedder is None and why == "unknown embedder 'gpu': expected one of torch, onnx, onnx-int8"
    store.close()
