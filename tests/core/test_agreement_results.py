"""Results on a hand-worked session: agreement, kappa, confusion, strata, gate; marks kept apart."""

from __future__ import annotations

import pytest
from test_labels_support import labels_store, small_run  # noqa: F401  (fixture)

from core.agreement.results import agreement_gate_for_run, gate_state, session_result
from core.agreement.session import commit_judgement, create_session
from core.domain.agreement import SessionInfo
from core.stats.wilson import Rate
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store
from core.store.replay_repo import ReplayRepository
from core.store.review_repo import ReviewRepository


def judge_everything(store: Store, session_id: int) -> None:
    """Ana agrees with replay except: R2's verdict (says inconclusive), N1 (says prevented), F5 (can't tell)."""
    for item in AgreementRepository(store).items_with_answers(session_id):
        answer = item.replay_answer
        key = item.trajectory_key or {}
        if item.kind == "verdict" and item.rule_origin == "R2":
            answer = "inconclusive"
        elif key.get("trajectory_id") == "N1":
            answer = "prevents"
        elif key.get("trajectory_id") == "F5":
            answer = "cant_tell"
        commit_judgement(store, item.id, "ana", answer)


def test_hand_worked_session(labels_store: Store) -> None:
    run_id = small_run(labels_store)
    session = create_session(labels_store, run_id, "lead", size=11, seed=3)
    judge_everything(labels_store, session.id)
    result = session_result(labels_store, session.id)
    c = result.comparison
    assert (c.judgements, c.abstained) == (11, 1)
    assert (c.agreement.k, c.agreement.n) == (8, 10)
    assert result.progress == {"ana": 11}
    verdict, evidence = c.per_kind
    assert verdict.kind == "verdict" and verdict.kappa.value == pytest.approx(0.5)
    assert verdict.confusion.labels == ("pass", "fail", "inconclusive")
    assert verdict.confusion.counts == ((1, 0, 0), (0, 0, 1), (0, 0, 1))  # rows replay, columns human
    # Evidence: p_o = 6/7, p_e = (3*4 + 2*2 + 1*1) / 49 = 17/49, kappa = 25/32.
    assert evidence.kappa.value == pytest.approx(25 / 32)
    assert evidence.abstained == 1
    # Overall: chance agreement within each kind, weighted: p_e = 12/35, kappa = 16/23.
    assert c.kappa.value == pytest.approx(16 / 23)
    strata = {s.stratum: (s.agreement.k, s.agreement.n, s.abstained) for s in c.per_stratum}
    assert strata == {
        "evidence:broken": (2, 2, 0), "evidence:missed": (1, 1, 1), "evidence:near_miss": (0, 1, 0),
        "evidence:prevented": (3, 3, 0), "verdict:fail": (0, 1, 0), "verdict:inconclusive": (1, 1, 0),
        "verdict:pass": (1, 1, 0),
    }
    # 8/10 = [0.490, 0.943]: the interval contains 0.80.
    assert c.gate.state == "not enough data"
    assert session_result(labels_store, session.id, gate=0.4).comparison.gate.state == "pass"
    assert session_result(labels_store, session.id, gate=0.95).comparison.gate.state == "fail"
    assert result.to_dict()["agreement"] == Rate.of(8, 10).to_dict()
    # Every stratum was sampled whole, so the re-weighting uses these sizes: (2+2+0+3+0+1+1)/11.
    assert result.population_weighted == pytest.approx(9 / 11)


def test_unblinded_workspace_marks_are_reported_apart(labels_store: Store) -> None:
    run_id = small_run(labels_store)
    session = create_session(labels_store, run_id, "lead", size=11, seed=3)
    judge_everything(labels_store, session.id)
    before = session_result(labels_store, session.id).comparison
    reviews = ReviewRepository(labels_store)
    for result in ReplayRepository(labels_store).results(run_id):
        reviews.mark("ana", result.id, None, result.verdict, "wrong", blinded=False)
    after = session_result(labels_store, session.id)
    assert after.comparison == before  # the blind numbers did not move
    assert (after.unblinded.marks, after.unblinded.wrong) == (3, 3)
    assert after.unblinded.agreement.value == 0.0
    state, details = agreement_gate_for_run(labels_store, run_id)
    assert details["unblinded_marks"]["wrong"] == 3 and details["agreement"]["n"] == 10


def test_gate_uses_the_interval_not_the_point() -> None:
    assert gate_state(Rate.of(30, 30)).state == "pass"  # lower bound 0.886
    assert gate_state(Rate.of(24, 30)).state == "not enough data"  # point 0.80 exactly
    assert gate_state(Rate.of(10, 30)).state == "fail"  # upper bound 0.51
    assert gate_state(Rate.of(0, 0)).state == "not enough data"
    assert gate_state(Rate.of(9, 10), 0.5).state == "pass"


