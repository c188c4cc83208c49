"""The trajectory side built slice by slice (``core.matching.view_tokens``,
``core.replay.side_slices``): the index merged from any slicing is the index of one pass
(vocabulary order, every matrix, the word indexes), helpers that build slices in forked
processes give the same side and are always reaped, and records kept as JSON text read as
their objects."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import random
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_matching_batch import random_record

from core.matching.view_index import ViewIndex, index_views
from core.matching.view_tokens import tokenize_slice
from core.matching.views import TrajectoryViews
from core.replay import engine, parallel, side_slices
from core.replay import matcher_bridge as mb
from core.replay.cancel import Cancelled
from core.replay.inputs import trajectory_from_record
from core.replay.types import ReplayTrajectory

MATRICES = ("hay_tokens", "sig_tokens", "union_tokens", "ref_tokens", "hay_bigrams", "sig_bigrams")


def _records(seed: int, count: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [random_record(rng) for _ in range(count)]


def _assert_same_index(a: ViewIndex, b: ViewIndex) -> None:
    assert list(a.vocab.items()) == list(b.vocab.items())  # the same ids, in the same order
    assert list(a.bigram_vocab.items()) == list(b.bigram_vocab.items())
    for name in MATRICES:
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape, name
        for part in ("indptr", "indices", "data"):
            assert getattr(x, part).dtype == getattr(y, part).dtype, (name, part)
            assert getattr(x, part).tobytes() == getattr(y, part).tobytes(), (name, part)
    for name in ("hay_size", "sig_size", "hay_starts", "sig_starts", "ref_starts", "group", "success"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    assert (a.hay_joined, a.sig_joined, a.ref_joined) == (b.hay_joined, b.sig_joined, b.ref_joined)
    assert a.domain_norm == b.domain_norm
    assert (a.words is None) == (b.words is None)
    for short in a.words or {}:
        assert b.words is not None
        wa, wb = a.words[short], b.words[short]
        assert wa.words == wb.words, short
        assert [p.tobytes() for p in wa.postings] == [p.tobytes() for p in wb.postings], short


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), count=st.integers(0, 40), cuts=st.lists(st.integers(0, 40), max_size=4),
       prune=st.booleans())
def test_an_index_merged_from_slices_is_the_index_of_one_pass(seed: int, count: int, cuts: list[int],
                                                               prune: bool) -> None:
    views = [TrajectoryViews.from_record(r) for r in _records(seed, count)]
    edges = sorted({0, count, *(min(c, count) for c in cuts)})
    parts = [tokenize_slice(views[lo:hi], prune) for lo, hi in zip(edges[:-1], edges[1:])]
    _assert_same_index(index_views(views, prune), index_views(views, prune, slices=parts))


def test_slices_are_consecutive_nearly_equal_and_never_below_the_minimum() -> None:
    with mock.patch.object(side_slices, "MIN_SLICE", 10):
        assert side_slices.slice_bounds(25, 2) == [(0, 12), (12, 25)]
        assert side_slices.slice_bounds(25, 4) == [(0, 12), (12, 25)]  # 3 slices would be under 10 each
        assert side_slices.slice_bounds(9, 2) == [(0, 9)]
        assert side_slices.slice_bounds(0, 2) == [(0, 0)]


def _side_children() -> list[Any]:
    return [p for p in multiprocessing.active_children() if p.name == "replay-side"]


def _as_text(trajectories: list[ReplayTrajectory]) -> list[ReplayTrajectory]:
    return [dataclasses.replace(t, record=json.dumps(t.record)) for t in trajectories]


def test_a_side_built_by_helper_processes_is_the_side_built_here() -> None:
    rng = random.Random(4)
    trajectories = _as_text([trajectory_from_record(k, random_record(rng), "c") for k in range(30)])
    matcher = mb.matcher_profile(None, False)
    here = engine.build_trajectory_side(trajectories, matcher, True, None, processes=1)
    with mock.patch.object(side_slices, "MIN_SLICE", 7):
        assert len(side_slices.slice_bounds(len(trajectories), 3)) == 3  # two helpers really run
        helped = engine.build_trajectory_side(trajectories, matcher, True, None, processes=3)
    assert helped[0] == here[0]  # the views
    _assert_same_index(helped[1], here[1])
    for a, b in zip(helped[3:], here[3:], strict=True):  # recovered runs, domain-gate codes
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert not _side_children()


def test_a_side_without_views_has_the_same_index_and_reads_views_from_the_records() -> None:
    rng = random.Random(6)
    trajectories = _as_text([trajectory_from_record(k, random_record(rng), "c") for k in range(12)])
    matcher = mb.matcher_profile(None, False)
    kept = engine.build_trajectory_side(trajectories, matcher, True, None)
    lazy = engine.build_trajectory_side(trajectories, matcher, True, None, keep_views=False)
    assert isinstance(lazy[0], side_slices.RecordViews)
    _assert_same_index(lazy[1], kept[1])
    assert len(lazy[0]) == len(kept[0]) and list(lazy[0]) == list(kept[0]) and lazy[0][3:5] == kept[0][3:5]


def test_a_failing_helper_fails_the_build_with_its_traceback_and_is_reaped() -> None:
    with pytest.raises(parallel.WorkerFailed, match="ZeroDivisionError"):
        parallel.forked_calls(lambda: 1, [lambda: 1 // 0, lambda: 2])
    assert not _side_children()


def test_a_cancel_while_helpers_build_ends_them_before_the_build_returns() -> None:
    blocked = multiprocessing.get_context("fork").Event()  # never set: the helper waits until killed

    def cancelled() -> None:
        raise Cancelled()

    with pytest.raises(Cancelled):
        parallel.forked_calls(lambda: 0, [lambda: blocked.wait()], cancelled)
    assert not _side_children()


def test_a_record_kept_as_json_text_reads_as_its_object() -> None:
    record = random_record(random.Random(1))
    as_object = trajectory_from_record(3, record, "c")
    as_text = dataclasses.replace(as_object, record=json.dumps(record))
    assert as_text.record_is_text and not as_object.record_is_text
    assert as_text.record == record and as_text.record is not as_text.record  # parsed at each read, not kept
    assert as_text == as_object  # records are not compared
    moved = dataclasses.replace(as_text, key=4)
    assert moved.record_is_text and moved.record == record
    with pytest.raises(TypeError, match="needs its record"):
        ReplayTrajectory(1, "t", "c", None, False, None)


def test_bigram_columns_answer_as_the_dict_of_every_bigram_did() -> None:
    views = [TrajectoryViews.from_record(r) for r in _records(9, 30)]
    index = index_views(views, True)
    token_of = list(index.vocab)
    as_dict = {}  # the dict the index used to hold: each sorted code's pair -> its position
    for column, code in enumerate(sorted({(index.vocab[a] << 32) | index.vocab[b] for a, b in index.bigram_vocab})):
        as_dict[(token_of[code >> 32], token_of[code & 0xFFFFFFFF])] = column
    assert list(index.bigram_vocab.items()) == list(as_dict.items()) and len(index.bigram_vocab) == len(as_dict)
    first, second = next(iter(as_dict))
    for missing in ((second + "x", first), (first, "no-such-token"), "not a pair", (first,)):
        assert missing not in index.bigram_vocab
        with pytest.raises(KeyError):
            index.bigram_vocab[missing]  # type: ignore[index]
