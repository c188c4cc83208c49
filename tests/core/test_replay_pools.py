"""Reference pools per rule (core.replay.pools), checked against pools worked out by hand.

Each case is a handful of trajectories whose pools can be read off the list: which domain a
rule's recall pool is sliced to, which positions self-exclusion removes (by trajectory id, and
by store key in the Workbench only), when the slice falls back to the whole set, and what the
stored ``PoolSpec`` describes (``spec_mask``, the store's view of the same pool).
"""

from __future__ import annotations

import numpy as np
import pytest

from core.replay.pools import PoolIndex, ensure_scope_columns, exclude_first_pool, rule_pools, runner_pool, spec_mask
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH
from core.replay.types import PoolSpec, ReplayRule, ReplayTrajectory


def _traj(key: int, tid: str, domain: str | None, success: bool = False) -> ReplayTrajectory:
    return ReplayTrajectory(key, tid, "c", domain, success, None, {"task": tid})


def _index(*trajs: ReplayTrajectory) -> PoolIndex:
    return PoolIndex.build(list(trajs))


# Positions: 0 G0 git fail, 1 G1 git ok, 2 G2 git fail, 3 G3 git ok, 4 D4 docker fail, 5 N5 (no domain) fail.
def _mixed() -> PoolIndex:
    return _index(_traj(10, "G0", "git"), _traj(11, "G1", "git", True), _traj(12, "G2", "git"),
                  _traj(13, "G3", "git", True), _traj(14, "D4", "docker"), _traj(15, "N5", None))


def _rows(mask: np.ndarray) -> list[int]:
    return [int(i) for i in np.flatnonzero(mask)]


# --- the index -------------------------------------------------------------------------------

def test_domain_size_counts_the_domain_without_a_prior_mask_lookup() -> None:
    index = _mixed()
    assert index.domain_size("git") == 4
    assert index.domain_size("docker") == 1


def test_a_domain_mask_is_built_once_and_shared() -> None:
    index = _mixed()
    assert index.domain_mask("git") is index.domain_mask("git")


def test_a_shared_domain_mask_cannot_be_modified_by_a_caller() -> None:
    mask = _mixed().domain_mask("git")
    with pytest.raises(ValueError):
        mask[4] = True


def test_the_lookup_caches_stay_out_of_the_repr() -> None:
    # A run's index holds 10^5 positions per dict: a repr (a log line, a failed assertion) must not dump them.
    index = _mixed()
    index.domain_mask("git")
    text = repr(index)
    for cache in ("id_positions", "key_positions", "_domain_masks", "_domain_sizes"):
        assert cache not in text


def test_indexes_of_the_same_trajectory_are_equal_whatever_was_looked_up() -> None:
    # One trajectory: numpy arrays of one element compare to a single truth value.
    first, second = _index(_traj(1, "T", "git")), _index(_traj(1, "T", "git"))
    first.domain_mask("git")
    assert first == second


def test_the_scope_columns_and_group_masks_stay_out_of_the_repr() -> None:
    # Both are filled lazily, one entry per trajectory or per group: like the lookup caches above.
    trajs = [_traj(1, "T", "git"), _traj(2, "U", "git")]
    index = _index(*trajs)
    ensure_scope_columns(index, trajs)
    index.group_mask("corpus", "c")
    text = repr(index)
    assert "columns" not in text and "_group_masks" not in text


def test_indexes_of_the_same_trajectory_are_equal_whatever_scope_columns_or_groups_were_read() -> None:
    trajs = [_traj(1, "T", "git")]
    first, second = _index(*trajs), _index(*trajs)
    ensure_scope_columns(first, trajs)
    first.group_mask("corpus", "c")
    assert first == second


def test_a_duplicated_trajectory_id_excludes_every_copy() -> None:
    index = _index(_traj(1, "SRC", None), _traj(2, "A", None), _traj(3, "SRC", None), _traj(4, "B", None))
    rule = ReplayRule("r", "t", source_trajectory_id="SRC")
    _, mask, _ = exclude_first_pool(rule, index)
    assert _rows(mask) == [1, 3]


# --- the 0.3.1 runner pool: slice when >= 3 WITH the source, then drop the source by id only ----

def test_runner_pool_without_a_domain_is_the_whole_set_minus_the_source() -> None:
    rule = ReplayRule("r", "t", source_trajectory_id="G0")
    kind, mask, spec = runner_pool(rule, _mixed())
    assert (kind, _rows(mask)) == ("all", [1, 2, 3, 4, 5])
    assert spec == PoolSpec(None, None, "G0")


def test_runner_pool_without_a_domain_is_all_even_over_domainless_trajectories() -> None:
    index = _index(*(_traj(i, f"N{i}", None) for i in range(4)))
    kind, mask, _ = runner_pool(ReplayRule("r", "t", source_trajectory_id="N0"), index)
    assert (kind, _rows(mask)) == ("all", [1, 2, 3])


def test_runner_pool_falls_back_to_the_whole_set_when_the_domain_has_under_three() -> None:
    index = _index(_traj(0, "S", "svn"), _traj(1, "S1", "svn"), _traj(2, "G", "git"), _traj(3, "D", "docker"))
    rule = ReplayRule("r", "t", source_trajectory_id="S", domain="svn")
    kind, mask, spec = runner_pool(rule, index)
    assert (kind, _rows(mask)) == ("fallback", [1, 2, 3])
    assert spec == PoolSpec(None, None, "S")