def test_gate_for_a_run_counts_blind_sessions_of_runs_with_the_same_evidence(labels_store: Store) -> None:
    run_id = small_run(labels_store)
    state, details = agreement_gate_for_run(labels_store, run_id)
    assert state == "not enough data" and details["sessions"] == []
    session = create_session(labels_store, run_id, "lead", size=11, seed=3)
    judge_everything(labels_store, session.id)
    unblinded = create_session(labels_store, run_id, "lead", size=11, seed=4, blind=False)
    for item in AgreementRepository(labels_store).items_with_answers(unblinded.id):
        commit_judgement(labels_store, item.id, "bo", item.replay_answer)
    state, details = agreement_gate_for_run(labels_store, run_id, gate=0.4)
    assert state == "pass" and [s["id"] for s in details["sessions"]] == [session.id]
    assert details["reviewers"] == ["ana"]  # the unblinded session never counts
    # A later run with the same configuration and corpus has the same replay answers.
    rerun = small_run(labels_store)
    state, details = agreement_gate_for_run(labels_store, rerun, gate=0.4)
    assert state == "pass" and details["sessions"][0]["matched_by"] == "same config and corpus"
    other = small_run(labels_store, config_hash="other")
    assert agreement_gate_for_run(labels_store, other)[1]["sessions"] == []


def test_a_run_without_a_blind_session_says_so_in_the_gate(labels_store: Store) -> None:
    run_id = small_run(labels_store)
    state, details = agreement_gate_for_run(labels_store, run_id)
    assert state == "not enough data"
    assert details["gate"]["reason"] == "no blind agreement session for this run"
    assert (details["run_id"], details["threshold"], details["reviewers"]) == (run_id, 0.8, [])
    assert details["old_question_judgements_not_used"] == 0


def test_the_gate_of_an_unknown_run_is_refused(labels_store: Store) -> None:
    with pytest.raises(LookupError, match="no replay run #999"):
        agreement_gate_for_run(labels_store, 999)


def test_the_gate_for_a_run_uses_the_newest_blind_sessions_threshold_and_lists_it(labels_store: Store) -> None:
    run_id = small_run(labels_store)
    session = create_session(labels_store, run_id, "lead", size=11, seed=3, gate=0.6)
    judge_everything(labels_store, session.id)
    state, details = agreement_gate_for_run(labels_store, run_id)
    assert (state, details["threshold"]) == ("not enough data", 0.6)  # 8/10: [0.490, 0.943] contains 0.6
    assert details["sessions"] == [{"id": session.id, "uid": session.uid, "run_id": run_id, "size": 11,
                                    "matched_by": "run"}]
    assert details["gate"]["reason"].startswith("the interval [0.490, 0.943]")
    assert details["scope"] == session_result(labels_store, session.id).scope.to_dict()


def test_a_reviewers_result_counts_only_that_reviewers_judgements(labels_store: Store) -> None:
    run_id = small_run(labels_store)
    session = create_session(labels_store, run_id, "lead", size=11, seed=3)
    judge_everything(labels_store, session.id)
    for item in AgreementRepository(labels_store).items_with_answers(session.id)[:4]:
        commit_judgement(labels_store, item.id, "bo", item.replay_answer)
    both = session_result(labels_store, session.id)
    assert (both.reviewers, both.progress, both.comparison.judgements) == (("ana", "bo"), {"ana": 11, "bo": 4}, 15)
    bo = session_result(labels_store, session.id, reviewer="bo")
    assert (bo.reviewer, bo.reviewers, bo.progress) == ("bo", ("ana", "bo"), {"bo": 4})
    assert (bo.comparison.agreement.k, bo.comparison.agreement.n) == (4, 4)
    assert set(bo.per_reviewer) == {"bo"}


def test_a_sessions_unblinded_marks_are_its_runs_only(labels_store: Store) -> None:
    first, second = small_run(labels_store), small_run(labels_store)
    session = create_session(labels_store, second, "lead", size=11, seed=3)
    reviews = ReviewRepository(labels_store)
    for result in ReplayRepository(labels_store).results(first):
        reviews.mark("ana", result.id, None, result.verdict, "right", blinded=False)
    own = ReplayRepository(labels_store).results(second)
    for result, mark in zip(own, ("right", "wrong", "cant_tell")):
        reviews.mark("ana", result.id, None, result.verdict, mark, blinded=False)
    marks = session_result(labels_store, session.id).unblinded
    assert (marks.marks, marks.right, marks.wrong, marks.cant_tell) == (3, 1, 1, 1)
    assert (marks.agreement.k, marks.agreement.n) == (1, 2)


