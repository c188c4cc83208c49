"""The engine's evidence columns (``OutcomeColumns``): rows on demand, and saved without them."""

from __future__ import annotations

import struct

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from core.matching.batch import FLOOR_CODES, VIEW_CODES
from core.replay.engine import replay
from core.replay.outcome_columns import OutcomeColumns
from core.replay.profiles import WORKBENCH
from core.replay.types import PairOutcome, ReplayRule, ReplayTrajectory
from core.store.outcome_blocks import build, decode, outcomes_of, to_bytes

_floats = st.floats(allow_nan=True, allow_infinity=True, width=64)


@st.composite
def _columns(draw: st.DrawFn) -> OutcomeColumns:
    n = draw(st.integers(min_value=0, max_value=25))

    def floats() -> np.ndarray:
        return np.array(draw(st.lists(_floats, min_size=n, max_size=n)), dtype=np.float64)

    def codes(high: int) -> np.ndarray:
        return np.array(draw(st.lists(st.integers(0, high), min_size=n, max_size=n)), dtype=np.int8)

    return OutcomeColumns(
        trajectory_key=np.array(draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=n, max_size=n)),
                                dtype=np.int64),
        bucket=codes(4), score=floats(), token_f1=floats(), bigram=floats(),
        cosine=draw(st.sampled_from([None, "values"])) and floats(),
        view=codes(len(VIEW_CODES) - 1), view_names=VIEW_CODES,
        floor=codes(len(FLOOR_CODES) - 1), floor_names=FLOOR_CODES,
        threshold=floats(), margin=floats(),
    )


def _bits(row: PairOutcome) -> tuple[object, ...]:
    return tuple(struct.pack("<d", v) if isinstance(v, float) else v for v in row)


@given(_columns())
def test_a_block_saved_from_the_columns_reads_back_as_their_rows(columns: OutcomeColumns) -> None:
    stored = outcomes_of(decode(to_bytes(build(columns))))
    assert [_bits(o) for o in stored] == [_bits(o) for o in columns]


@given(_columns())
def test_the_block_from_the_columns_equals_the_block_from_their_rows(columns: OutcomeColumns) -> None:
    from_columns = outcomes_of(decode(to_bytes(build(columns))))
    from_rows = outcomes_of(decode(to_bytes(build(tuple(columns)))))
    assert [_bits(o) for o in from_columns] == [_bits(o) for o in from_rows]


def _small_run() -> list[OutcomeColumns]:
    records = [
        {"trajectory_id": tid, "task": task, "success": ok, "failure_class": None, "domain": "git",
         "steps": [{"step_number": 1, "tool": "bash", "input": None, "output": None, "error": error}]}
        for tid, task, ok, error in (
            ("F1", "push branch", False, "disk quota exceeded on volume data"),
            ("F2", "sync repo", False, "disk quota exceeded on volume logs"),
            ("F3", "build image", False, "layer cache corrupted"),
            ("S1", "retry copy after disk quota exceeded on volume", True, None),
        )
    ]
    trajectories = [ReplayTrajectory(i, r["trajectory_id"], "demo", "git", r["success"], None, r)
                    for i, r in enumerate(records)]
    out = replay([ReplayRule(key="r1", trigger="disk quota exceeded on volume")], trajectories,
                 WORKBENCH.with_(threshold=0.6, semantic=False))
    return [r.outcomes for r in out.results]  # type: ignore[misc]


def test_the_engine_hands_its_evidence_as_columns() -> None:
    (columns,) = _small_run()
    assert isinstance(columns, OutcomeColumns) and len(columns) == 4


def test_columns_equal_the_tuple_of_their_rows() -> None:
    (columns,) = _small_run()
    rows = tuple(columns)
    assert columns == rows and rows == columns and columns == list(rows)
    assert columns != rows[:-1] and hash(columns) == hash(rows)
    assert columns[0] == rows[0] and columns[1:] == rows[1:]


def test_rows_hold_names_and_python_values() -> None:
    (columns,) = _small_run()
    first = columns[0]
    assert first.bucket in {"prevented", "broken", "near_miss", "missed"}
    assert type(first.trajectory_key) is int and type(first.score) is float
    assert first.cosine is None and first.view in VIEW_CODES
