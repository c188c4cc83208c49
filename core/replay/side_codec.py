"""The trajectory side of a run (views, their index, recovered runs, domain-gate codes) as one
blob, so a store can keep it (``core.store.side_cache_repo``) and a new process's first run
reads it instead of building it.

The blob may come from a shared team server, so reading it runs no code: no pickle, no eval.
Layout: ``MAGIC``, a 4-byte little-endian header length, a JSON header, then the payload. The
header names the format, the engine version, the cache key, the trajectory count, the
payload's sha256, where the payload's JSON document is (every string: view texts, the
haystack's sources, vocabularies) and, per array, its dtype (from a fixed list per array),
shape and bytes (raw ``tobytes``). Whatever a blob holds, ``decode`` either returns the side a
fresh build returns or raises ``SideFormatError`` (checksum, sizes, bounds, orderings and
types are all checked); the caller then builds the side again.

What is cheap to derive is not stored: the joined texts and their starts, view sizes,
normalised domains, domain groups and success flags come from the views; the pool index is
built from the run's trajectories (the cache key covers the fields it reads).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import sparse

from core.matching.tables import DOMAIN_GROUPS
from core.matching.text import normalize
from core.matching.view_index import _GROUP_CODE, ViewIndex
from core.matching.views import TrajectoryViews
from core.matching.word_index import WordIndex
from core.replay.pools import PoolIndex
from core.replay.snapshot import ENGINE_VERSION
from core.replay.types import ReplayTrajectory

MAGIC = b"CRSIDE\x00\x01"
FORMAT_VERSION = 1

Side = tuple[list[TrajectoryViews], ViewIndex, PoolIndex, np.ndarray, np.ndarray]

_MATRICES = ("hay_tokens", "sig_tokens", "union_tokens", "ref_tokens", "hay_bigrams", "sig_bigrams")
_WORD_VIEWS = {"hay": "haystack", "sig": "signature", "ref": "reference_signature"}
_INDEX_DTYPES = ("<i4", "<i8")


class SideFormatError(ValueError):
    """A stored side that cannot be used (damaged, another format or engine, wrong sizes)."""


def side_key(key: tuple[Any, ...]) -> str:
    """The stored entry's key: sha256 over the in-memory cache's key (corpus hash, include_input,
    prune, the per-trajectory fields), the format version and the engine version."""
    text = json.dumps([FORMAT_VERSION, ENGINE_VERSION, *key], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def encode(side: Side, key: str) -> bytes:
    views, index, _pools, recovery, codes = side
    arrays: dict[str, np.ndarray] = {"recovery": recovery, "codes": codes}
    for name in _MATRICES:
        matrix: sparse.csr_matrix = getattr(index, name)
        arrays[f"{name}.indices"], arrays[f"{name}.indptr"] = matrix.indices, matrix.indptr
    token_of = sorted(index.vocab, key=index.vocab.__getitem__)  # in id order
    pairs = list(index.bigram_vocab)  # in column order (a dict built in that order, or ``BigramIds``)
    arrays["bigram_first"] = np.asarray([index.vocab[a] for a, _ in pairs], dtype=np.int64)
    arrays["bigram_second"] = np.asarray([index.vocab[b] for _, b in pairs], dtype=np.int64)
    words: dict[str, list[str]] | None = None
    if index.words is not None:
        words = {}
        for short in _WORD_VIEWS:
            word_index = index.words[short]
            words[short] = word_index.words
            arrays[f"words.{short}.flat"], arrays[f"words.{short}.ends"] = word_index.postings_flat
    arrays["source_counts"] = np.asarray([len(v.haystack_sources) for v in views], dtype=np.int64)
    # Column by column: one list per field checks and reads back far faster than one list per view.
    document = {
        "include_input": bool(views[0].include_input) if views else True,
        "texts": [[v.haystack for v in views], [v.signature for v in views],
                  [v.classfree_signature for v in views], [v.reference_signature for v in views]],
        "domain": [v.domain for v in views],
        "failure_class": [v.failure_class for v in views],
        "failure_point": [v.failure_point for v in views],
        "success": [v.success for v in views],
        "source_fields": [f for v in views for f, _ in v.haystack_sources],
        "source_texts": [t for v in views for _, t in v.haystack_sources],
        "vocab": token_of,
        "words": words,
    }
    chunks = [json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")]
    table: dict[str, list[Any]] = {}
    offset = len(chunks[0])
    for name, array in arrays.items():
        data = np.ascontiguousarray(array)
        if data.dtype.byteorder == ">":
            data = data.astype(data.dtype.newbyteorder("<"))
        raw = data.tobytes()
        table[name] = [data.dtype.str, list(data.shape), offset, len(raw)]
        chunks.append(raw)
        offset += len(raw)
    payload = b"".join(chunks)
    header = json.dumps({
        "format": FORMAT_VERSION, "engine_version": ENGINE_VERSION, "key": key, "count": len(views),
        "sha256": hashlib.sha256(payload).hexdigest(), "json": [0, len(chunks[0])], "arrays": table,
    }).encode("utf-8")
    return MAGIC + struct.pack("<I", len(header)) + header + payload


def decode(blob: bytes, key: str, trajectories: Sequence[ReplayTrajectory], include_input: bool) -> Side:
    """The side ``encode`` wrote for ``trajectories``, or ``SideFormatError``."""
    try:
        return _decode(bytes(blob), key, trajectories, include_input)
    except SideFormatError:
        raise
    except Exception as error:  # anything a hostile blob provokes is a format error, never a crash
        raise SideFormatError(f"unreadable side: {type(error).__name__}: {error}") from None


def _fail(what: str) -> SideFormatError:
    return SideFormatError(what)


def _decode(blob: bytes, key: str, trajectories: Sequence[ReplayTrajectory], include_input: bool) -> Side:
    if blob[:len(MAGIC)] != MAGIC:
        raise _fail("not a stored trajectory side (magic)")
    (size,) = struct.unpack_from("<I", blob, len(MAGIC))
    start = len(MAGIC) + 4
    if start + size > len(blob):
        raise _fail("truncated header")
    header = json.loads(blob[start:start + size].decode("utf-8"))
    if not isinstance(header, dict):
        raise _fail("header is not an object")
    if header.get("format") != FORMAT_VERSION or header.get("engine_version") != ENGINE_VERSION:
        raise _fail(f"format {header.get('format')!r} / engine {header.get('engine_version')!r}, "
                    f"expected {FORMAT_VERSION} / {ENGINE_VERSION}")
    count = len(trajectories)
    if header.get("key") != key or type(header.get("count")) is not int or header["count"] != count:
        raise _fail("key or trajectory count differs from the run's")
    payload = memoryview(blob)[start + size:]
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise _fail("checksum differs (truncated or damaged)")
    reader = _Payload(payload, header)
    document = json.loads(reader.section(header.get("json")).decode("utf-8"))
    if not isinstance(document, dict) or document.get("include_input") is not include_input:
        raise _fail("document is not an object, or the views were built with another include_input")
    views = tuple(_views(document, reader.array("source_counts", ("<i8",), (count,)), include_input))
    vocab_list = _strings(document.get("vocab"), "vocab")
    vocab = {token: i for i, token in enumerate(vocab_list)}
    if len(vocab) != len(vocab_list):
        raise _fail("vocab repeats a token")
    n_vocab = len(vocab_list)
    first, second = reader.array("bigram_first", _INDEX_DTYPES), reader.array("bigram_second", _INDEX_DTYPES)
    if first.shape != second.shape or first.ndim != 1 or not _within(first, n_vocab) or not _within(second, n_vocab):
        raise _fail("bigram ids out of range")
    token = vocab_list.__getitem__
    bigram_vocab = dict(zip(zip(map(token, first.tolist()), map(token, second.tolist())), range(first.size)))
    if len(bigram_vocab) != first.size:
        raise _fail("bigram vocab repeats a pair")
    widths = {"hay_bigrams": first.size, "sig_bigrams": first.size}
    matrices = {name: reader.matrix(name, count, widths.get(name, n_vocab)) for name in _MATRICES}
    recovery = reader.array("recovery", ("|b1",), (count,))
    codes = reader.array("codes", ("<i4",), (count,))
    if not _within(codes, len(_GROUP_CODE), low=-1):
        raise _fail("domain-gate code out of range")
    words = _word_indexes(document.get("words"), views, reader)
    hay_joined, hay_starts = _joined([v.haystack for v in views])
    sig_joined, sig_starts = _joined([v.signature for v in views])
    ref_joined, ref_starts = _joined([v.reference_signature for v in views])
    hay, sig = matrices["hay_tokens"], matrices["sig_tokens"]
    index = ViewIndex(
        views=views, vocab=vocab, hay_tokens=hay, sig_tokens=sig, union_tokens=matrices["union_tokens"],
        ref_tokens=matrices["ref_tokens"], hay_size=np.asarray(hay.sum(axis=1)).ravel(),
        sig_size=np.asarray(sig.sum(axis=1)).ravel(), bigram_vocab=bigram_vocab,
        hay_bigrams=matrices["hay_bigrams"], sig_bigrams=matrices["sig_bigrams"],
        hay_joined=hay_joined, hay_starts=hay_starts, sig_joined=sig_joined, sig_starts=sig_starts,
        ref_joined=ref_joined, ref_starts=ref_starts, domain_norm=_domain_norm(views),
        group=np.asarray(_per_distinct(_group, [v.failure_class for v in views]), dtype=np.int64),
        success=np.asarray([v.success for v in views], dtype=bool), words=words,
    )
    pools = PoolIndex.build(trajectories)
    for shared in (pools.keys, pools.failure, recovery, codes):  # reused by later runs: read-only
        shared.flags.writeable = False
    return list(views), index, pools, recovery, codes


class _Payload:
    """The payload's sections, each checked against the payload's bounds and its expected kind."""

    def __init__(self, payload: memoryview, header: dict[str, Any]) -> None:
        self.payload = payload
        table = header.get("arrays")
        if not isinstance(table, dict):
            raise _fail("array table is not an object")
        self.table = table

    def section(self, where: Any) -> bytes:
        if not (isinstance(where, list) and len(where) == 2 and all(type(x) is int and x >= 0 for x in where)):
            raise _fail("bad section bounds")
        offset, nbytes = where
        if offset + nbytes > len(self.payload):
            raise _fail("section beyond the payload")
        return bytes(self.payload[offset:offset + nbytes])

    def array(self, name: str, dtypes: tuple[str, ...], shape: tuple[int, ...] | None = None) -> np.ndarray:
        entry = self.table.get(name)
        if not (isinstance(entry, list) and len(entry) == 4 and entry[0] in dtypes and isinstance(entry[1], list)
                and all(type(x) is int and x >= 0 for x in entry[1])):
            raise _fail(f"array {name}: missing, or a dtype other than {dtypes}")
        dims = tuple(entry[1])
        if shape is not None and dims != shape:
            raise _fail(f"array {name}: shape {dims}, expected {shape}")
        dtype = np.dtype(entry[0])
        raw = self.section(entry[2:4])
        if len(raw) != dtype.itemsize * int(np.prod(dims, dtype=np.int64)):
            raise _fail(f"array {name}: {len(raw)} bytes do not fit its shape {dims}")
        return np.frombuffer(raw, dtype=dtype).reshape(dims).copy()  # writable, owns its memory

    def matrix(self, name: str, rows: int, cols: int) -> sparse.csr_matrix:
        indices = self.array(f"{name}.indices", _INDEX_DTYPES)
        indptr = self.array(f"{name}.indptr", _INDEX_DTYPES, (rows + 1,))
        _check_postings(name, indices, indptr, cols)
        return sparse.csr_matrix((np.ones(indices.size, dtype=np.float64), indices, indptr), shape=(rows, cols))


def _within(values: np.ndarray, high: int, low: int = 0) -> bool:
    return values.size == 0 or (int(values.min()) >= low and int(values.max()) < high)


def _check_postings(name: str, values: np.ndarray, ends: np.ndarray, bound: int) -> None:
    """CSR-style lists (``ends`` with a leading 0): each list strictly ascending, values in [0, bound)."""
    if values.ndim != 1 or ends.ndim != 1 or ends.size == 0 or int(ends[0]) != 0 or int(ends[-1]) != values.size \
            or bool(np.any(np.diff(ends) < 0)) or not _within(values, bound):
        raise _fail(f"{name}: list bounds or values out of range")
    row = np.repeat(np.arange(ends.size - 1), np.diff(ends))
    if bool(np.any((values[1:] <= values[:-1]) & (row[1:] == row[:-1]))):
        raise _fail(f"{name}: a list is not strictly ascending")


def _strings(value: Any, what: str, nullable: bool = False, count: int | None = None) -> list[Any]:
    allowed = {str, type(None)} if nullable else {str}
    if not isinstance(value, list) or not set(map(type, value)) <= allowed or (count is not None and len(value) != count):
        raise _fail(f"{what}: expected a list of {'' if count is None else count} strings")
    return value


def _views(document: dict[str, Any], source_counts: np.ndarray, include_input: bool) -> list[TrajectoryViews]:
    count = source_counts.size
    texts = document.get("texts")
    if not isinstance(texts, list) or len(texts) != 4:
        raise _fail("texts: expected four views")
    hay, sig, classfree, ref = (_strings(t, "texts", count=count) for t in texts)
    domain = _strings(document.get("domain"), "domain", True, count)
    klass = _strings(document.get("failure_class"), "failure_class", True, count)
    point = _strings(document.get("failure_point"), "failure_point", True, count)
    success = document.get("success")
    if not isinstance(success, list) or len(success) != count or not set(map(type, success)) <= {bool}:
        raise _fail("success: expected a list of booleans")
    total = int(source_counts.sum()) if count else 0
    if count and int(source_counts.min()) < 0:
        raise _fail("source counts: negative")
    fields = _strings(document.get("source_fields"), "source_fields", count=total)
    sources = list(zip(fields, _strings(document.get("source_texts"), "source_texts", count=total)))
    is_error = [field.endswith(".error") for field in fields]  # the steps' errors (see from_parts)
    ends = np.cumsum(source_counts).tolist()
    starts = [0, *ends[:-1]]
    from_parts = TrajectoryViews.from_parts
    out = []
    for i in range(count):
        a, b = starts[i], ends[i]
        own = tuple(sources[a:b])
        out.append(from_parts((hay[i], sig[i], classfree[i], ref[i]), domain[i], klass[i], success[i],
                              include_input, own, point[i], tuple(itertools.compress(own, is_error[a:b]))))
    return out


def _word_indexes(value: Any, views: Sequence[TrajectoryViews], reader: _Payload) -> dict[str, WordIndex] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != set(_WORD_VIEWS):
        raise _fail("words: expected one list per view")
    out = {}
    for short, view in _WORD_VIEWS.items():
        words = _strings(value[short], f"words.{short}")
        if len(set(words)) != len(words):
            raise _fail(f"words.{short}: a word repeats")
        flat = reader.array(f"words.{short}.flat", ("<i8",))
        ends = reader.array(f"words.{short}.ends", ("<i8",), (len(words),))
        _check_postings(f"words.{short}", flat, np.concatenate([[0], ends]).astype(np.int64), len(views))
        out[short] = WordIndex.from_postings([v.view_text(view) for v in views], words, flat, ends)
    return out


def _joined(texts: Sequence[str]) -> tuple[str, np.ndarray]:
    """``view_index._joined``'s answer: the texts joined by "\\n" and where each starts."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    starts = np.zeros(len(texts), dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=starts[1:])
    return "\n".join(texts), starts


def _domain_norm(views: Sequence[TrajectoryViews]) -> tuple[str | None, ...]:
    return tuple(_per_distinct(lambda d: None if d is None else normalize(d), [v.domain for v in views]))


def _per_distinct(fn: Any, values: list[Any]) -> list[Any]:
    """``[fn(v) for v in values]``, computed once per distinct value (few domains and classes)."""
    done = {v: fn(v) for v in dict.fromkeys(values)}
    return [done[v] for v in values]


def _group(failure_class: str | None) -> int:
    segment = failure_class.split("/")[0] if failure_class else ""
    group = DOMAIN_GROUPS.get(segment.lower()) if segment else None
    return -1 if group is None else _GROUP_CODE[group]
