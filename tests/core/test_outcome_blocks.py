"""The columnar outcome block (``core.store.outcome_blocks``): exact round trip, clear errors."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.replay.types import PairOutcome
from core.store.outcome_blocks import BUCKETS, OutcomeBlockError, decode, encode, outcomes_of

_floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
_names = st.sampled_from(["haystack", "tail", "context", "error", "ä-view"])
_outcome = st.builds(
    PairOutcome, st.integers(min_value=-(2**63), max_value=2**63 - 1), st.sampled_from(BUCKETS), _floats,
    st.one_of(st.none(), _floats), st.one_of(st.none(), _floats), st.one_of(st.none(), _floats),
    st.one_of(st.none(), _names), st.one_of(st.none(), st.sampled_from(["cosine", "alias", "exact"])),
    _floats, _floats,
)


def _bits(value: object) -> object:
    """A float as its 8 bytes (NaN == NaN, -0.0 != 0.0); anything else as it is."""
    return struct.pack("<d", value) if isinstance(value, float) else value


def _exact(outcomes: list[PairOutcome]) -> list[tuple[object, ...]]:
    return [tuple(_bits(v) for v in o) for o in outcomes]


@given(st.lists(_outcome, max_size=60))
def test_every_field_reads_back_bit_identical(outcomes: list[PairOutcome]) -> None:
    assert _exact(outcomes_of(decode(encode(outcomes)))) == _exact(outcomes)


@given(st.lists(st.tuples(_outcome, st.one_of(st.none(), st.text(max_size=30))), max_size=20))
def test_stored_spans_read_back_per_row(pairs: list[tuple[PairOutcome, str | None]]) -> None:
    outcomes, spans = [o for o, _ in pairs], [s for _, s in pairs]
    assert [r["spans_json"] for r in decode(encode(outcomes, spans)).rows()] == spans


def test_an_empty_result_is_an_empty_block() -> None:
    block = decode(encode([]))
    assert len(block) == 0 and block.rows() == []


def test_none_parts_stay_none_and_nan_stays_nan() -> None:
    nan = float("nan")
    rows = decode(encode([PairOutcome(7, "missed", 0.0, None, None, None, None, None, 0.6, -0.6),  # type: ignore[arg-type]
                          PairOutcome(8, "broken", 0.9, nan, 0.5, nan, "tail", "cosine", 0.6, 0.3)])).rows()
    assert (rows[0]["token_f1"], rows[0]["bigram"], rows[0]["cosine"], rows[0]["view"]) == (None, None, None, None)
    assert math.isnan(rows[1]["token_f1"]) and math.isnan(rows[1]["cosine"]) and rows[1]["floor"] == "cosine"


def test_a_truncated_block_names_the_result_and_the_sizes() -> None:
    data = encode([PairOutcome(1, "prevented", 0.9, 0.9, 0.8, None, "tail", None, 0.6, 0.3)])
    with pytest.raises(OutcomeBlockError, match=r"result 12: \d+ bytes, expected \d+ for 1 outcomes \(truncated"):
        decode(data[:-3], "outcome block of replay result 12")


def test_a_blob_that_is_not_a_block_is_refused() -> None:
    with pytest.raises(OutcomeBlockError, match="not an outcome block"):
        decode(b"SQLite format 3\x00" + bytes(40))
    with pytest.raises(OutcomeBlockError, match="shorter than its 16-byte header"):
        decode(b"CROB")


def test_a_newer_format_version_is_refused() -> None:
    data = bytearray(encode([]))
    data[4:6] = struct.pack("<H", 2)
    with pytest.raises(OutcomeBlockError, match="format version 2, this Workbench reads version 1"):
        decode(bytes(data))


def test_a_corrupt_bucket_code_is_refused() -> None:
    data = bytearray(encode([PairOutcome(1, "prevented", 0.9, 0.9, 0.8, None, None, None, 0.6, 0.3)]))
    data[-6] = 9  # the bucket byte of the only row (bucket u1, nulls u1, view i2, floor i2 follow the floats)
    with pytest.raises(OutcomeBlockError, match="bucket code 9"):
        decode(bytes(data))


def test_an_unknown_bucket_is_refused_when_encoding() -> None:
    with pytest.raises(ValueError, match="outcome bucket 'maybe': expected one of prevented"):
        encode([PairOutcome(1, "maybe", 0.9, 0.9, 0.8, None, None, None, 0.6, 0.3)])  # type: ignore[arg-type]
