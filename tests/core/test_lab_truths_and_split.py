"""The lab's truths, split, read-outs, canaries and circularity flags (docs/lab.md)."""

from __future__ import annotations

import pytest

from core.lab.canaries import CanaryBench, CanaryVerdict, load_canaries
from core.lab.readouts import Figure, Reader, ReadOut
from core.lab.run import _choose, circular_for, resplit_seeds, run_lab
from core.lab.scores import ScoredPairs
from core.lab.settings import REFERENCE_SEMANTIC, REFERENCE_WITHHELD, Setting
from core.lab.split import group_split, record_split, rule_groups
from core.lab.truths import ReviewerJudgement, Truth, expected_rule_truth, failure_class_proxy, reviewer_truth
from core.replay.inputs import trajectory_from_record
from core.replay.types import ReplayRule, ReplayTrajectory


def _failure(key: int, tid: str, klass: str, domain: str, task: str, error: str, corpus: str = "golden",
             expected: str | None = None) -> ReplayTrajectory:
    record = {"trajectory_id": tid, "task": task, "success": False, "failure_class": klass, "domain": domain,
              "steps": [{"step_number": 1, "tool": "bash", "input": task, "error": error}]}
    if expected:
        record["expected_rule"] = expected
    return trajectory_from_record(key, record, corpus)


def _success(key: int, tid: str, domain: str, task: str, corpus: str = "successes") -> ReplayTrajectory:
    record = {"trajectory_id": tid, "task": task, "success": True, "domain": domain,
              "steps": [{"step_number": 1, "tool": "bash", "input": task, "output": "ok"}]}
    return trajectory_from_record(key, record, corpus)


def _corpus() -> list[ReplayTrajectory]:
    return [
        _failure(0, "G-1", "git/push/non-fast-forward", "git", "push feature branch", "rejected non-fast-forward",
                 expected="when git push is rejected, pull with rebase first"),
        _failure(1, "P-1", "git/push/non-fast-forward", "git", "publish commits to remote", "push rejected behind",
                 corpus="reference-expansion/paraphrase-diversity",
                 expected="when git push is rejected, pull with rebase first"),
        _failure(2, "P-2", "git/push/non-fast-forward", "git", "upload branch to origin", "non-fast-forward push",
                 corpus="reference-expansion/paraphrase-diversity"),
        _failure(3, "D-1", "docker/build/package-not-found", "docker", "docker build image", "package not found"),
        _failure(4, "D-2", "docker/build/package-not-found", "docker", "build container image", "apt package missing"),
        _failure(5, "N-1", "git/merge/conflict", "git", "merge release branch", "merge conflict", corpus="nearmiss"),
        _success(6, "S-1", "git", "git push feature branch to remote"),
        _success(7, "S-2", "docker", "docker build image for web service"),
    ]


def _rules(trajectories: list[ReplayTrajectory]) -> list[ReplayRule]:
    by_id = {t.trajectory_id: t for t in trajectories}

    def rule(key: str, trigger: str, source: str) -> ReplayRule:
        t = by_id[source]
        return ReplayRule(key=key, trigger=trigger, source_trajectory_id=t.trajectory_id, source_key=t.key,
                          domain=t.domain, corpus=t.corpus)

    return [rule("push", "git push rejected non-fast-forward", "G-1"),
            rule("push-twin", "git push rejected because the branch is behind", "P-1"),
            rule("docker", "docker build fails package not found", "D-1")]


def test_the_proxy_makes_same_class_failures_positive_and_leaves_the_source_and_successes_out() -> None:
    trajectories = _corpus()
    truth = failure_class_proxy(_rules(trajectories), trajectories)
    assert truth.proxy and truth.caveat
    assert truth.universe["push"] == frozenset({1, 2, 3, 4, 5})
    assert truth.positives["push"] == frozenset({1, 2})
    assert truth.positives["docker"] == frozenset({4})


def test_the_expected_rule_truth_covers_only_rules_whose_source_carries_a_lesson() -> None:
    trajectories = _corpus()
    truth = expected_rule_truth(_rules(trajectories), trajectories)
    assert truth.rules == ("push", "push-twin")
    assert truth.positives["push"] == frozenset({1})  # the same lesson, worded the same
    assert truth.universe["push"] == frozenset({1})  # only labelled failures are judged


