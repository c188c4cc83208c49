"""The replay choices the lab sweeps beyond 0.3.1's (issue 26): the recall pool's scope (domain,
source corpus, failure class, none), what a rule without a domain falls back to, the precision
pool scoped by corpus, and a broken margin per domain. Their defaults leave every earlier profile
as it was (config hash and results); each choice is plain data (a JSON round trip keeps it)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np

from core.replay.engine import replay
from core.replay.inputs import trajectory_from_record
from core.replay.pools import PoolIndex, ensure_scope_columns, rule_pools
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH, ReplayProfile
from core.replay.snapshot import LATER_CHOICES
from core.replay.types import ReplayRule, ReplayTrajectory


def _traj(key: int, tid: str, domain: str | None, success: bool, corpus: str = "public/golden",
          failure_class: str | None = None) -> ReplayTrajectory:
    return ReplayTrajectory(key, tid, corpus, domain, success, failure_class, {})


def _index(trajs: list[ReplayTrajectory]) -> PoolIndex:
    index = PoolIndex.build(trajs)
    ensure_scope_columns(index, trajs)
    return index


# Four golden and four nearmiss trajectories, two domains across both corpora.
TRAJS = [_traj(i, f"T{i}", "git" if i % 2 else "docker", i % 3 == 0,
               "public/golden" if i < 4 else "public/nearmiss", "git/push" if i in (1, 5, 7) else None)
         for i in range(8)]


def test_a_corpus_scoped_recall_pool_is_the_source_corpus_minus_the_source() -> None:
    rule = ReplayRule("r", "git push", source_trajectory_id="T1", source_key=1, domain="git", corpus="public/golden")
    pools = rule_pools(rule, _index(TRAJS), WORKBENCH.with_(recall_scope="corpus"), trigger_gated=True)
    assert pools.recall.tolist() == [True, False, True, True, False, False, False, False]
    assert pools.recall_info.kind == "corpus" and pools.recall_info.scoped
    assert pools.recall_spec is None  # not a PoolSpec: the store keeps its missed rows


def test_a_failure_class_scoped_recall_pool_is_the_source_class() -> None:
    rule = ReplayRule("r", "git push", source_trajectory_id="T1", source_key=1, domain="git")
    pools = rule_pools(rule, _index(TRAJS), WORKBENCH.with_(recall_scope="failure_class"), trigger_gated=True)
    assert pools.recall_info.kind == "fallback"  # only T5 and T7 remain: fewer than 3
    index = _index(TRAJS + [_traj(8, "T8", "git", False, failure_class="git/push")])
    pools = rule_pools(rule, index, WORKBENCH.with_(recall_scope="failure_class"), trigger_gated=True)
    assert np.flatnonzero(pools.recall).tolist() == [5, 7, 8] and pools.recall_info.kind == "failure_class"


def test_recall_scope_none_uses_the_whole_set_even_for_a_rule_with_a_domain() -> None:
    rule = ReplayRule("r", "git push", source_trajectory_id="T1", source_key=1, domain="git")
    pools = rule_pools(rule, _index(TRAJS), WORKBENCH.with_(recall_scope="none"), trigger_gated=True)
    assert pools.recall_info.kind == "all" and pools.recall_info.size == 7


def test_a_rule_without_a_domain_falls_back_as_its_profile_says() -> None:
    rule = ReplayRule("r", "git push", source_trajectory_id="T5", source_key=5, domain=None,
                      corpus="public/nearmiss")
    index = _index(TRAJS)
    whole = rule_pools(rule, index, WORKBENCH, trigger_gated=True)
    same_corpus = rule_pools(rule, index, WORKBENCH.with_(unscoped_pool="corpus"), trigger_gated=True)
    silent = rule_pools(rule, index, WORKBENCH.with_(unscoped_pool="none", precision_scope="same_as_recall"),
                        trigger_gated=True)
    assert whole.recall_info.kind == "all" and whole.recall_info.size == 7
    assert np.flatnonzero(same_corpus.recall).tolist() == [4, 6, 7] and same_corpus.recall_info.kind == "corpus"
    assert not silent.recall.any() and silent.recall_info.kind == "none" and silent.precision_info.size == 0


def test_a_rule_without_a_domain_and_no_pool_is_not_measured() -> None:
    """unscoped_pool="none": recall is null and the verdict min_sample, never a silent 0."""
    records = [{"trajectory_id": f"F-{i}", "task": "git push rejected non-fast-forward", "success": False,
                "steps": [{"step_number": 1, "tool": "bash", "input": "git push", "error": "rejected"}]}
               for i in range(5)]
    trajectories = [trajectory_from_record(i, r, "golden") for i, r in enumerate(records)]
    rule = ReplayRule("r", "git push rejected non-fast-forward", source_trajectory_id="F-0", source_key=0)
    profile = WORKBENCH.with_(semantic=False, unscoped_pool="none", precision_scope="same_as_recall")
    measured = replay([rule], trajectories, WORKBENCH.with_(semantic=False))
    silent = replay([rule], trajectories, profile)
    assert measured.results[0].prevented == (1, 2, 3, 4) and measured.results[0].recall == 1.0
    assert silent.results[0].prevented == () and silent.results[0].recall is None
    assert silent.results[0].reason.startswith("min_sample")


def test_a_precision_pool_scoped_by_corpus() -> None:
    rule = ReplayRule("r", "git push", source_trajectory_id="T1", source_key=1, domain="git", corpus="public/golden")
    pools = rule_pools(rule, _index(TRAJS), WORKBENCH.with_(precision_scope="corpus"), trigger_gated=True)
    assert np.flatnonzero(pools.precision).tolist() == [0, 2, 3] and pools.precision_info.kind == "corpus"


def _success_run(profile: ReplayProfile) -> tuple[int, ...]:
    """A git rule against git successes that share most of its words: broken under margin 0.10."""
    records = [{"trajectory_id": f"S-{i}", "task": "git push origin main to the remote", "success": True,
                "domain": "git", "steps": [{"step_number": 1, "tool": "bash", "input": "git push origin main"}]}
               for i in range(4)]
    trajectories = [trajectory_from_record(i, r, "golden") for i, r in enumerate(records)]
    rule = ReplayRule("r", "git push origin main rejected", domain="git", corpus="golden")
    return replay([rule], trajectories, profile).results[0].broken


def test_a_margin_per_domain_changes_only_that_domain_s_rules() -> None:
    base = WORKBENCH.with_(semantic=False, threshold=0.5)
    assert _success_run(base) == (0, 1, 2, 3)
    assert _success_run(base.with_(domain_margins=(("git", 0.45),))) == ()
    assert _success_run(base.with_(domain_margins=(("docker", 0.45),))) == (0, 1, 2, 3)


def test_the_new_choices_at_their_defaults_leave_the_config_as_before() -> None:
    trajectories = [trajectory_from_record(i, {"trajectory_id": f"T{i}", "task": "x", "success": False}, "golden")
                    for i in range(3)]
    for profile in (WORKBENCH, REFERENCE_0_3_1):
        config = replay([ReplayRule("r", "x")], trajectories, profile).config["replay"]
        assert not set(LATER_CHOICES) & set(config)
    changed = replay([ReplayRule("r", "x")], trajectories, WORKBENCH.with_(recall_scope="corpus")).config
    assert changed["replay"]["recall_scope"] == "corpus"


def test_a_profile_survives_a_json_round_trip() -> None:
    profile = WORKBENCH.with_(recall_scope="corpus", unscoped_pool="none", domain_margins={"git": 0.2, "b": 0.05})
    assert profile.domain_margins == (("b", 0.05), ("git", 0.2))
    plain = {f.name: getattr(profile, f.name) for f in dataclasses.fields(profile) if f.name != "matcher"}
    again = ReplayProfile(**json.loads(json.dumps(plain)))
    assert again == profile and hash(again) == hash(profile)
    assert again.margin_for("git") == 0.2 and again.margin_for("docker") == profile.margin


def test_the_runner_policy_also_leaves_a_rule_without_a_domain_unmeasured_when_told_to() -> None:
    rule = ReplayRule("r", "git push", source_trajectory_id="T5", source_key=5, domain=None, corpus="public/nearmiss")
    profile = REFERENCE_0_3_1.with_(unscoped_pool="none", precision_scope="same_as_recall")
    pools = rule_pools(rule, _index(TRAJS), profile, trigger_gated=True)
    assert not pools.recall.any() and pools.recall_info.kind == "none" and pools.recall_spec is None


def test_the_runner_policy_cuts_a_corpus_scoped_pool_with_the_source_counted() -> None:
    rule = ReplayRule("r", "git push", source_trajectory_id="T1", source_key=1, domain="git", corpus="public/golden")
    pools = rule_pools(rule, _index(TRAJS), REFERENCE_0_3_1.with_(recall_scope="corpus"), trigger_gated=True)
    assert np.flatnonzero(pools.recall).tolist() == [0, 2, 3] and pools.recall_info.kind == "corpus"


def test_a_corpus_scoped_precision_pool_needs_the_rule_s_corpus() -> None:
    rule = ReplayRule("r", "git push", source_trajectory_id="T1", source_key=1, domain="git", corpus=None)
    pools = rule_pools(rule, _index(TRAJS), WORKBENCH.with_(precision_scope="corpus"), trigger_gated=True)
    assert pools.precision_info.kind == "all" and np.flatnonzero(pools.precision).tolist() == [0, 2, 3, 4, 5, 6, 7]


def test_a_group_s_size_is_known_before_its_mask_was_asked_for() -> None:
    index = _index(TRAJS)
    assert index.group_size("corpus", "public/golden") == 4 and index.group_size("failure_class", "git/push") == 3


def test_a_group_mask_is_shared_read_only_so_no_rule_can_change_another_s_pool() -> None:
    mask = _index(TRAJS).group_mask("corpus", "public/nearmiss")
    assert mask.tolist() == [False] * 4 + [True] * 4 and not mask.flags.writeable


# Two trajectories share the id "T1" (one per corpus) with different failure classes; each class
# has three more members, so either class is a pool of its own.
TWINS = [_traj(1, "T1", "git", False, "public/golden", "git/push"),
         *[_traj(k, f"G{k}", "git", False, "public/golden", "git/push") for k in (2, 3, 4)],
         _traj(9, "T1", "docker", False, "public/nearmiss", "docker/build"),
         *[_traj(k, f"D{k}", "docker", False, "public/nearmiss", "docker/build") for k in (10, 11, 12)]]


def test_a_failure_class_pool_follows_the_source_s_store_key_when_its_id_is_shared() -> None:
    rule = ReplayRule("r", "docker build", source_trajectory_id="T1", source_key=9, domain="docker")
    pools = rule_pools(rule, _index(TWINS), WORKBENCH.with_(recall_scope="failure_class"), trigger_gated=True)
    assert [TWINS[p].key for p in np.flatnonzero(pools.recall)] == [10, 11, 12]
    assert pools.recall_info.kind == "failure_class" and pools.recall_info.scoped


def test_a_failure_class_pool_finds_the_source_by_id_when_it_has_no_store_key() -> None:
    rule = ReplayRule("r", "git push", source_trajectory_id="G2", source_key=None, domain="git")
    pools = rule_pools(rule, _index(TWINS), WORKBENCH.with_(recall_scope="failure_class"), trigger_gated=True)
    assert [TWINS[p].key for p in np.flatnonzero(pools.recall)] == [1, 3, 4]


def test_recall_scope_none_is_the_whole_set_whatever_the_pool_for_rules_without_a_value() -> None:
    # unscoped_pool is for a rule whose source has no value for the scope; "none" is no scope at all.
    rule = ReplayRule("r", "git push", source_trajectory_id="T1", source_key=1, domain="git", corpus="public/golden")
    for unscoped in ("corpus", "none"):
        profile = WORKBENCH.with_(recall_scope="none", unscoped_pool=unscoped)
        pools = rule_pools(rule, _index(TRAJS), profile, trigger_gated=True)
        assert pools.recall_info.kind == "all" and pools.recall_info.size == 7, unscoped


def test_the_default_precision_pool_is_every_trajectory_even_for_a_rule_with_a_corpus() -> None:
    rule = ReplayRule("r", "git push", source_trajectory_id="T1", source_key=1, domain="git", corpus="public/golden")
    pools = rule_pools(rule, _index(TRAJS), WORKBENCH, trigger_gated=False)
    assert pools.precision_info.kind == "all" and np.flatnonzero(pools.precision).tolist() == [0, 2, 3, 4, 5, 6, 7]
