"""The lab's sweep is exact: each setting's decisions, re-applied on pair scores computed once,
equal a full ``replay`` run with that setting's profile (docs/lab.md "Sweeps")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_replay_pruning import TopicEmbed, _outcome_view, _replay_inputs

from core.lab.scores import ScoredPairs
from core.lab.settings import Setting, default_grid
from core.replay.engine import replay

SETTING = st.builds(
    Setting,
    base=st.sampled_from(["workbench", "reference-0.3.1"]),
    semantic=st.booleans(),
    threshold=st.one_of(st.none(), st.sampled_from([0.3, 0.5, 0.6, 0.65, 0.7])),
    margin=st.sampled_from([0.0, 0.05, 0.1, 0.2]),
    semantic_weight=st.sampled_from([0.2, 0.35, 0.5]),
    semantic_floor=st.sampled_from([0.5, 0.62, 0.8]),
    alias_floor=st.sampled_from([0.5, 0.6, 0.65]),
    pool_policy=st.sampled_from([None, "runner", "exclude_first"]),
    precision_scope=st.sampled_from([None, "same_as_recall", "all", "domain_if_gated"]),
    broken_evidence=st.sampled_from([None, "score", "lexical"]),
    domain_gate_fallback=st.sampled_from([None, True, False]),
)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), chosen=st.lists(SETTING, min_size=1, max_size=4))
def test_each_setting_decides_what_a_full_replay_with_it_decides(seed: int, chosen: list[Setting]) -> None:
    rules, trajectories = _replay_inputs(seed)
    embed = TopicEmbed()
    scored = ScoredPairs.build(rules, trajectories, embed=embed)  # once for every setting
    for setting in chosen:
        profile = setting.profile()
        full = replay(rules, trajectories, profile, embed=embed)
        assert _outcome_view(scored.decide(profile)) == _outcome_view(full.results), setting.name


def test_without_a_model_semantic_settings_decide_as_an_unavailable_semantic_replay() -> None:
    rules, trajectories = _replay_inputs(7)
    scored = ScoredPairs.build(rules, trajectories, embed=None)
    profile = Setting(semantic=True, semantic_weight=0.5).profile()
    full = replay(rules, trajectories, profile, embed=None)
    assert full.semantic_state == "unavailable"
    assert _outcome_view(scored.decide(profile)) == _outcome_view(full.results)


def test_the_default_grid_has_at_least_50_distinct_settings_and_each_replays_identically() -> None:
    rules, trajectories = _replay_inputs(3)
    embed = TopicEmbed()
    scored = ScoredPairs.build(rules, trajectories, embed=embed)
    grid = default_grid()
    assert len(grid) >= 50 and len({s.name for s in grid}) == len(grid)
    for setting in grid:
        full = replay(rules, trajectories, setting.profile(), embed=embed)
        assert _outcome_view(scored.decide(setting.profile())) == _outcome_view(full.results), setting.name