def test_runner_pool_slices_the_domain_and_names_it_in_the_spec() -> None:
    rule = ReplayRule("r", "t", source_trajectory_id="G0", source_key=10, domain="git")
    kind, mask, spec = runner_pool(rule, _mixed())
    assert (kind, _rows(mask)) == ("domain", [1, 2, 3])
    assert spec == PoolSpec("git", None, "G0")


def test_runner_pool_does_not_exclude_the_source_by_store_key() -> None:
    # The source's key names position 1 (a different id): 0.3.1 only knows trajectory ids.
    rule = ReplayRule("r", "t", source_trajectory_id="G0", source_key=11)
    _, mask, _ = runner_pool(rule, _mixed())
    assert _rows(mask) == [1, 2, 3, 4, 5]


def test_runner_pool_of_a_source_alone_is_the_whole_set_with_an_empty_spec() -> None:
    index = _index(_traj(0, "SRC", "git"))
    kind, mask, spec = runner_pool(ReplayRule("r", "t", source_trajectory_id="SRC", domain="git"), index)
    assert (kind, _rows(mask), spec) == ("fallback", [0], PoolSpec(None, None, None))


# --- the Workbench pool: drop the source (by id and by key) first, then require >= 3 ----------

def test_exclude_first_keeps_a_slice_of_exactly_three_after_the_source() -> None:
    rule = ReplayRule("r", "t", source_trajectory_id="D4", domain="git")  # source outside the slice
    index = _index(_traj(0, "G0", "git"), _traj(1, "G1", "git"), _traj(2, "G2", "git"), _traj(3, "D4", "docker"))
    kind, mask, spec = exclude_first_pool(rule, index)
    assert (kind, _rows(mask)) == ("domain", [0, 1, 2])
    assert spec == PoolSpec("git", None, "D4")


def test_exclude_first_excludes_the_source_by_store_key() -> None:
    rule = ReplayRule("r", "t", source_key=11)
    kind, mask, spec = exclude_first_pool(rule, _mixed())
    assert (kind, _rows(mask)) == ("all", [0, 2, 3, 4, 5])
    assert spec == PoolSpec(None, 11, None)


def test_exclude_first_without_a_domain_is_all() -> None:
    kind, _, _ = exclude_first_pool(ReplayRule("r", "t", source_trajectory_id="G0"), _mixed())
    assert kind == "all"


def test_exclude_first_falls_back_when_the_slice_is_under_three_without_the_source() -> None:
    rule = ReplayRule("r", "t", source_trajectory_id="G0", source_key=10, domain="git")
    index = _index(_traj(10, "G0", "git"), _traj(11, "G1", "git"), _traj(12, "G2", "git"), _traj(14, "D4", "docker"))
    kind, mask, spec = exclude_first_pool(rule, index)
    assert (kind, _rows(mask)) == ("fallback", [1, 2, 3])
    assert spec == PoolSpec(None, 10, "G0")


# --- the stored spec describes the pool ---------------------------------------------------------

def test_spec_without_domain_or_exclusion_is_every_trajectory() -> None:
    assert _rows(spec_mask(PoolSpec(None, None, None), _mixed())) == [0, 1, 2, 3, 4, 5]


def test_spec_domain_keeps_only_that_domain() -> None:
    assert _rows(spec_mask(PoolSpec("git", None, None), _mixed())) == [0, 1, 2, 3]


def test_spec_exclude_key_drops_that_key_only() -> None:
    assert _rows(spec_mask(PoolSpec(None, 12, None), _mixed())) == [0, 1, 3, 4, 5]


def test_spec_exclude_id_drops_that_id_only() -> None:
    assert _rows(spec_mask(PoolSpec("git", None, "G3"), _mixed())) == [0, 1, 2]


@pytest.mark.parametrize("rule", [
    ReplayRule("r", "t", source_trajectory_id="G0", source_key=10, domain="git"),
    ReplayRule("r", "t", source_trajectory_id="D4", source_key=11, domain="docker"),
    ReplayRule("r", "t", source_key=15),
])
@pytest.mark.parametrize("profile", [REFERENCE_0_3_1, WORKBENCH], ids=["runner", "exclude_first"])
def test_the_spec_a_pool_stores_gives_back_that_pool(rule: ReplayRule, profile: object) -> None:
    index = _mixed()
    pools = rule_pools(rule, index, profile, trigger_gated=False)  # type: ignore[arg-type]
    assert _rows(spec_mask(pools.recall_spec, index)) == _rows(pools.recall)


# --- precision pools ------------------------------------------------------------------------------

def test_workbench_precision_excludes_the_source_by_store_key() -> None:
    pools = rule_pools(ReplayRule("r", "t", source_key=11, domain="git"), _mixed(), WORKBENCH, trigger_gated=False)
    assert (pools.precision_info.kind, _rows(pools.precision)) == ("all", [0, 2, 3, 4, 5])


def test_workbench_precision_of_a_source_alone_is_the_whole_set() -> None:
    index = _index(_traj(0, "SRC", "git"))
    pools = rule_pools(ReplayRule("r", "t", source_trajectory_id="SRC"), index, WORKBENCH, trigger_gated=False)
    assert (pools.precision_info.kind, pools.precision_info.size) == ("all", 1)


def test_the_union_is_every_trajectory_in_either_pool() -> None:
    rule = ReplayRule("r", "t", source_trajectory_id="G0", domain="git")
    pools = rule_pools(rule, _mixed(), WORKBENCH, trigger_gated=False)
    assert _rows(pools.recall) == [1, 2, 3] and _rows(pools.precision) == [1, 2, 3, 4, 5]
    assert _rows(pools.union) == [1, 2, 3, 4, 5]
