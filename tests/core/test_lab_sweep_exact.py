"""The lab's sweep is exact: each setting's decisions, re-applied on pair scores computed once,
equal a full ``replay`` run with that setting's profile (docs/lab.md "Sweeps")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_replay_pruning import TopicEmbed, _outcome_view, _replay_inputs

from core.lab.claims import ClaimDecider, Claims
from core.lab.scores import ScoredPairs
from core.lab.settings import Setting, default_grid
from core.matching.profile import SemanticTarget
from core.replay.engine import replay
from core.replay.inputs import trajectory_from_record
from core.replay.types import ReplayRule

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
    precision_scope=st.sampled_from([None, "same_as_recall", "all", "domain_if_gated", "corpus"]),
    broken_evidence=st.sampled_from([None, "score", "lexical"]),
    domain_gate_fallback=st.sampled_from([None, True, False]),
    read_failure_class=st.booleans(),
    failure_gate_fallback=st.booleans(),
    recall_scope=st.sampled_from([None, "domain", "corpus", "failure_class", "none"]),
    unscoped_pool=st.sampled_from([None, "all", "corpus", "none"]),
    domain_margins=st.sampled_from([(), (("git", 0.0),), (("git", 0.3), ("python", 0.02)), (("devops", 0.5),)]),
    semantic_target=st.sampled_from([t.value for t in SemanticTarget]),
    twin_rules=st.sampled_from([None, None, 0.9, 1.0]),
)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), chosen=st.lists(SETTING, min_size=1, max_size=4))
def test_each_setting_decides_what_a_full_replay_with_it_decides(seed: int, chosen: list[Setting]) -> None:
    rules, trajectories = _replay_inputs(seed)
    embed = TopicEmbed()
    scored = _scored_by_kind(rules, trajectories, embed, chosen)  # once per kind of scores, for every setting
    deciders = {kind: ClaimDecider(s) for kind, s in scored.items()}
    for setting in chosen:
        profile = setting.profile()
        full = replay(rules, trajectories, profile, embed=embed)
        decided = scored[setting.scoring].decide(profile)
        assert _outcome_view(decided) == _outcome_view(full.results), setting.name
        assert _claims_equal(deciders[setting.scoring].decide(profile), full.results, rules, trajectories)


def _scored_by_kind(rules: list, trajectories: list, embed: TopicEmbed,  # type: ignore[type-arg]
                    chosen: list[Setting]) -> dict[tuple[bool, SemanticTarget], ScoredPairs]:
    """One ``ScoredPairs`` per (reads failure_class, what is embedded) the settings need, as the lab makes them."""
    return {kind: ScoredPairs.build(rules, trajectories, embed=embed, read_failure_class=kind[0],
                                    semantic_target=kind[1])
            for kind in dict.fromkeys(s.scoring for s in chosen)}


def _claims_equal(claims: Claims, results: list, rules: list, trajectories: list) -> bool:  # type: ignore[type-arg]
    """The sweep's claims (pairs decided only where a threshold can be reached) are the
    prevented and broken keys of a full replay."""
    expected = Claims.from_results(results, {r.key: i for i, r in enumerate(rules)},
                                   {t.key: j for j, t in enumerate(trajectories)}, len(rules), len(trajectories))
    return (claims.prevented.tolist() == expected.prevented.tolist()
            and claims.broken.tolist() == expected.broken.tolist())


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
    grid = default_grid()
    assert len(grid) >= 50 and len({s.name for s in grid}) == len(grid)
    scored = _scored_by_kind(rules, trajectories, embed, grid)
    deciders = {kind: ClaimDecider(s) for kind, s in scored.items()}
    for setting in grid:
        full = replay(rules, trajectories, setting.profile(), embed=embed)
        decided = scored[setting.scoring].decide(setting.profile())
        assert _outcome_view(decided) == _outcome_view(full.results), setting.name
        assert _claims_equal(deciders[setting.scoring].decide(setting.profile()), full.results, rules,
                             trajectories), setting.name


def test_a_run_without_failure_class_never_reads_it() -> None:
    """The label's words match only while the run reads the label: withheld, they are gone."""
    records = [{"trajectory_id": f"T-{i}", "task": "deploy the app", "success": False, "domain": "devops",
                "failure_class": "zeta/omega/kappa", "steps": [{"step_number": 1, "tool": "bash",
                                                                  "input": "deploy.sh", "error": "timeout"}]}
               for i in range(4)]
    trajectories = [trajectory_from_record(i, r, "golden") for i, r in enumerate(records)]
    rule = ReplayRule(key="label", trigger="zeta omega kappa")
    reading = replay([rule], trajectories, Setting(semantic=False).profile(), embed=None)
    withheld = replay([rule], trajectories, Setting(semantic=False, read_failure_class=False).profile(), embed=None)
    assert reading.results[0].prevented == (0, 1, 2, 3)
    assert withheld.results[0].prevented == ()
    assert withheld.config["replay"]["read_failure_class"] is False
    assert withheld.config["corpus_hash"] == reading.config["corpus_hash"]  # the same corpus, not read whole
    assert "read_failure_class" not in reading.config["replay"]  # earlier runs' config hashes stay the same


def test_the_failure_gate_on_the_domain_field_blocks_another_domain_s_unlabelled_failure() -> None:
    """With failure_class withheld the matcher's guard is gone; failure_gate_fallback puts a guard
    back from the record's domain field (a pip rule does not prevent a docker failure)."""
    records = [{"trajectory_id": f"D-{i}", "task": "pip install fails with permission denied in docker build",
                "success": False, "domain": "docker", "failure_class": "docker/build/permission",
                "steps": [{"step_number": 1, "tool": "bash", "input": "docker build .", "error": "denied"}]}
               for i in range(4)]
    trajectories = [trajectory_from_record(i, r, "golden") for i, r in enumerate(records)]
    rule = ReplayRule(key="pip", trigger="pip install fails with permission denied")
    open_gate = replay([rule], trajectories, Setting(semantic=False, read_failure_class=False).profile())
    gated = replay([rule], trajectories, Setting(semantic=False, read_failure_class=False,
                                                 failure_gate_fallback=True).profile())
    assert open_gate.results[0].prevented == (0, 1, 2, 3)
    assert gated.results[0].prevented == ()


def test_settings_decided_one_after_another_on_one_decider_each_decide_as_a_full_replay() -> None:
    """The decider keeps the last setting's composed scores for the next one that composes alike
    (same matcher, semantic state, broken evidence and lowest threshold): neighbours that differ
    only in a field the composition does not read, or in one it does, must still each decide as
    their own full replay."""
    rules, trajectories = _replay_inputs(1)  # a seed whose breaks differ between score and lexical evidence
    embed = TopicEmbed()
    base = Setting(base="workbench", threshold=0.5)
    sequence = [base, Setting(base="workbench", threshold=0.5, margin=0.2),
                Setting(base="workbench", threshold=0.5, broken_evidence="score"),
                Setting(base="workbench", threshold=0.5, broken_evidence="score", precision_scope="same_as_recall"),
                Setting(base="workbench", threshold=0.5, alias_floor=0.5), base,
                Setting(base="workbench", threshold=0.5, semantic=False), base]
    decider = ClaimDecider(ScoredPairs.build(rules, trajectories, embed=embed))
    for setting in sequence:
        full = replay(rules, trajectories, setting.profile(), embed=embed)
        assert _claims_equal(decider.decide(setting.profile()), full.results, rules, trajectories), setting.name
