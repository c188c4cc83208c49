"""The ONNX Runtime embedder: the bundled model's exported graph, length-bucketed batches.

Tokenisation is the model's own ``tokenizer.json`` (the Rust ``tokenizers`` library, which the
torch path uses too), truncated at the model's ``max_seq_length`` (256 tokens) exactly as
sentence-transformers truncates. Texts are sorted by token count and cut into batches of
similar length (``length_buckets``), so a batch is padded to its own longest text and not to the
longest of the call; vectors are put back in the caller's order. The graph itself ends with the
mean pooling and L2 normalisation (``onnx_build``), so its output is the final vector.

Loading needs no torch: a process that embeds only with ONNX never imports it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.embeddings import BATCH_SIZE, EmbeddingUnavailable, cpu_threads, model_id_for


def length_buckets(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices of ``lengths`` in batches of at most ``batch_size``, shortest texts first.

    The sort is stable, so equal lengths keep their input order and the batches are the same
    for the same input. Every index appears exactly once.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    order = sorted(range(len(lengths)), key=lambda index: lengths[index])
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def max_tokens(model_path: Path) -> int:
    """sentence-transformers' window: ``max_seq_length``, capped by the position embeddings."""
    limit = 512
    config = model_path / "config.json"
    if config.is_file():
        limit = int(json.loads(config.read_text(encoding="utf-8")).get("max_position_embeddings", limit))
    settings = model_path / "sentence_bert_config.json"
    if settings.is_file():
        limit = min(limit, int(json.loads(settings.read_text(encoding="utf-8")).get("max_seq_length", limit)))
    return limit


class OnnxEmbedder:
    """Same interface as ``SentenceEmbedder`` (``model_id``, ``load``, ``encode``, ``dimension``).

    ``kind`` is ``onnx`` or ``onnx-int8``; it is part of ``model_id``, so the store's vector
    cache keeps this embedder's vectors apart from the torch path's.
    """

    def __init__(self, model_path: Path, kind: str, onnx_folder: Path | None = None,
                 built_file: Path | None = None) -> None:
        if kind not in ("onnx", "onnx-int8"):
            raise ValueError(f"not an ONNX embedder: {kind!r}")
        self.model_path = model_path
        self.kind = kind
        self.model_id = f"{model_id_for(model_path)}+{kind}"
        self._folder = onnx_folder
        self._built_file = built_file
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    @classmethod
    def from_file(cls, model_path: Path, built_file: Path, quantised: bool) -> OnnxEmbedder:
        """An embedder over an already built file (the build's own check uses this)."""
        return cls(model_path, "onnx-int8" if quantised else "onnx", built_file=built_file)

    @property
    def quantised(self) -> bool:
        return self.kind == "onnx-int8"

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            try:
                import onnxruntime
                from tokenizers import Tokenizer

                from core.embeddings.onnx_build import onnx_dir, onnx_file

                path = self._built_file or onnx_file(self.model_path, self.quantised, self._folder or onnx_dir())
                tokenizer = Tokenizer.from_file(str(self.model_path / "tokenizer.json"))
                # tokenizer.json carries a fixed 128 padding/truncation from training: replaced
                # by the model's window and no padding (batches are padded per bucket here).
                tokenizer.enable_truncation(max_length=max_tokens(self.model_path))
                tokenizer.no_padding()
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = cpu_threads()
                options.inter_op_num_threads = 1
                options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
                self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
                self._tokenizer = tokenizer
            except EmbeddingUnavailable:
                raise
            except Exception as error:  # any failure here means "no semantic matching" with this embedder
                raise EmbeddingUnavailable(f"could not load the {self.kind} embedder for {self.model_path}: "
                                           f"{error}") from error

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.load()
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        for batch in length_buckets([len(e.ids) for e in encodings], BATCH_SIZE):
            width = max(len(encodings[index].ids) for index in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            types = np.zeros_like(ids)
            for row, index in enumerate(batch):
                encoding = encodings[index]
                ids[row, : len(encoding.ids)] = encoding.ids
                mask[row, : len(encoding.ids)] = encoding.attention_mask
                types[row, : len(encoding.ids)] = encoding.type_ids
            vectors = self._session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
            out[batch] = vectors
        return out

    @property
    def dimension(self) -> int:
        """The pooled vector's length: the transformer's hidden size (mean pooling keeps it)."""
        config = json.loads((self.model_path / "config.json").read_text(encoding="utf-8"))
        return int(config["hidden_size"])
