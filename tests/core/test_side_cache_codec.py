"""The stored trajectory side: a blob read back is the side a fresh build returns, and any blob
that cannot be trusted (truncated, damaged, another version, hostile) is refused, never used."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_matching_batch import random_record

from core.replay import matcher_bridge as mb
from core.replay import side_codec
from core.replay.engine import build_trajectory_side, trajectory_side_key
from core.replay.inputs import trajectory_from_record
from core.replay.profiles import REFERENCE_0_3_1
from core.replay.snapshot import corpus_hash
from core.replay.types import ReplayTrajectory

MATCHER = mb.matcher_profile(REFERENCE_0_3_1.matcher, semantic=False)


def trajectories(seed: int, count: int = 30) -> list[ReplayTrajectory]:
    rng = random.Random(seed)
    out = []
    for key in range(count):
        record = random_record(rng)
        record["trajectory_id"] = f"T-{key % 25}"
        out.append(trajectory_from_record(key + 1, record, rng.choice(["golden", "field"])))
    return out


def built(ts: list[ReplayTrajectory], prune: bool | None = None) -> tuple[Any, str]:
    key = side_codec.side_key(trajectory_side_key(ts, True, prune, corpus_hash(ts)))
    return build_trajectory_side(ts, MATCHER, prune, None), key


def assert_same_side(a: Any, b: Any) -> None:
    """Every part a replay reads, compared field by field (sparse matrices entry by entry)."""
    assert a[0] == b[0]  # the views, with their sources
    for f in dataclasses.fields(a[1]):
        if not f.compare:
            continue
        x, y = getattr(a[1], f.name), getattr(b[1], f.name)
        if hasattr(x, "tocsr"):
            assert x.shape == y.shape and (x != y).nnz == 0, f.name
        elif isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y), f.name
        elif f.name == "words":
            assert (x is None) == (y is None)
            for view in x or {}:
                wx, wy = x[view], y[view]
                assert (wx.words, wx.texts, wx._joined, wx.scan_all, wx._exact) == (
                    wy.words, wy.texts, wy._joined, wy.scan_all, wy._exact)
                assert np.array_equal(wx._starts, wy._starts)
                assert len(wx.postings) == len(wy.postings)
                assert all(np.array_equal(p, q) for p, q in zip(wx.postings, wy.postings))
        else:
            assert x == y, f.name
    for name in ("ids", "keys", "domains", "failure"):
        assert np.array_equal(getattr(a[2], name), getattr(b[2], name)), name
    assert (a[2].id_positions, a[2].key_positions) == (b[2].id_positions, b[2].key_positions)
    for x, y in zip(a[3:], b[3:]):
        assert x.dtype == y.dtype and np.array_equal(x, y)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), prune=st.sampled_from([None, True, False]), count=st.integers(1, 40))
def test_a_side_read_back_equals_the_side_built(seed: int, prune: bool | None, count: int) -> None:
    ts = trajectories(seed, count)
    side, key = built(ts, prune)
    assert_same_side(side_codec.decode(side_codec.encode(side, key), key, ts, True), side)


def test_the_word_indexes_are_kept_when_the_side_has_them() -> None:
    ts = trajectories(7)
    side, key = built(ts, prune=True)
    back = side_codec.decode(side_codec.encode(side, key), key, ts, True)
    assert back[1].words is not None
    for view in ("hay", "sig", "ref"):
        for needle in ("error", "a b", "tim", " "):
            assert np.array_equal(back[1].contains(needle, view), side[1].contains(needle, view))


def test_the_shared_read_only_arrays_stay_read_only() -> None:
    ts = trajectories(3)
    side, key = built(ts)
    back = side_codec.decode(side_codec.encode(side, key), key, ts, True)
    assert not any(a.flags.writeable for a in (back[2].keys, back[2].failure, back[3], back[4]))


def _parts(blob: bytes) -> tuple[dict[str, Any], bytes]:
    size = struct.unpack_from("<I", blob, len(side_codec.MAGIC))[0]
    start = len(side_codec.MAGIC) + 4
    return json.loads(blob[start:start + size]), blob[start + size:]


def _sealed(header: dict[str, Any], payload: bytes) -> bytes:
    """A blob with a VALID checksum over ``payload``: what a hostile writer can produce."""
    header = {**header, "sha256": hashlib.sha256(payload).hexdigest()}
    raw = json.dumps(header).encode()
    return side_codec.MAGIC + struct.pack("<I", len(raw)) + raw + payload


def _refused(blob: bytes, ts: list[ReplayTrajectory], key: str, include_input: bool = True) -> str:
    with pytest.raises(side_codec.SideFormatError) as caught:
        side_codec.decode(blob, key, ts, include_input)
    return str(caught.value)


@pytest.fixture()
def case() -> tuple[list[ReplayTrajectory], str, bytes]:
    ts = trajectories(11)
    side, key = built(ts, prune=True)
    return ts, key, side_codec.encode(side, key)


@pytest.mark.parametrize("cut", [0, 5, 12, 100, -1, -200])
def test_a_truncated_blob_is_refused(case: tuple[list[ReplayTrajectory], str, bytes], cut: int) -> None:
    ts, key, blob = case
    _refused(blob[:cut], ts, key)


def test_a_flipped_byte_is_refused(case: tuple[list[ReplayTrajectory], str, bytes]) -> None:
    ts, key, blob = case
    damaged = bytearray(blob)
    damaged[len(blob) // 2] ^= 0x40
    assert "checksum" in _refused(bytes(damaged), ts, key)


def test_another_format_or_engine_version_is_refused(case: tuple[list[ReplayTrajectory], str, bytes]) -> None:
    ts, key, blob = case
    header, payload = _parts(blob)
    assert "format" in _refused(_sealed({**header, "format": side_codec.FORMAT_VERSION + 1}, payload), ts, key)
    assert "engine" in _refused(_sealed({**header, "engine_version": "0"}, payload), ts, key)


def test_a_side_of_other_trajectories_is_refused(case: tuple[list[ReplayTrajectory], str, bytes]) -> None:
    ts, key, blob = case
    _refused(blob, ts, "0" * 64)  # another key
    _refused(blob, ts[:-1], key)  # another count
    _refused(blob, ts, key, include_input=False)


def test_hostile_headers_are_refused(case: tuple[list[ReplayTrajectory], str, bytes]) -> None:
    ts, key, blob = case
    header, payload = _parts(blob)
    arrays = header["arrays"]
    hostile = [
        {**header, "arrays": {**arrays, "recovery": ["|O", [len(ts)], *arrays["recovery"][2:]]}},  # objects
        {**header, "arrays": {**arrays, "codes": ["<i4", [len(ts) + 1], *arrays["codes"][2:]]}},  # shape
        {**header, "arrays": {**arrays, "codes": ["<i4", [len(ts)], 0, 10**12]}},  # beyond the payload
        {**header, "json": [0, len(payload) + 1]},
        {**header, "json": "everything"},
        {**header, "arrays": []},
    ]
    for bad in hostile:
        _refused(_sealed(bad, payload), ts, key)
    _refused(side_codec.MAGIC + struct.pack("<I", 9) + b"[[[[[[[[[" + payload, ts, key)


def _with_array(header: dict[str, Any], payload: bytes, name: str, values: np.ndarray) -> bytes:
    """The blob with array ``name`` replaced (appended at the payload's end), sealed again."""
    raw = np.ascontiguousarray(values).tobytes()
    entry = [values.dtype.str, list(values.shape), len(payload), len(raw)]
    return _sealed({**header, "arrays": {**header["arrays"], name: entry}}, payload + raw)


def test_out_of_range_or_unordered_index_arrays_are_refused(case: tuple[list[ReplayTrajectory], str, bytes]) -> None:
    ts, key, blob = case
    header, payload = _parts(blob)
    side, _ = built(ts, prune=True)
    hay = side[1].hay_tokens
    too_far = hay.indices.copy()
    too_far[-1] = len(side[1].vocab)
    unordered = hay.indices.copy()
    row = int(np.argmax(np.diff(hay.indptr) >= 2))
    a = hay.indptr[row]
    unordered[a], unordered[a + 1] = unordered[a + 1], unordered[a]
    postings = side[1].words["hay"].postings_flat[0].copy()
    postings[0] = len(ts)
    for name, values in [("hay_tokens.indices", too_far), ("hay_tokens.indices", unordered),
                         ("hay_tokens.indptr", hay.indptr[::-1].copy()), ("words.hay.flat", postings),
                         ("codes", np.full(len(ts), 99, dtype=np.int32)),
                         ("bigram_first", np.full(len(side[1].bigram_vocab), -1, dtype=np.int64))]:
        _refused(_with_array(header, payload, name, values), ts, key)


def test_a_document_of_the_wrong_types_is_refused(case: tuple[list[ReplayTrajectory], str, bytes]) -> None:
    ts, key, blob = case
    header, payload = _parts(blob)
    start, size = header["json"]
    document = json.loads(payload[start:start + size])
    for field, value in [("success", [1] * len(ts)), ("domain", [{"x": 1}] * len(ts)), ("vocab", ["a", "a"]),
                         ("texts", document["texts"][:3]), ("source_texts", document["source_texts"][:-1]),
                         ("words", {"hay": []})]:
        raw = json.dumps({**document, field: value}).encode()
        _refused(_sealed({**header, "json": [len(payload), len(raw)]}, payload + raw), ts, key)
