"""Twin rules (``ReplayProfile.twin_rules``, core.replay.twins): a rule also claims the failures its
twins were written from, and the shipped default ``lab-2026-12`` is the lab's chosen setting."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import numpy as np
from test_lab_sweep_exact import _claims_equal
from test_replay_pruning import TopicEmbed, _replay_inputs

from core.lab.run import circular_for
from core.lab.settings import Setting, twin_grid
from core.lab.truths import Truth
from core.replay.engine import replay
from core.replay.inputs import trajectory_from_record
from core.replay.profiles import LAB_2026_12, PROFILES
from core.replay.twins import TWIN_FLOOR, twin_groups
from core.replay.types import ReplayRule

LEXICAL_TWINS = Setting(base="reference-0.3.1", semantic=False, read_failure_class=False,
                        failure_gate_fallback=True, twin_rules=1.0)


def _failure(tid: str, error: str, domain: str = "devops", success: bool = False) -> dict[str, Any]:
    return {"trajectory_id": tid, "task": "check the service", "success": success, "domain": domain,
            "steps": [{"step_number": 1, "tool": "bash", "input": "kubectl get pods", "error": error}]}


def _corpus() -> list[Any]:
    records = [_failure("A", "app-pod CrashLoopBackOff"), _failure("B", "required env var missing"),
               _failure("C", "unrelated quota exceeded"), _failure("S", "required env var missing", success=True),
               _failure("X", "required env var missing", domain="docker")]
    return [trajectory_from_record(i, r, "golden") for i, r in enumerate(records)]


def _rules(trigger_b: str = "a pod enters CrashLoopBackOff") -> list[ReplayRule]:
    return [ReplayRule(key="from-A", trigger="a pod enters CrashLoopBackOff", source_trajectory_id="A", domain="devops"),
            ReplayRule(key="from-B", trigger=trigger_b, source_trajectory_id="B", domain="devops"),
            ReplayRule(key="from-S", trigger="a pod enters CrashLoopBackOff", source_trajectory_id="S",
                       domain="devops"),
            ReplayRule(key="from-X", trigger="a pod enters CrashLoopBackOff", source_trajectory_id="X",
                       domain="docker")]


def test_a_rule_claims_the_failure_its_twin_was_written_from() -> None:
    trajectories = _corpus()
    plain = replay(_rules(), trajectories, replace(LEXICAL_TWINS, twin_rules=None).profile())
    twins = replay(_rules(), trajectories, LEXICAL_TWINS.profile())
    assert 1 not in plain.results[0].prevented  # its text does not reach B ("env var missing")
    assert 1 in twins.results[0].prevented  # from-B has its trigger and was written from B


def test_a_twin_claim_says_so_in_its_evidence_row() -> None:
    result = replay(_rules(), _corpus(), LEXICAL_TWINS.profile()).results[0]
    [row] = [o for o in result.outcomes if o.trajectory_key == 1]
    assert row.bucket == "prevented" and row.floor == TWIN_FLOOR and row.score < row.threshold


def test_a_twin_never_claims_a_success_another_domain_or_the_rule_s_own_source() -> None:
    results = replay(_rules(), _corpus(), LEXICAL_TWINS.profile()).results
    assert 3 not in results[0].prevented and 3 not in results[0].broken  # S is a success
    assert 4 not in results[0].prevented  # X is docker: the failure gate holds
    assert 0 not in results[0].prevented  # A is the rule's own source


def test_rules_with_other_triggers_are_not_twins() -> None:
    result = replay(_rules("quota exceeded on the cluster"), _corpus(), LEXICAL_TWINS.profile()).results[0]
    assert 1 not in result.prevented


def test_twins_by_text_ignore_case_and_punctuation_and_blank_triggers_have_none() -> None:
    rules = [ReplayRule(key="a", trigger="Pod CrashLoopBackOff!"), ReplayRule(key="b", trigger="pod crashloopbackoff"),
             ReplayRule(key="c", trigger="  "), ReplayRule(key="d", trigger="")]
    assert [g.tolist() for g in twin_groups(rules, 0.9, None)] == [[1], [0], [], []]


def test_twins_by_cosine_need_the_vectors_to_reach_the_cosine() -> None:
    rules = [ReplayRule(key=k, trigger=k) for k in ("alpha", "beta", "gamma")]
    vectors = np.array([[1.0, 0.0], [0.95, np.sqrt(1 - 0.95**2)], [0.0, 1.0]])
    assert [g.tolist() for g in twin_groups(rules, 0.9, vectors)] == [[1], [0], []]
    assert [g.tolist() for g in twin_groups(rules, 0.96, vectors)] == [[], [], []]


def test_the_shipped_default_is_the_lab_s_chosen_setting_decision_for_decision() -> None:
    chosen = Setting(base="reference-0.3.1", threshold=0.6, semantic_floor=0.70, alias_floor=0.5,
                     precision_scope="same_as_recall", read_failure_class=False, failure_gate_fallback=True,
                     semantic_target="haystack", twin_rules=0.9)
    profile = chosen.profile()
    differ = {f.name for f in fields(profile)
              if f.name != "matcher" and getattr(profile, f.name) != getattr(LAB_2026_12, f.name)}
    assert differ == {"name", "zero_rate_is_null", "wilson"}  # read-outs only: they decide nothing
    assert replace(profile.matcher, name="") == replace(LAB_2026_12.matcher, name="")
    assert chosen in twin_grid() and PROFILES["lab-2026-12"] is LAB_2026_12
    rules, trajectories = _replay_inputs(3)
    full = replay(rules, trajectories, LAB_2026_12, embed=TopicEmbed())
    assert _claims_equal(_decided(chosen, rules, trajectories), full.results, rules, trajectories)


def _decided(setting: Setting, rules: list[Any], trajectories: list[Any]) -> Any:
    from core.lab.claims import ClaimDecider
    from core.lab.scores import ScoredPairs

    scored = ScoredPairs.build(rules, trajectories, embed=TopicEmbed(), read_failure_class=False,
                               semantic_target=setting.scoring[1])
    return ClaimDecider(scored).decide(setting.profile())


def test_twin_settings_are_circular_for_expected_rule_and_not_for_the_failure_class_proxy() -> None:
    def truth(field: str) -> Truth:
        return Truth(name=field, field=field, caveat="", universe={}, positives={})

    assert circular_for(LEXICAL_TWINS, truth("expected_rule")) == ["expected_rule:twin_rules"]
    assert circular_for(LEXICAL_TWINS, truth("failure_class")) == []


def _twin_store(tmp_path: Any) -> Any:
    """Four failures written up as one lesson (four expected_rule rules with one trigger), only one
    of which says the trigger's words, and one success."""
    import json

    from core.importing import import_paths
    from core.replaying import materialise_expected_rules
    from core.store.engine import open_store

    lesson = "when a pod enters CrashLoopBackOff, inspect logs and fix the startup command"
    errors = ["app-pod CrashLoopBackOff", "required env var missing", "Back-off restarting failed container",
              "liveness probe failed"]
    stamp = {"timestamp": "2026-12-07T00:00:00Z"}
    records = [dict(_failure(f"K-{i}", error), expected_rule=lesson, **stamp) for i, error in enumerate(errors)]
    records.append(dict(_failure("OK-1", "none", success=True), **stamp))
    corpus = tmp_path / "pods.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    store = open_store(tmp_path / "s.sqlite")
    import_paths(store, [corpus])
    materialise_expected_rules(store)
    return store


