"""compare() and the gate on judgements written out by hand (no store): every figure worked out below.

Seven committed judgements, replay's answer first, the human's second:

    verdict  stratum v    pass / pass, pass / fail, fail / fail, inconclusive / cant_tell
    firing   stratum f1   prevents / prevents, breaks / breaks
    firing   stratum f2   does_not_fire / prevents

Decisive: 6 (one abstention); agreeing: 4.
Verdict: p_o = 2/3; replay's marginals pass 2, fail 1, the human's pass 1, fail 2, so
p_e = (2*1 + 1*2) / 9 = 4/9 and kappa = (2/3 - 4/9) / (5/9) = 2/5.
Firing: p_o = 2/3; p_e = (1*2 + 1*1) / 9 = 1/3, kappa = (1/3) / (2/3) = 1/2.
Both kinds: chance agreement within each kind, weighted by its share (3 of 6 each):
p_e = 4/9 / 2 + 1/3 / 2 = 7/18, p_o = 12/18, kappa = (5/18) / (11/18) = 5/11.
"""

from __future__ import annotations

import pytest

from core.agreement.results import (
    OLD_QUESTION_NOTE,
    GateResult,
    SessionResult,
    UnblindedSummary,
    compare,
    gate_state,
)
from core.agreement.scope import scope_agreement, scoped_recall
from core.domain.agreement import Judgement, SessionInfo
from core.stats.wilson import Rate


def _j(kind: str, stratum: str, replay: str, human: str, n: int = 0) -> Judgement:
    return Judgement(item_id=n, session_id=1, ordinal=n, kind=kind, stratum=stratum, reviewer="ana", answer=human,
                     replay_answer=replay, rubric=None, note=None, origin="R1", committed_at="2026-01-01T00:00:00Z")


# Listed firing first: the result still puts verdict first.
WORKED = [
    _j("firing", "f1", "prevents", "prevents", 5), _j("firing", "f1", "breaks", "breaks", 6),
    _j("firing", "f2", "does_not_fire", "prevents", 7),
    _j("verdict", "v", "pass", "pass", 1), _j("verdict", "v", "pass", "fail", 2), _j("verdict", "v", "fail", "fail", 3),
    _j("verdict", "v", "inconclusive", "cant_tell", 4),
]


def test_counts_judgements_abstentions_and_agreement_over_decisive_answers() -> None:
    c = compare(WORKED)
    assert (c.judgements, c.abstained) == (7, 1)
    assert (c.agreement.k, c.agreement.n) == (4, 6)


def test_kinds_come_verdict_first_then_by_name() -> None:
    extra = [_j("evidence", "e", "prevented", "prevented", 8)]
    assert [k.kind for k in compare(WORKED + extra).per_kind] == ["verdict", "evidence", "firing"]


def test_each_kind_has_its_own_agreement_kappa_and_abstentions() -> None:
    verdict, firing = compare(WORKED).per_kind
    assert (verdict.agreement.k, verdict.agreement.n, verdict.abstained) == (2, 3, 1)
    assert (firing.agreement.k, firing.agreement.n, firing.abstained) == (2, 3, 0)
    assert verdict.kappa.value == pytest.approx(2 / 5)
    assert firing.kappa.value == pytest.approx(1 / 2)


def test_a_kinds_confusion_has_replay_as_rows_in_the_kinds_answer_order() -> None:
    verdict, firing = compare(WORKED).per_kind
    assert verdict.confusion.labels == ("pass", "fail", "inconclusive")
    assert verdict.confusion.counts == ((1, 1, 0), (0, 1, 0), (0, 0, 0))
    assert firing.confusion.labels == ("prevents", "breaks", "near_miss", "does_not_fire")
    assert firing.confusion.counts == ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0))


def test_the_overall_kappa_weighs_chance_agreement_within_each_kind() -> None:
    assert compare(WORKED).kappa.value == pytest.approx(5 / 11)


def test_the_overall_confusion_lists_every_kinds_answers_verdict_first() -> None:
    confusion = compare(WORKED).confusion
    assert confusion.labels == ("pass", "fail", "inconclusive", "prevents", "breaks", "near_miss", "does_not_fire")
    assert confusion.counts[0] == (1, 1, 0, 0, 0, 0, 0)  # replay said pass
    assert confusion.counts[6] == (0, 0, 0, 1, 0, 0, 0)  # replay said does_not_fire, the human prevents


