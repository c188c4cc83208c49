"""Team agreement online: balanced seeded assignments, a reviewer's own queue, live kappa / alpha (both back ends)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from test_labels_support import labels_store, small_run  # noqa: F401  (fixture)

from core.agreement.assignments import assign, assigned_items, deal, team_status
from core.agreement.session import commit_judgement, create_session, next_item, progress
from core.cli import main
from core.domain.errors import NotAssigned
from core.store.agreement_repo import AgreementRepository
from core.store.assignment_repo import AssignmentRepository
from core.store.engine import Store


def test_dealing_is_balanced_with_distinct_reviewers_per_item() -> None:
    plan = deal(range(1, 12), ["ana", "bo", "cy"], per_item=2, seed=5)
    assert sorted(len(o) for o in plan.values()) == [7, 7, 8]  # 22 judgements over 3 reviewers
    per_item = Counter(o for ordinals in plan.values() for o in ordinals)
    assert per_item == {o: 2 for o in range(1, 12)}  # every item to two different reviewers


def test_dealing_is_deterministic_for_a_seed() -> None:
    one = deal(range(1, 12), ["ana", "bo", "cy"], 2, seed=5)
    assert deal(range(1, 12), ["cy", "bo", "ana"], 2, seed=5) == one  # the order names are given in does not matter
    assert any(deal(range(1, 12), ["ana", "bo", "cy"], 2, seed=s) != one for s in range(6, 10))


@pytest.mark.parametrize(("reviewers", "per_item", "message"), [
    (["ana", "bo"], 3, "between 1 and the number of reviewers \\(2\\), got 3"),
    (["ana", "bo"], 0, "between 1 and the number of reviewers"),
    (["ana", "ana"], 1, "more than once: ana"),
    ([" "], 1, "at least one reviewer"),
    (["ana", "b" * 600], 1, "600 bytes, over the 512-byte limit for a reviewer name"),
    (["ana", "b\x00o"], 1, "NUL character"),
])
def test_a_bad_assignment_says_why(reviewers: list[str], per_item: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        deal(range(1, 5), reviewers, per_item, seed=1)


def _judge_all(store: Store, session_id: int, reviewer: str, answer_for: dict[int, str] | None = None) -> list[int]:
    """Commit the reviewer's whole queue (replay's answer unless ``answer_for[ordinal]``); the ordinals judged."""
    answers = {i.id: i.replay_answer for i in AgreementRepository(store).items_with_answers(session_id)}
    done = []
    while (item := next_item(store, session_id, reviewer)) is not None:
        answer = (answer_for or {}).get(item.ordinal, answers[item.item_id])
        commit_judgement(store, item.item_id, reviewer, answer, scope="in_scope" if item.scope_choices else None)
        done.append(item.ordinal)
    return done


def test_a_reviewer_is_offered_only_their_assigned_items(labels_store: Store) -> None:
    session = create_session(labels_store, small_run(labels_store), "lea", size=11, seed=3)
    plan = assign(labels_store, session.id, ["ana", "bo", "cy"], per_item=2, assigned_by="lea")
    assert assigned_items(labels_store, session.id, "ana") == list(plan.items["ana"])
    assert progress(labels_store, session.id, "ana").size == len(plan.items["ana"])
    assert sorted(_judge_all(labels_store, session.id, "ana")) == list(plan.items["ana"])
    assert next_item(labels_store, session.id, "dan") is None  # not on the team: nothing to judge


def test_an_item_assigned_to_someone_else_cannot_be_judged(labels_store: Store) -> None:
    session = create_session(labels_store, small_run(labels_store), "lea", size=11, seed=3)
    plan = assign(labels_store, session.id, ["ana", "bo"], per_item=1, assigned_by="lea")
    theirs = next(i for i in AgreementRepository(labels_store).items_with_answers(session.id)
                  if i.ordinal in plan.items["bo"])
    with pytest.raises(NotAssigned, match=f"item {theirs.ordinal} of session #{session.id} is not assigned to ana"):
        commit_judgement(labels_store, theirs.id, "ana", theirs.replay_answer)


def test_an_unassigned_session_offers_every_item(labels_store: Store) -> None:
    session = create_session(labels_store, small_run(labels_store), "lea", size=11, seed=3)
    assert len(_judge_all(labels_store, session.id, "ana")) == 11


def test_kappa_and_alpha_follow_the_committed_judgements(labels_store: Store) -> None:
    session = create_session(labels_store, small_run(labels_store), "lea", size=11, seed=3)
    assign(labels_store, session.id, ["ana", "bo"], per_item=2, assigned_by="lea")
    empty = team_status(labels_store, session.id)
    assert (empty.multi_judged, empty.alpha.value, empty.pairs[0].kappa.value) == (0, None, None)  # honest nulls
    _judge_all(labels_store, session.id, "ana")
    assert team_status(labels_store, session.id).multi_judged == 0  # one reviewer: nothing to compare
    _judge_all(labels_store, session.id, "bo")  # bo answers exactly like ana
    agreeing = team_status(labels_store, session.id)
    assert agreeing.multi_judged == 11
    assert agreeing.alpha.value == pytest.approx(1.0) and agreeing.pairs[0].kappa.value == pytest.approx(1.0)
    assert [(p.reviewer, p.assigned, p.judged) for p in agreeing.progress] == [("ana", 11, 11), ("bo", 11, 11)]
    # cy joins on a second session and disagrees on two items: both figures drop below 1.
    second = create_session(labels_store, small_run(labels_store), "lea", size=11, seed=3)
    assign(labels_store, second.id, ["ana", "cy"], per_item=2, assigned_by="lea")
    _judge_all(labels_store, second.id, "ana")
    verdicts = [i for i in AgreementRepository(labels_store).items_with_answers(second.id) if i.kind == "verdict"]
    flip = {verdicts[0].ordinal: "inconclusive" if verdicts[0].replay_answer != "inconclusive" else "pass"}
    _judge_all(labels_store, second.id, "cy", flip)
    mixed = team_status(labels_store, second.id)
    assert mixed.alpha.value is not None and mixed.alpha.value < 1.0
    assert mixed.pairs[0].kappa.value is not None and mixed.pairs[0].kappa.value < 1.0


def test_judgements_from_before_a_reassignment_are_left_out(labels_store: Store) -> None:
    session = create_session(labels_store, small_run(labels_store), "lea", size=11, seed=3)
    _judge_all(labels_store, session.id, "ana")  # judged everything before any assignment
    _judge_all(labels_store, session.id, "bo")
    assert team_status(labels_store, session.id).multi_judged == 11
    assign(labels_store, session.id, ["ana", "bo"], per_item=1, assigned_by="lea")
    status = team_status(labels_store, session.id)
    assert status.multi_judged == 0 and status.alpha.value is None  # one reviewer per item now: no overlap


def test_cli_assigns_and_reports_team_status(labels_store: Store, store_location: object,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    session = create_session(labels_store, small_run(labels_store), "lea", size=11, seed=3)
    where = str(store_location)
    assert main(["agreement", "assign", str(session.id), "--reviewers", "ana,bo,cy", "--per-item", "2",
                 "--by", "lea", "--store", where]) == 0
    printed = capsys.readouterr().out
    assert "2 reviewers per item" in printed and sorted(printed.count(f"{r}: ") for r in ("ana", "bo", "cy")) == [1, 1, 1]
    assert main(["agreement", "team-status", str(session.id), "--json", "--store", where]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["per_item"] == 2 and sum(p["assigned"] for p in status["progress"]) == 22
    assert status["alpha"]["value"] is None and status["multi_judged"] == 0
    assert main(["agreement", "assign", str(session.id), "--reviewers", "ana", "--per-item", "2",
                 "--by", "lea", "--store", where]) == 1
    assert "between 1 and the number of reviewers (1), got 2" in capsys.readouterr().err


def test_cli_refuses_an_oversized_reviewer_name_in_one_line_and_keeps_the_assignment(
        labels_store: Store, store_location: object, capsys: pytest.CaptureFixture[str]) -> None:
    session = create_session(labels_store, small_run(labels_store), "lea", size=11, seed=3)
    where = str(store_location)
    assert main(["agreement", "assign", str(session.id), "--reviewers", "ana,bo", "--per-item", "1",
                 "--by", "lea", "--store", where]) == 0
    before = AssignmentRepository(labels_store).assignments(session.id)
    capsys.readouterr()
    assert main(["agreement", "assign", str(session.id), "--reviewers", "ana," + "b" * 600, "--per-item", "1",
                 "--by", "lea", "--store", where]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "over the 512-byte limit for a reviewer name" in err and "Traceback" not in err
    assert AssignmentRepository(labels_store).assignments(session.id) == before
