"""One replay result's pair outcomes as a single columnar blob (``replay_outcome_block.data``).

Why columnar: a run at 10^5 trajectories x 10^3 rules stores millions of pairs, and a
row-per-pair insert costs ~4.5 us a row in Python's sqlite3 alone, more than the scoring.
A block is one ``INSERT`` per result; numpy reads it back without a Python loop.

Layout (little-endian), version 1::

    header  "CROB" | version u16 | reserved u16 | n u32 | meta_len u32     (16 bytes)
    meta    JSON {"strings": [...], "spans": null | [null | "<spans_json>", ...]},
            padded with spaces to a multiple of 8 bytes
    columns pk int64, score f64, token_f1 f64, bigram f64, cosine f64, threshold f64,
            margin f64, bucket u8, nulls u8 (bit 0 token_f1, 1 bigram, 2 cosine is None),
            view i16, floor i16 (index into "strings", -1 = None)

Floats are stored as they are (float64), so every value, -0.0 and NaN included, reads back
bit-identical; None is a mask bit, never a NaN sentinel.
"""

from __future__ import annotations

import itertools
import json
import operator
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt

from core.replay.buckets import BUCKET_NAMES as ENGINE_BUCKETS
from core.replay.outcome_columns import OutcomeColumns
from core.replay.types import PairOutcome

MAGIC = b"CROB"
VERSION = 1
BUCKETS: tuple[str, ...] = ("prevented", "broken", "near_miss", "missed", "no_effect")
BUCKET_CODE = {b: i for i, b in enumerate(BUCKETS)}
# The engine's bucket codes (``core.replay.buckets``) -> a block's.
_FROM_ENGINE = np.array([BUCKET_CODE[name] for name in ENGINE_BUCKETS], dtype=np.uint8)
_HEADER = struct.Struct("<4sHHII")
_FLOATS = ("score", "token_f1", "bigram", "cosine", "threshold", "margin")
_ROW_BYTES = 8 + 8 * len(_FLOATS) + 1 + 1 + 2 + 2
_NULL_BITS = {"token_f1": 1, "bigram": 2, "cosine": 4}


class OutcomeBlockError(ValueError):
    """A stored block that cannot be read (truncated, corrupt, or from a newer Workbench)."""


@dataclass(frozen=True)
class OutcomeBlock:
    """Columns of one result's outcomes; row i of every array is one pair."""

    pk: npt.NDArray[np.int64]
    bucket: npt.NDArray[np.uint8]  # index into BUCKETS
    score: npt.NDArray[np.float64]
    token_f1: npt.NDArray[np.float64]
    bigram: npt.NDArray[np.float64]
    cosine: npt.NDArray[np.float64]
    threshold: npt.NDArray[np.float64]
    margin: npt.NDArray[np.float64]
    nulls: npt.NDArray[np.uint8]
    view: npt.NDArray[np.int16]
    floor: npt.NDArray[np.int16]
    strings: tuple[str, ...]
    spans: tuple[str | None, ...] | None = None  # spans_json per row, only for runs that stored spans

    def __len__(self) -> int:
        return int(self.pk.shape[0])

    def take(self, index: npt.NDArray[Any]) -> OutcomeBlock:
        """The rows at ``index`` (a boolean mask or positions), in that order."""
        positions = np.flatnonzero(index) if index.dtype == np.bool_ else index
        return OutcomeBlock(
            **{name: getattr(self, name)[positions] for name in (
                "pk", "bucket", "score", "token_f1", "bigram", "cosine", "threshold", "margin", "nulls",
                "view", "floor")},
            strings=self.strings,
            spans=None if self.spans is None else tuple(self.spans[int(i)] for i in positions),
        )

    def rows(self) -> list[dict[str, Any]]:
        """Row dicts with the columns of the old ``replay_outcome`` rows (None where None)."""
        strings = self.strings
        columns = {name: getattr(self, name).tolist() for name in ("pk", "bucket", "view", "floor", *_FLOATS)}
        nulls = self.nulls.tolist()
        spans = self.spans
        found = []
        for i, null in enumerate(nulls):
            view, floor = columns["view"][i], columns["floor"][i]
            found.append({
                "trajectory_pk": columns["pk"][i], "bucket": BUCKETS[columns["bucket"][i]],
                "score": columns["score"][i],
                "token_f1": None if null & 1 else columns["token_f1"][i],
                "bigram": None if null & 2 else columns["bigram"][i],
                "cosine": None if null & 4 else columns["cosine"][i],
                "view": None if view < 0 else strings[view], "floor": None if floor < 0 else strings[floor],
                "threshold": columns["threshold"][i], "margin": columns["margin"][i],
                "spans_json": None if spans is None else spans[i],
            })
        return found