def test_strata_are_sorted_and_count_only_decisive_answers() -> None:
    strata = [(s.stratum, s.agreement.k, s.agreement.n, s.abstained) for s in compare(WORKED).per_stratum]
    assert strata == [("f1", 2, 2, 0), ("f2", 0, 1, 0), ("v", 2, 3, 1)]


def test_the_gate_is_decided_on_the_overall_agreement() -> None:
    gate = compare(WORKED, gate=0.2).gate
    assert gate.agreement == Rate.of(4, 6)
    assert (gate.state, gate.threshold) == ("pass", 0.2)  # Wilson lower bound of 4/6 is 0.300


def test_nothing_committed_is_not_enough_data_and_says_so() -> None:
    c = compare([])
    assert (c.judgements, c.abstained, c.agreement.n, c.per_kind, c.per_stratum) == (0, 0, 0, (), ())
    assert (c.gate.state, c.gate.reason) == ("not enough data", "no committed judgements")


def test_the_gate_passes_when_the_lower_bound_equals_the_threshold() -> None:
    rate = Rate.of(9, 10)
    assert rate.ci is not None
    assert gate_state(rate, rate.ci[0]).state == "pass"


def test_the_gate_does_not_fail_when_the_upper_bound_equals_the_threshold() -> None:
    rate = Rate.of(3, 10)
    assert rate.ci is not None
    assert gate_state(rate, rate.ci[1]).state == "not enough data"


def test_each_gate_state_gives_its_bound_in_the_reason() -> None:
    assert gate_state(Rate.of(30, 30)).reason == "95% lower bound 0.886 >= gate 0.80"
    assert gate_state(Rate.of(10, 30)).reason == "95% upper bound 0.512 < gate 0.80"
    assert gate_state(Rate.of(24, 30)).reason == (
        "the interval [0.627, 0.905] contains the gate 0.80: judge more items")


def test_a_gate_as_json() -> None:
    gate = GateResult("pass", 0.8, Rate.of(30, 30), "why")
    assert gate.to_dict() == {"state": "pass", "threshold": 0.8, "agreement": Rate.of(30, 30).to_dict(),
                              "reason": "why"}


def test_a_comparison_as_json_names_each_part() -> None:
    c = compare(WORKED, gate=0.2)
    verdict = c.per_kind[0]
    out = c.to_dict()
    assert out == {
        "judgements": 7, "abstained": 1, "agreement": Rate.of(4, 6).to_dict(), "kappa": c.kappa.to_dict(),
        "confusion": c.confusion.to_dict(), "per_kind": [k.to_dict() for k in c.per_kind],
        "per_stratum": [s.to_dict() for s in c.per_stratum], "gate": c.gate.to_dict(),
    }
    assert out["per_kind"][0] == {"kind": "verdict", "agreement": Rate.of(2, 3).to_dict(),
                                  "kappa": verdict.kappa.to_dict(), "confusion": verdict.confusion.to_dict(),
                                  "abstained": 1}
    assert out["per_stratum"][2] == {"stratum": "v", "agreement": Rate.of(2, 3).to_dict(), "abstained": 1}


def test_unblinded_marks_as_json_carry_the_anchoring_note() -> None:
    summary = UnblindedSummary(4, 2, 1, 1, Rate.of(2, 3))
    assert summary.to_dict() == {
        "marks": 4, "right": 2, "wrong": 1, "cant_tell": 1, "agreement": Rate.of(2, 3).to_dict(),
        "note": "unblinded: the reviewer saw replay's answer before marking (anchoring inflates agreement)",
    }


def test_the_old_question_note_says_what_was_scored_against_what() -> None:
    assert "'missed' was scored against 'no effect'" in OLD_QUESTION_NOTE
    assert OLD_QUESTION_NOTE.startswith("made before the two questions")


# --- a session's result, built from the worked judgements (no store) -----------------------------------
# One more stratum, x, holds only an abstention: it has no decisive judgement, so no rate.
WITH_X = [*WORKED, _j("verdict", "x", "pass", "cant_tell", 9)]


def _session(strata: dict[str, dict[str, int]], blind: bool = True, question: str = "firing_scope") -> SessionInfo:
    return SessionInfo(id=4, uid="u-4", name="pilot", run_id=7, run_profile="workbench", run_config_hash="cfg",
                       run_corpus_hash="corpus", seed=3, target_half_width=0.1, assumed_p=0.85, size=8, blind=blind,
                       allocation="proportional", min_per_stratum=2, gate=0.8, strata=strata, created_by="lead",
                       origin="local", created_at="2026-01-01T00:00:00Z", question=question)


