"""Content hashes used for change detection and evidence snapshots."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def canonical_json(value: Any) -> str:
    """A stable serialisation: same value, same text, same hash."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def hash_json(value: Any) -> str:
    return sha256_text(canonical_json(value))


def hash_json_streamed(value: Any) -> str:
    """``hash_json(value)`` without holding the canonical text and its UTF-8 copy at once:
    for a huge record (two copies of it). The pure-Python encoder is slower per item, so
    small values use :func:`hash_json`; both give the same text, hence the same hash."""
    digest = hashlib.sha256()
    encoder = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    for piece in encoder.iterencode(value):
        digest.update(piece.encode("utf-8"))
    return digest.hexdigest()
