"""A repeated run reuses the trajectory views only for the very same records: a changed
record builds them again, and the results equal a fresh build's either way."""

from __future__ import annotations

import copy
from pathlib import Path

from core.corpus.jsonl import read_trajectory_bytes
from core.replay import view_cache
from core.replay.engine import replay
from core.replay.inputs import rule_from_expected, trajectory_from_record
from core.replay.profiles import REFERENCE_0_3_1


def _inputs(demo_corpus: Path) -> tuple[list, list]:
    records = []
    for path in sorted(demo_corpus.rglob("*.jsonl")):
        records += [r.data for r in read_trajectory_bytes(path.read_bytes(), str(path)).records]
    trajectories = [trajectory_from_record(i + 1, r, "demo") for i, r in enumerate(records)]
    rules = [rule_from_expected(f"r{t.key}", t) for t in trajectories]
    return [r for r in rules if r is not None], trajectories


def _summary(out: object) -> list[tuple]:
    return [(r.rule_key, r.verdict, r.prevented, r.broken, r.near_miss, r.missed, r.outcomes)
            for r in out.results]  # type: ignore[attr-defined]


def test_a_repeated_run_reuses_the_views_and_gives_the_same_results(demo_corpus: Path) -> None:
    rules, trajectories = _inputs(demo_corpus)
    view_cache.clear()
    first = replay(rules, trajectories, REFERENCE_0_3_1)
    kept = dict(view_cache._entries)
    assert len(kept) == 1
    again = replay(rules, trajectories, REFERENCE_0_3_1)
    assert dict(view_cache._entries) == kept  # the same entry, not a new build
    assert _summary(again) == _summary(first)


def test_a_changed_record_is_a_different_entry(demo_corpus: Path) -> None:
    rules, trajectories = _inputs(demo_corpus)
    view_cache.clear()
    replay(rules, trajectories, REFERENCE_0_3_1)
    before = set(view_cache._entries)
    changed = copy.deepcopy(trajectories)
    target = next(t for t in changed if not t.success)
    target.record["task"] = target.record.get("task", "") + " and then the disk filled up"
    cached = replay(rules, changed, REFERENCE_0_3_1)
    assert set(view_cache._entries) != before
    view_cache.clear()
    fresh = replay(rules, changed, REFERENCE_0_3_1)
    assert _summary(cached) == _summary(fresh)