def test_a_truth_without_data_reads_null_never_zero() -> None:
    trajectories = _corpus()
    rules = _rules(trajectories)
    truth = reviewer_truth([], trajectories)
    assert truth.empty
    scored = ScoredPairs.build(rules, trajectories)
    out = Reader(rules, trajectories).read(scored.decide(Setting(semantic=False).profile()), truth,
                                           [r.key for r in rules], "all")
    for figure in (out.precision, out.recall, out.f1, out.false_break, out.false_accept, out.net_positive):
        assert figure.value is None and figure.n == 0 and figure.ci is None


def test_reviewer_truth_takes_the_majority_and_an_out_of_scope_majority_is_negative() -> None:
    trajectories = _corpus()
    judged = [ReviewerJudgement("push", 1, "prevents", "in_scope"), ReviewerJudgement("push", 1, "prevents", None),
              ReviewerJudgement("push", 2, "prevents", "out_of_scope"),
              ReviewerJudgement("push", 3, "prevents", None), ReviewerJudgement("push", 3, "does_not_fire", None),
              ReviewerJudgement("push", 6, "breaks", None)]  # a success: not a failure pair
    truth = reviewer_truth(judged, trajectories)
    assert truth.universe["push"] == frozenset({1, 2})  # 3 is a tie
    assert truth.positives["push"] == frozenset({1})


def test_the_group_split_keeps_planted_paraphrase_twins_together_where_a_record_split_parts_them() -> None:
    trajectories = _corpus()
    rules = _rules(trajectories)
    groups = rule_groups(rules, trajectories, "failure_class")
    assert groups["push"] == groups["push-twin"]
    keys = [r.key for r in rules]
    parted = [seed for seed in range(200)
              if ("push" in record_split(keys, 0.5, seed).held_back) != ("push-twin" in record_split(keys, 0.5,
                                                                                                     seed).held_back)]
    assert parted, "a record-level split puts the twins on both sides for some seed"
    for seed in parted:
        split = group_split(groups, "failure_class", 0.5, seed)
        assert ("push" in split.held_back) == ("push-twin" in split.held_back)
        assert split.tuning and split.held_back


def test_a_setting_made_blind_on_purpose_is_flagged_by_the_canaries() -> None:
    bench = CanaryBench(load_canaries(), embed=None)
    blind = bench.check(Setting(semantic=False, threshold=0.05))
    assert blind.flagged and "same trigger, different error class" in blind.blind_to
    assert not bench.check(Setting(semantic=False)).flagged


def test_every_replay_setting_is_circular_for_the_proxy_and_none_is_chosen_on_it() -> None:
    trajectories = _corpus()
    rules = _rules(trajectories)
    proxy = failure_class_proxy(rules, trajectories)
    assert circular_for(Setting(), proxy)
    assert not circular_for(Setting(), expected_rule_truth(rules, trajectories))
    result = run_lab(rules, trajectories, settings=[Setting(semantic=False), Setting(semantic=False, threshold=0.5)])
    assert result.choices["failure_class_proxy"].chosen is None
    assert "circular" in result.choices["failure_class_proxy"].reason
    assert result.choices["reviewers"].reason == "no data for this truth"


def test_every_figure_carries_its_shuffled_floor_and_the_split_is_stored_with_the_result() -> None:
    trajectories = _corpus()
    rules = _rules(trajectories)
    result = run_lab(rules, trajectories, settings=[Setting(semantic=False)])
    as_dict = result.to_dict()
    assert as_dict["splits"]["failure_class_proxy"]["group_by"] == "failure_class"
    readout = as_dict["settings"][0]["readouts"]["failure_class_proxy"]["all"]
    for name in ("precision", "recall", "f1", "false_break", "false_accept", "net_positive"):
        assert "floor" in readout[name] and "ci" in readout[name] and "n" in readout[name]
    assert readout["f1"]["n"] > 0 and readout["f1"]["floor"] is not None


def _readout(f1: float, ci: tuple[float, float], accept: float) -> ReadOut:
    fig = Figure(f1, 10, 12, ci, 0.1)
    return ReadOut("t", "p", 5, fig, fig, fig, fig, Figure(accept, 1, 100, (0.0, 0.05), 0.04), fig)