def test_a_run_of_one_rule_keeps_the_twin_claims_a_whole_run_makes(tmp_path: Any) -> None:
    from core.replaying import run_replay

    store = _twin_store(tmp_path)
    try:
        profile = LEXICAL_TWINS.profile().with_(name="twins")
        whole = run_replay(store, profile)
        first = whole.results[0]
        assert len(first.prevented) == 3  # its three twins' sources, whatever their words
        rule_id = whole.inputs.rule_by_key[first.rule_key].id
        (alone,) = run_replay(store, profile, rule_ids=[rule_id]).results
        assert alone.prevented == first.prevented and alone.verdict == first.verdict
    finally:
        store.close()


def test_a_what_if_of_the_same_text_moves_nothing_under_a_twins_profile(tmp_path: Any) -> None:
    from core.decisions.whatif_draft import replay_draft
    from core.replaying import run_replay
    from core.store.replay_repo import ReplayRepository

    store = _twin_store(tmp_path)
    try:
        profile = LEXICAL_TWINS.profile().with_(name="twins")
        whole = run_replay(store, profile)
        result = ReplayRepository(store).results(whole.run_id)[0]
        rule = whole.inputs.rules[0]
        draft = replay_draft(store, result.rule_id, rule.trigger, rule.directive or "inspect logs", profile,
                             before_result_id=result.id)
        assert draft.moves == () and len(draft.result.prevented) == 3
    finally:
        store.close()


def test_many_rules_with_one_trigger_each_claim_every_other_source() -> None:
    """The bounded version of benchmarks/twin_drill.py: R rules, one trigger, R distinct sources."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from twin_drill import inputs  # type: ignore[import-not-found]

    rules, trajectories = inputs(300, 600)
    results = replay(rules, trajectories, LAB_2026_12.with_(semantic=False), keep_outcomes=False).results
    sources = {t.trajectory_id: t.key for t in trajectories}
    for rule, result in zip(rules, results, strict=True):
        assert len(result.prevented) == 299 and sources[rule.source_trajectory_id] not in result.prevented
