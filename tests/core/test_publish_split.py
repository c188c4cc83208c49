"""A rule that can fire (issue 28 item 5): a one-sentence rule (an ``expected_rule`` copy, trigger
= directive) is offered a split before approval; approving it unsplit needs the reviewer's
acknowledgement that it fires on no task, recorded in the audit log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cli import main
from core.decisions import DecisionRequest, SplitOffered, decide, propose_split, save_whatif_edit
from core.store.engine import Store, open_store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository

from tests.core.test_promotion_support import Builder

SENTENCE = "when git push fails with non-fast-forward, pull --rebase before pushing"


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "s.sqlite")
    yield opened
    opened.close()


def copy_of_expected_rule(store: Store) -> tuple[Builder, int, int]:
    b = Builder(store)
    b.trajectories("F-1", "F-2")
    rule = b.rule("expected_rule:F-1", SENTENCE, SENTENCE, kind="expected_rule")
    return b, rule, b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]})])


def test_the_split_of_a_when_sentence_is_its_condition_and_its_advice() -> None:
    proposal = propose_split(SENTENCE, SENTENCE)
    assert proposal is not None
    assert (proposal.trigger, proposal.directive) == ("git push fails with non-fast-forward",
                                                      "pull --rebase before pushing")


def test_a_rule_with_two_halves_is_offered_no_split() -> None:
    assert propose_split("git push fails", "pull --rebase first") is None


def test_approving_a_one_sentence_rule_offers_the_split_and_writes_nothing(store: Store) -> None:
    _b, rule, run = copy_of_expected_rule(store)
    with pytest.raises(SplitOffered, match="fires at injection on no task") as refused:
        decide(store, DecisionRequest("approve", "ana", rule, run, reason="reviewed"))
    assert refused.value.proposal.trigger == "git push fails with non-fast-forward"
    assert refused.value.fired == 0
    assert PromotionRepository(store).list() == []


def test_approving_it_unsplit_is_an_acknowledgement_in_the_audit_log(store: Store) -> None:
    _b, rule, run = copy_of_expected_rule(store)
    decide(store, DecisionRequest("approve", "ana", rule, run, reason="reviewed", acknowledge_no_task=True))
    [event] = [e for e in ReviewRepository(store).audit() if e.action == "approve"]
    assert event.after["acknowledgement"] == ("ana acknowledged: trigger and directive are one sentence; "
                                              "it fires at injection on no task")
    assert event.after["gates"]["injection"]["state"] == "fail"
    assert event.after["gates"]["injection"]["proposal"]["directive"] == "pull --rebase before pushing"


def test_after_the_split_is_saved_and_replayed_the_rule_is_approved_without_the_gate(store: Store) -> None:
    b, rule, _run = copy_of_expected_rule(store)
    proposal = propose_split(SENTENCE, SENTENCE)
    assert proposal is not None
    save_whatif_edit(store, rule, proposal.trigger, proposal.directive, "ana", note="split")
    run = b.run([(rule, "pass", {"prevented": ["F-1"]})])  # the replay of the edited text
    outcome = decide(store, DecisionRequest("approve", "ana", rule, run, reason="split and reviewed"))
    assert outcome.promotion is not None and outcome.promotion.status == "active"


def test_split_rule_on_the_command_line_saves_the_proposed_halves(store: Store, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _b, rule, run = copy_of_expected_rule(store)
    path = str(tmp_path / "s.sqlite")
    assert main(["decide", "approve", "--store", path, "--rule", str(rule), "--run", str(run), "--reviewer", "ana"]) == 1
    assert "proposed: trigger 'git push fails with non-fast-forward'" in capsys.readouterr().err
    assert main(["split-rule", "--store", path, "--rule", str(rule), "--reviewer", "ana",
                 "--directive", "run git pull --rebase, then push"]) == 0
    from core.store.rule_repo import RuleRepository

    latest = RuleRepository(store).get(rule).latest  # type: ignore[union-attr]
    assert (latest.version, latest.trigger, latest.directive) == (2, "git push fails with non-fast-forward",
                                                                  "run git pull --rebase, then push")