def test_a_session_without_a_run_has_no_unblinded_marks(labels_store: Store) -> None:
    # A session imported without its run (run_id None): nothing to look marks up by.
    info = SessionInfo(id=999, uid="u", name=None, run_id=None, run_profile=None, run_config_hash=None,
                       run_corpus_hash=None, seed=1, target_half_width=None, assumed_p=0.85, size=0, blind=True,
                       allocation="proportional", min_per_stratum=2, gate=0.8, strata={}, created_by="lead",
                       origin="import", created_at="2026-01-01T00:00:00Z")
    assert session_result(labels_store, info).unblinded.to_dict() == {
        "marks": 0, "right": 0, "wrong": 0, "cant_tell": 0, "agreement": Rate.of(0, 0).to_dict(),
        "note": "unblinded: the reviewer saw replay's answer before marking (anchoring inflates agreement)"}


def test_the_gate_for_a_run_counts_an_old_sessions_evidence_judgements_as_not_used(labels_store: Store) -> None:
    # A blind session made before the two questions, on this run: its two evidence items asked a
    # question replay does not answer, so the gate leaves them out and says how many it left out.
    from core.domain.agreement import QUESTION_SINGLE, PopulationItem
    from core.store.agreement_judging import insert_session_in

    run_id = small_run(labels_store)
    items = [PopulationItem(kind=kind, result_id=None, rule_origin="R1", rule_version=None, trigger="when a",
                            directive="do it", trajectory_pk=None, trajectory_key=None, corpus=None,
                            replay_answer=replay, stratum=f"{kind}:{replay}")
             for kind, replay in (("evidence", "missed"), ("evidence", "prevented"), ("verdict", "pass"))]
    with labels_store.session() as session:
        info = insert_session_in(
            session, items=items, created_by="lead", seed=1, assumed_p=0.85, target_half_width=None, blind=True,
            allocation="proportional", min_per_stratum=2, gate=0.8, strata={}, run_id=run_id,
            run_identity=AgreementRepository(labels_store).run_identity(run_id),
            created_at="2026-01-01T00:00:00Z", question=QUESTION_SINGLE)
    for item, answer in zip(AgreementRepository(labels_store).items_with_answers(info.id),
                            ("no_effect", "prevented", "pass")):
        commit_judgement(labels_store, item.id, "ana", answer)
    state, details = agreement_gate_for_run(labels_store, run_id)
    assert details["old_question_judgements_not_used"] == 2
    assert (details["judgements"], details["agreement"]["k"], details["agreement"]["n"]) == (1, 1, 1)


def test_each_reviewers_comparison_is_made_of_that_reviewers_judgements(labels_store: Store) -> None:
    run_id = small_run(labels_store)
    session = create_session(labels_store, run_id, "lead", size=11, seed=3)
    judge_everything(labels_store, session.id)  # ana: 8 of 10 decisive agree, one can't tell
    for item in AgreementRepository(labels_store).items_with_answers(session.id)[:4]:
        commit_judgement(labels_store, item.id, "bo", item.replay_answer)
    per_reviewer = session_result(labels_store, session.id).per_reviewer
    ana, bo = per_reviewer["ana"], per_reviewer["bo"]
    assert (ana.judgements, ana.agreement.k, ana.agreement.n) == (11, 8, 10)
    assert (bo.judgements, bo.agreement.k, bo.agreement.n) == (4, 4, 4)


def test_judgements_made_after_showing_a_rules_evidence_are_reported_apart(labels_store: Store) -> None:
    # ana judges the 7 items of R2 and R3 blind, then chooses "Show evidence anyway" for R1 and
    # judges its 4 items with replay's answers seen.
    from core.agreement.early_reveal import record_early_reveal

    run_id = small_run(labels_store)
    session = create_session(labels_store, run_id, "lead", size=11, seed=3)
    items = AgreementRepository(labels_store).items_with_answers(session.id)
    for item in [i for i in items if i.rule_origin != "R1"]:
        commit_judgement(labels_store, item.id, "ana", item.replay_answer)
    assert record_early_reveal(labels_store, "ana", "R1") == 1
    for item in [i for i in items if i.rule_origin == "R1"]:
        commit_judgement(labels_store, item.id, "ana", item.replay_answer)
    result = session_result(labels_store, session.id)
    assert (result.comparison.judgements, result.seen_first) == (11, 4)
    body = result.to_dict()["seen_evidence_first"]
    assert body["judgements"] == 4 and body["without_them"]["judgements"] == 7
    assert body["note"].startswith('judgements committed after the reviewer chose "Show evidence anyway" for that rule')