def test_a_win_inside_the_interval_is_no_clear_win_and_is_not_shippable() -> None:
    truth = Truth("t", "expected_rule", "c", {"r": frozenset({1})}, {"r": frozenset({1})})
    other = Setting(threshold=0.7)
    settings = [REFERENCE_SEMANTIC, other]
    flags = {s.name: CanaryVerdict((), ()) for s in settings}
    circular: dict[str, dict[str, list[str]]] = {s.name: {"t": []} for s in settings}

    def board(chosen_f1: float, chosen_ci: tuple[float, float]) -> dict[str, dict[str, dict[str, ReadOut]]]:
        ref = {p: _readout(0.80, (0.75, 0.85), 0.01) for p in ("tuning", "held_back", "all")}
        mine = {"tuning": _readout(0.90, (0.85, 0.95), 0.01), "held_back": _readout(chosen_f1, chosen_ci, 0.01),
                "all": _readout(0.9, (0.85, 0.95), 0.01)}
        return {REFERENCE_SEMANTIC.name: {"t": ref}, other.name: {"t": mine}}

    narrow = _choose("t", truth, settings, board(0.81, (0.76, 0.86)), flags, circular)
    assert narrow.chosen == other.name and not narrow.shippable and "not a clear win" in narrow.reason
    clear = _choose("t", truth, settings, board(0.90, (0.86, 0.94)), flags, circular)
    assert clear.shippable


def test_the_proxy_choice_names_the_reference_as_circular_and_reads_it_with_the_label_withheld() -> None:
    trajectories = _corpus()
    rules = _rules(trajectories)
    result = run_lab(rules, trajectories, settings=[Setting(semantic=False)])
    proxy = result.choices["failure_class_proxy"]
    assert proxy.reference_reads and all(r.startswith("failure_class") for r in proxy.reference_reads)
    assert proxy.withheld == REFERENCE_WITHHELD.name
    assert proxy.withheld_held_back == result.readouts[REFERENCE_WITHHELD.name]["failure_class_proxy"]["held_back"]
    assert "circular" in proxy.reason


def test_a_truth_the_reference_does_not_read_gets_no_withheld_comparator() -> None:
    trajectories = _corpus()
    rules = _rules(trajectories)
    result = run_lab(rules, trajectories, settings=[Setting(semantic=False)])
    lesson = result.choices["expected_rule"]
    assert lesson.reference_reads == () and lesson.withheld is None and lesson.withheld_held_back is None


def test_the_withheld_comparator_added_to_a_sweep_is_read_but_never_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    # Seen by no canary, the comparator would be the only setting the proxy may choose.
    monkeypatch.setattr(CanaryBench, "check", lambda self, setting: CanaryVerdict((), ()))
    trajectories = _corpus()
    rules = _rules(trajectories)
    result = run_lab(rules, trajectories, settings=[Setting(semantic=False), Setting(semantic=False, threshold=0.5)])
    assert REFERENCE_WITHHELD.name in {s.name for s in result.settings}
    assert result.choices["failure_class_proxy"].chosen is None


def test_each_re_split_is_the_choice_a_lab_run_with_that_seed_makes() -> None:
    trajectories = _corpus()
    rules = _rules(trajectories)
    grid = [Setting(semantic=False, read_failure_class=False, failure_gate_fallback=True, threshold=t)
            for t in (0.3, 0.5, 0.7)]
    result = run_lab(rules, trajectories, settings=grid, seed=26, resplits=3)
    for truth in ("failure_class_proxy", "expected_rule"):
        rows = result.choices[truth].resplits
        assert [r.seed for r in rows] == [1, 2, 3]
        for row in rows:
            alone = run_lab(rules, trajectories, settings=grid, seed=row.seed).choices[truth]
            assert row.chosen == alone.chosen
            assert row.f1 == (alone.chosen_held_back.f1.value if alone.chosen_held_back else None)
            assert row.reference_f1 == (alone.reference_held_back.f1.value if alone.reference_held_back else None)
    assert any(r.chosen for r in result.choices["failure_class_proxy"].resplits)


def test_re_splits_skip_the_main_seed_and_none_are_read_unless_asked() -> None:
    assert resplit_seeds(2, 3) == [1, 3, 4] and resplit_seeds(26, 0) == []
    trajectories = _corpus()
    assert run_lab(_rules(trajectories), trajectories,
                   settings=[Setting(semantic=False)]).choices["failure_class_proxy"].resplits == []