def _result(session: SessionInfo, judgements: list[Judgement] = WITH_X) -> SessionResult:
    comparison = compare(judgements, session.gate)
    return SessionResult(session, None, ("ana",), session.size, {"ana": len(judgements)}, comparison,
                         {"ana": comparison}, UnblindedSummary(0, 0, 0, 0, Rate.of(0, 0)),
                         scope_agreement(judgements), scoped_recall(judgements, session.strata))


def test_population_weighted_agreement_weighs_each_strata_rate_by_its_population() -> None:
    # f1 1.0 (population 10), f2 0.0 (30), v 2/3 (60); x has no rate and its 100 are left out:
    # (10 * 1 + 30 * 0 + 60 * 2/3) / 100 = 0.5.
    strata = {"f1": {"population": 10}, "f2": {"population": 30}, "v": {"population": 60}, "x": {"population": 100}}
    assert _result(_session(strata)).population_weighted == pytest.approx(0.5)


def test_a_stratum_without_a_population_weighs_nothing() -> None:
    strata = {"f1": {"population": 10}, "f2": {"sampled": 1}, "v": {"population": 30}}
    assert _result(_session(strata)).population_weighted == pytest.approx((10 * 1.0 + 30 * 2 / 3) / 40)


def test_population_weighted_agreement_is_none_without_populations() -> None:
    assert _result(_session({})).population_weighted is None


def test_a_session_result_as_json() -> None:
    strata = {"f1": {"population": 10}, "f2": {"population": 30}, "v": {"population": 60}}
    result = _result(_session(strata))
    c = result.comparison
    assert result.blind
    assert result.to_dict() == {
        "session": {"id": 4, "uid": "u-4", "name": "pilot", "run_id": 7, "seed": 3, "size": 8, "blind": True,
                    "allocation": "proportional", "min_per_stratum": 2, "target_half_width": 0.1, "assumed_p": 0.85,
                    "gate": 0.8, "strata": strata, "created_by": "lead", "created_at": "2026-01-01T00:00:00Z"},
        "mode": "blind", "question": "firing_scope", "old_question": False, "question_note": None,
        "reviewer": None, "reviewers": ["ana"], "population_weighted_agreement": 0.5,
        "progress": {"ana": {"committed": 8, "size": 8}},
        **c.to_dict(),
        "per_reviewer": {"ana": c.to_dict()},
        "unblinded_marks": result.unblinded.to_dict(),
        "scope": result.scope.to_dict(), "scoped_recall": result.scoped_recall.to_dict(),
        # No judgement was made after the reviewer chose to see replay's answer first (issue 24).
        "seen_evidence_first": {"judgements": 0, "note": None, "without_them": None},
    }


def test_an_unblinded_sessions_json_says_so() -> None:
    result = _result(_session({}, blind=False))
    assert not result.blind
    assert result.to_dict()["mode"] == "unblinded session"
    assert result.to_dict()["population_weighted_agreement"] is None


def test_an_old_question_sessions_json_carries_the_note() -> None:
    out = _result(_session({}, question="single")).to_dict()
    assert (out["old_question"], out["question_note"]) == (True, OLD_QUESTION_NOTE)


def test_an_old_evidence_kinds_confusion_lists_all_five_answers_in_the_protocols_order() -> None:
    # An old single-question session's evidence items: the table keeps every answer of the
    # question, in its order, even those nobody gave (missed, no_effect), not just the ones seen.
    evidence = [_j("evidence", "e", "prevented", "prevented", 1), _j("evidence", "e", "broken", "near_miss", 2)]
    (kind,) = compare(evidence).per_kind
    assert kind.confusion.labels == ("prevented", "broken", "near_miss", "missed", "no_effect")
    assert kind.confusion.counts[1] == (0, 0, 1, 0, 0)  # replay said broken, the human near_miss


def test_population_weighted_agreement_is_given_to_four_places_in_json() -> None:
    # Only v has a population: its rate, 2/3, is the estimate.
    out = _result(_session({"v": {"population": 60}})).to_dict()
    assert out["population_weighted_agreement"] == 0.6667