def _column(outcomes: Sequence[Any], k: int) -> Iterator[Any]:
    return map(itemgetter(k), outcomes)


def _codes(outcomes: Sequence[Any], k: int, strings: dict[str, int]) -> npt.NDArray[np.int16]:
    table: dict[str | None, int] = {None: -1}
    for value in set(_column(outcomes, k)):
        if value is not None:
            table[value] = strings.setdefault(value, len(strings))
    return np.fromiter(map(table.__getitem__, _column(outcomes, k)), dtype=np.int16, count=len(outcomes))


def _floats(outcomes: Sequence[Any], k: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    n = len(outcomes)
    array = np.fromiter(_column(outcomes, k), dtype=np.float64, count=n)  # None becomes NaN here
    nan = np.isnan(array)
    if not nan.any():
        return array, nan
    # Only a column with a NaN is looked at again, to tell None (a lexical run's cosines) from NaN.
    missing = np.fromiter(map(operator.is_, _column(outcomes, k), itertools.repeat(None)), dtype=np.bool_, count=n)
    array[missing] = 0.0
    return array, missing


def build(outcomes: Sequence[PairOutcome | tuple[Any, ...]], spans: Sequence[str | None] | None = None) -> OutcomeBlock:
    """The columns of ``outcomes`` (``PairOutcome`` field order); ``spans`` aligned with them.

    Each column is read with ``map(itemgetter(k), ...)`` into ``np.fromiter``: no container
    is allocated per pair. (A transpose by ``zip(*outcomes)`` allocated an iterator per pair,
    and with millions of pairs alive in a run every such allocation burst paid for full
    garbage-collector passes: 40 s of a 10^5 x 10^3 run.)
    """
    n = len(outcomes)
    if spans is not None and len(spans) != n:
        raise ValueError(f"spans: {len(spans)} entries for {n} outcomes")
    if isinstance(outcomes, OutcomeColumns):
        return _from_columns(outcomes, spans)
    # The fields are read by position: a row of another shape fails in itemgetter or numpy,
    # the first row is checked so that the message says what was expected.
    if n and len(outcomes[0]) != 10:
        raise ValueError(f"an outcome has {len(outcomes[0])} fields, expected the 10 of PairOutcome")
    try:
        buckets = np.fromiter(map(BUCKET_CODE.__getitem__, _column(outcomes, 1)), dtype=np.uint8, count=n)
    except KeyError as exc:
        raise ValueError(f"outcome bucket {exc.args[0]!r}: expected one of {', '.join(BUCKETS)}") from None
    strings: dict[str, int] = {}
    views, floors = _codes(outcomes, 6, strings), _codes(outcomes, 7, strings)
    nulls = np.zeros(n, dtype=np.uint8)
    floats: dict[str, npt.NDArray[np.float64]] = {}
    for name, k in zip(_FLOATS, (2, 3, 4, 5, 8, 9), strict=True):
        array, missing = _floats(outcomes, k)
        if name in _NULL_BITS:
            nulls |= missing.astype(np.uint8) * np.uint8(_NULL_BITS[name])
        elif missing.any():
            raise ValueError(f"outcome {name}: None at row {int(np.argmax(missing))}, expected a number")
        floats[name] = array
    return OutcomeBlock(
        pk=np.fromiter(_column(outcomes, 0), dtype=np.int64, count=n), bucket=buckets, nulls=nulls, view=views,
        floor=floors, strings=tuple(strings), spans=None if spans is None else tuple(spans), **floats,
    )


def _from_columns(columns: OutcomeColumns, spans: Sequence[str | None] | None) -> OutcomeBlock:
    """The engine's columns as they are: no row is built (the same block ``build`` makes
    from those rows, up to the order of ``strings``)."""
    n = len(columns)
    strings: dict[str, int] = {}

    def codes(values: npt.NDArray[np.int8], names: tuple[str | None, ...]) -> npt.NDArray[np.int16]:
        used = np.bincount(values, minlength=len(names)) if n else np.zeros(len(names), dtype=np.int64)
        table = np.full(len(names), -1, dtype=np.int16)
        for code, name in enumerate(names):
            if name is not None and used[code]:
                table[code] = strings.setdefault(name, len(strings))
        return table.take(values)

    views, floors = codes(columns.view, columns.view_names), codes(columns.floor, columns.floor_names)
    nulls = np.zeros(n, dtype=np.uint8)
    cosine = columns.cosine
    if cosine is None:
        nulls |= 4
        cosine = np.zeros(n, dtype=np.float64)
    return OutcomeBlock(
        pk=columns.trajectory_key.astype(np.int64, copy=False), bucket=_FROM_ENGINE.take(columns.bucket),
        score=columns.score, token_f1=columns.token_f1, bigram=columns.bigram, cosine=cosine,
        threshold=columns.threshold, margin=columns.margin, nulls=nulls, view=views, floor=floors,
        strings=tuple(strings), spans=None if spans is None else tuple(spans),
    )


def to_bytes(block: OutcomeBlock) -> bytes:
    """The stored form of ``block`` (see the module docstring)."""
    meta = json.dumps({"strings": list(block.strings),
                       "spans": None if block.spans is None else list(block.spans)}).encode()
    meta += b" " * (-len(meta) % 8)
    parts = [_HEADER.pack(MAGIC, VERSION, 0, len(block), len(meta)), meta, block.pk.astype("<i8").tobytes()]
    parts += [getattr(block, name).astype("<f8", copy=False).tobytes() for name in _FLOATS]
    parts += [block.bucket.astype("u1").tobytes(), block.nulls.astype("u1").tobytes(),
              block.view.astype("<i2").tobytes(), block.floor.astype("<i2").tobytes()]
    return b"".join(parts)


def encode(outcomes: Sequence[PairOutcome | tuple[Any, ...]], spans: Sequence[str | None] | None = None) -> bytes:
    """One stored block from ``outcomes``, ``spans`` (spans_json per outcome) aligned with them."""
    return to_bytes(build(outcomes, spans))


def decode(data: bytes, where: str = "outcome block") -> OutcomeBlock:
    """The block's columns (read-only views into ``data``); ``where`` names it in errors."""
    data = bytes(data)  # PostgreSQL hands back a memoryview
    if len(data) < _HEADER.size:
        raise OutcomeBlockError(f"{where}: {len(data)} bytes, shorter than its {_HEADER.size}-byte header")
    magic, version, _reserved, n, meta_len = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise OutcomeBlockError(f"{where}: starts with {magic!r}, expected {MAGIC!r} (not an outcome block)")
    if version != VERSION:
        raise OutcomeBlockError(f"{where}: format version {version}, this Workbench reads version {VERSION}")
    expected = _HEADER.size + meta_len + n * _ROW_BYTES
    if len(data) != expected:
        raise OutcomeBlockError(f"{where}: {len(data)} bytes, expected {expected} for {n} outcomes (truncated?)")
    try:
        meta = json.loads(data[_HEADER.size:_HEADER.size + meta_len])
        strings = tuple(str(s) for s in meta["strings"])
        spans = None if meta["spans"] is None else tuple(meta["spans"])
    except (ValueError, KeyError, TypeError) as exc:
        raise OutcomeBlockError(f"{where}: unreadable header ({exc})") from None
    offset = _HEADER.size + meta_len
    arrays: dict[str, Any] = {}
    for name, dtype in (("pk", "<i8"), *((f, "<f8") for f in _FLOATS), ("bucket", "u1"), ("nulls", "u1"),
                        ("view", "<i2"), ("floor", "<i2")):
        array = np.frombuffer(data, dtype=dtype, count=n, offset=offset)
        offset += array.nbytes
        arrays[name] = array
    if n and int(arrays["bucket"].max()) >= len(BUCKETS):
        raise OutcomeBlockError(f"{where}: bucket code {int(arrays['bucket'].max())}, expected < {len(BUCKETS)}")
    for name in ("view", "floor"):
        if n and not (-1 <= int(arrays[name].min()) and int(arrays[name].max()) < len(strings)):
            raise OutcomeBlockError(f"{where}: {name} code out of its table of {len(strings)} names")
    if spans is not None and len(spans) != n:
        raise OutcomeBlockError(f"{where}: {len(spans)} span entries for {n} outcomes")
    return OutcomeBlock(strings=strings, spans=spans, **arrays)


def outcomes_of(block: OutcomeBlock) -> list[PairOutcome]:
    """The block as ``PairOutcome`` tuples (None where stored None), in stored order."""
    return [
        PairOutcome(r["trajectory_pk"], r["bucket"], r["score"], r["token_f1"], r["bigram"], r["cosine"],
                    r["view"], r["floor"], r["threshold"], r["margin"])
        for r in block.rows()
    ]
