"""Memory for one huge line (issue 25 item 5).

A record over the per-record limit is refused by its size (file, line, limit) without being
decoded, its neighbours imported; a record within it is imported with a peak RSS of a
bounded multiple of its size (measured in a child process, not timed).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.corpus.jsonl import MAX_RECORD_BYTES, read_trajectory_bytes
from core.hashing import hash_json, hash_json_streamed

from benchmarks.huge_line import huge_line_drill
from tests.drills.stores import record

# Measured 9-11x on a loaded 2-core machine (22x before: the side cache, the 256 MB read
# buffer, the surrogate walk's copies and the canonical text were all held at once).
MAX_PEAK_RATIO = 14


def _line(i: int, **extra: object) -> bytes:
    return json.dumps(dict(record(i, "mem", success=False), **extra)).encode()


def test_a_one_line_record_over_the_limit_is_refused_with_its_line_and_the_limit() -> None:
    data = b"\n".join([_line(1), _line(2, task="x" * 5_000), _line(3)])
    result = read_trajectory_bytes(data, "big.jsonl", max_record_bytes=3_000)
    assert [r.line for r in result.records] == [1, 3]
    [issue] = result.issues
    assert (issue.file, issue.line) == ("big.jsonl", 2)
    assert "over the 3,000-byte limit for one record" in issue.reason


def test_a_pretty_printed_record_over_the_limit_is_refused_and_the_next_record_read() -> None:
    pretty = json.dumps(dict(record(2, "mem", success=False), task="y" * 5_000), indent=1).encode()
    data = b"\n".join([_line(1), pretty, _line(3)])
    result = read_trajectory_bytes(data, "big.jsonl", max_record_bytes=3_000)
    assert [r.trajectory_id for r in result.records] == ["F-00001", "F-00003"]
    [issue] = result.issues
    assert issue.line == 2 and "record (lines 2–" in issue.reason and "3,000-byte limit" in issue.reason


def test_the_default_limit_is_stated_in_the_refusal() -> None:
    result = read_trajectory_bytes(b'{"task": "' + b"z" * (MAX_RECORD_BYTES + 1) + b'"}\n', "f.jsonl")
    assert f"{MAX_RECORD_BYTES:,}-byte limit for one record" in result.issues[0].reason


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_the_streamed_hash_is_the_hash(value: object) -> None:
    assert hash_json_streamed(value) == hash_json(value)


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="peak RSS is read from /proc (Linux)")
def test_importing_a_24_mb_record_peaks_at_a_bounded_multiple_of_its_size(tmp_path: Path) -> None:
    result = huge_line_drill(tmp_path, 24)
    assert result.imported == 1
    assert result.ratio <= MAX_PEAK_RATIO, f"peak {result.peak_above_kb / 1024:.0f} MB, {result.ratio:.1f}x"
