"""decide() (core.decisions.service): what each decision writes, says and refuses, on small built stores.

Complements the promotion and decision-rule tests: the request checks, the evidence a reject
cites, the run an approval rests on, the wording every surface shows, the audit event's keys
and the lifecycle (retire / supersede) paths.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_promotion_every_rule import _judge, _store_with_rules
from test_promotion_support import Builder, promotion_store  # noqa: F401  (fixture)

from core.decisions import DecisionRequest, PromotionError, ReasonRequired, decide
from core.decisions.service import AcknowledgementRequired, OverrideRequired, RunNotComplete
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import RuleRepository

FAILS = ("F-1", "F-2", "F-3", "F-4", "F-5", "F-6")


def _built(store: Store) -> tuple[Builder, int, int]:
    """One rule that passes on a complete run, six failures prevented, one success broken."""
    b = Builder(store)
    b.trajectories(*FAILS)
    b.trajectories("S-1", "S-2", success=True)
    rule = b.rule("c/r.yaml", "when the push is rejected", "pull first")
    run = b.run([(rule, "pass", {"prevented": list(FAILS), "broken": ["S-1", "S-2"]})])
    return b, rule, run


def _last_event(store: Store, rule: int, action: str) -> Any:
    return [e for e in ReviewRepository(store).rule_audit(rule) if e.action == action][-1]


# --- the request --------------------------------------------------------------------------------

def test_an_unknown_action_is_refused(promotion_store: Store) -> None:
    with pytest.raises(ValueError, match="unknown decision 'promote'"):
        decide(promotion_store, DecisionRequest("promote", "ana", rule_id=1))


def test_an_unknown_surface_is_refused(promotion_store: Store) -> None:
    with pytest.raises(ValueError, match="unknown surface 'web'"):
        decide(promotion_store, DecisionRequest("defer", "ana", rule_id=1, via="web"))


def test_every_known_surface_may_decide(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    for via in ("review", "promotion", "cli", "api"):
        decide(b.store, DecisionRequest("defer", "ana", rule_id=rule, via=via))
        assert _last_event(b.store, rule, "defer").after["via"] == via


def test_a_decision_needs_a_rule(promotion_store: Store) -> None:
    with pytest.raises(ValueError, match="defer needs a rule id"):
        decide(promotion_store, DecisionRequest("defer", "ana"))


def test_a_reject_of_an_unknown_rule_is_refused(promotion_store: Store) -> None:
    with pytest.raises(PromotionError, match="no rule 999 in this store"):
        decide(promotion_store, DecisionRequest("reject", "ana", rule_id=999, reason="r"))


# --- reject and defer ------------------------------------------------------------------------------

def test_a_reject_says_so_and_hands_back_the_rules_next_version(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    outcome = decide(b.store, DecisionRequest("reject", "ana", rule_id=rule, reason="too broad"))
    assert (outcome.action, outcome.message, outcome.created, outcome.promotion) == (
        "reject", "c/r.yaml rejected (saved).", False, None)
    assert outcome.decision is not None and outcome.decision.reason == "too broad"
    assert outcome.row_version is not None
    decide(b.store, DecisionRequest("defer", "ana", rule_id=rule, expected_version=outcome.row_version))


def test_a_defer_says_deferred(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    assert decide(b.store, DecisionRequest("defer", "ana", rule_id=rule)).message == "c/r.yaml deferred (saved)."


def test_a_reject_citing_a_run_keeps_that_runs_evidence(promotion_store: Store) -> None:
    b, rule, run = _built(promotion_store)
    decide(b.store, DecisionRequest("reject", "ana", rule_id=rule, run_id=run, reason="breaks S-1"))
    event = _last_event(b.store, rule, "reject")
    assert event.run_id == run
    decision = ReviewRepository(b.store).current(rule)
    assert decision is not None and (decision.action, decision.run_id) == ("reject", run)


def test_a_reject_citing_a_run_that_did_not_replay_the_rule_is_refused(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    other = b.rule("c/other.yaml", "when x", "do y")
    other_run = b.run([(other, "pass", {"prevented": ["F-1"]})])
    with pytest.raises(PromotionError, match=f"rule {rule} was not replayed in run #{other_run}"):
        decide(b.store, DecisionRequest("reject", "ana", rule_id=rule, run_id=other_run, reason="r"))


def test_a_reject_citing_a_cancelled_run_is_refused(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    cancelled = b.run([(rule, "fail", {"broken": ["S-1"]})], status="cancelled")
    with pytest.raises(RunNotComplete, match=f"reject refused: run #{cancelled} is cancelled"):
        decide(b.store, DecisionRequest("reject", "ana", rule_id=rule, run_id=cancelled, reason="r"))
    assert ReviewRepository(b.store).current(rule) is None


def test_a_decision_event_has_the_same_keys_whatever_the_action(promotion_store: Store) -> None:
    b, rule, run = _built(promotion_store)
    decide(b.store, DecisionRequest("defer", "ana", rule_id=rule, via="review"))
    defer = _last_event(b.store, rule, "defer").after
    assert (defer["via"], defer["gates"], defer["acknowledgement"], defer["override_verdict"]) == (
        "review", None, None, False)
    decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="ok",
                                    waivers={"S-1": "log echo", "S-2": "log echo"}, via="cli"))
    approve = _last_event(b.store, rule, "approve").after
    assert {"via", "gates", "acknowledgement", "override_verdict"} <= set(approve)
    assert (approve["via"], approve["acknowledgement"], approve["override_verdict"]) == ("cli", None, False)


# --- approval: the run it rests on -----------------------------------------------------------------

def test_an_approval_without_a_run_rests_on_the_newest_complete_one(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    newer = b.run([(rule, "pass", {"prevented": ["F-1"]})])
    b.run([(rule, "pass", {"prevented": ["F-2"]})], status="cancelled")
    outcome = decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, reason="ok"))
    assert outcome.promotion is not None and outcome.promotion.provenance["replay_run_id"] == newer


def test_an_approval_of_a_rule_never_replayed_completely_is_refused(promotion_store: Store) -> None:
    b = Builder(promotion_store)
    b.trajectories("F-1")
    rule = b.rule("c/r.yaml", "when the push is rejected", "pull first")
    with pytest.raises(PromotionError, match=f"rule {rule} has no complete replay of its current text"):
        decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, reason="ok"))


def test_an_approval_on_an_unknown_run_is_refused(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    with pytest.raises(PromotionError, match="no replay run #999 in this store"):
        decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=999, reason="ok"))


def test_an_approval_on_a_cancelled_run_is_refused(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    cancelled = b.run([(rule, "pass", {"prevented": ["F-1"]})], status="cancelled")
    with pytest.raises(RunNotComplete, match=f"run #{cancelled} is cancelled"):
        decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=cancelled, reason="ok"))


def test_an_approval_on_a_run_without_the_rule_is_refused(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    other = b.rule("c/other.yaml", "when x", "do y")
    other_run = b.run([(other, "pass", {"prevented": ["F-1"]})])
    with pytest.raises(PromotionError, match=f"rule {rule} was not replayed in run #{other_run}"):
        decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=other_run, reason="ok"))


# --- approval: waivers, override, gate, wording ------------------------------------------------------

def test_a_waiver_for_a_trajectory_that_is_not_broken_names_the_broken_ones(promotion_store: Store) -> None:
    b, rule, run = _built(promotion_store)
    with pytest.raises(PromotionError, match=r"cannot waive F-1: .* \(broken: S-1, S-2\)"):
        decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="ok",
                                        waivers={"F-1": "not broken"}))


def test_the_message_counts_two_waived_trajectories(promotion_store: Store) -> None:
    b, rule, run = _built(promotion_store)
    outcome = decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="ok",
                                              waivers={"S-1": "log echo", "S-2": "log echo"}))
    assert outcome.promotion is not None and outcome.created
    assert outcome.message == (f"c/r.yaml is now the standing rule {outcome.promotion.standing_id}, approved on "
                               f"run #{run} (2 broken trajectories waived).")


def test_a_reapproval_says_the_evidence_is_the_new_runs(promotion_store: Store) -> None:
    b, rule, run = _built(promotion_store)
    ReviewRepository(b.store).record_view("ana", b.result_id(run, rule), b.pks["S-2"])
    first = decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="ok",
                                            waivers={"S-1": "log echo"}))
    assert first.promotion is not None and first.message.endswith("(1 broken trajectory waived).")
    again = b.run([(rule, "pass", {"prevented": ["F-1"]})])
    outcome = decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=again, reason="still good"))
    assert not outcome.created
    assert outcome.message == (f"{first.promotion.standing_id} re-approved on run #{again}: its evidence snapshot is "
                               "the new run's.")


def test_approving_against_a_failing_verdict_needs_an_override(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    failing = b.run([(rule, "fail", {"prevented": ["F-1"]})])
    with pytest.raises(OverrideRequired) as refused:
        decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=failing, reason="ok"))
    assert refused.value.verdict == "fail"
    assert PromotionRepository(b.store).active_for_rule(rule) is None


def test_an_override_without_a_reason_is_refused(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    failing = b.run([(rule, "fail", {"prevented": ["F-1"]})])
    with pytest.raises(ReasonRequired, match=r"overriding replay's verdict \(fail\) needs a written reason"):
        decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=failing, override_verdict=True))


def test_an_override_with_a_reason_records_the_failed_verdict_gate(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    failing = b.run([(rule, "fail", {"prevented": ["F-1"]})])
    decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=failing, reason="the fail is noise",
                                    override_verdict=True))
    after = _last_event(b.store, rule, "approve").after
    assert after["override_verdict"] is True
    assert after["gates"]["verdict"] == {"state": "fail", "verdict": "fail", "reason": "blocked_by_broken"}


def test_a_passing_approval_records_the_verdict_and_agreement_gates(promotion_store: Store) -> None:
    b, rule, run = _built(promotion_store)
    decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="ok",
                                    waivers={"S-1": "log echo", "S-2": "log echo"}))
    gates = _last_event(b.store, rule, "approve").after["gates"]
    assert gates["verdict"] == {"state": "pass", "verdict": "pass", "reason": "pass"}
    assert set(gates["agreement"]) == {"state", "wording"}
    assert "injection" not in gates  # a rule with two halves


def _refused_for_agreement(promotion_store: Store) -> tuple[Any, int, AcknowledgementRequired]:
    """An approval of a rule whose agreement gate failed (3 of 21 judged), without acknowledgement."""
    b, rule, run = _built(promotion_store)
    _judge(b.store, run, 3, 21)
    with pytest.raises(AcknowledgementRequired) as refused:
        decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="ok",
                                        waivers={"S-1": "log echo", "S-2": "log echo"}))
    return b, rule, refused.value


def test_a_failed_agreement_gate_needs_an_acknowledgement_with_its_wording(promotion_store: Store) -> None:
    b, rule, refused = _refused_for_agreement(promotion_store)
    assert refused.wording and refused.wording in str(refused)
    assert PromotionRepository(b.store).active_for_rule(rule) is None


def test_an_acknowledged_gate_is_in_the_audit_event_with_the_reviewer(promotion_store: Store) -> None:
    b, rule, run = _built(promotion_store)
    _judge(b.store, run, 3, 21)
    decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="replay checked by hand",
                                    acknowledge_gate=True, waivers={"S-1": "log echo", "S-2": "log echo"}))
    after = _last_event(b.store, rule, "approve").after
    assert after["acknowledgement"] == f"ana acknowledged: {after['gates']['agreement']['wording']}"
    assert after["gates"]["agreement"]["state"] == "fail"


# --- retire and supersede ------------------------------------------------------------------------------

def _approval(store: Store) -> tuple[Builder, int, int, Any]:
    """The built rule approved by ana ("ok", both broken successes waived): its outcome."""
    b, rule, run = _built(store)
    outcome = decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="ok",
                                              waivers={"S-1": "log echo", "S-2": "log echo"}))
    assert outcome.promotion is not None
    return b, rule, run, outcome


def _approved(store: Store) -> tuple[Builder, int, str]:
    b, rule, _run, outcome = _approval(store)
    return b, rule, outcome.promotion.standing_id


def test_a_retire_by_rule_id_finds_its_active_standing_rule(promotion_store: Store) -> None:
    b, rule, standing = _approved(promotion_store)
    outcome = decide(b.store, DecisionRequest("retire", "ana", rule_id=rule, reason="obsolete"))
    assert (outcome.action, outcome.rule_id, outcome.message) == ("retire", rule, f"{standing} retired.")
    assert outcome.decision is None and outcome.promotion is not None and outcome.promotion.status == "retired"


def test_a_retire_names_neither_a_standing_rule_nor_a_rule_is_refused(promotion_store: Store) -> None:
    with pytest.raises(ValueError, match="retire needs a standing rule id or a rule id"):
        decide(promotion_store, DecisionRequest("retire", "ana", reason="obsolete"))


def test_a_retire_of_a_rule_without_a_standing_rule_is_refused(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    with pytest.raises(PromotionError, match=f"rule {rule} is not an active standing rule; nothing to retire"):
        decide(b.store, DecisionRequest("retire", "ana", rule_id=rule, reason="obsolete"))


def test_a_supersede_needs_the_successor(promotion_store: Store) -> None:
    b, _rule, standing = _approved(promotion_store)
    with pytest.raises(ValueError, match="supersede needs the successor's standing id"):
        decide(b.store, DecisionRequest("supersede", "ana", standing_id=standing, reason="replaced"))


def _approved_successor(b: Any) -> Any:
    """A second rule, replayed and approved: what a supersede names as the successor."""
    other = b.rule("c/better.yaml", "when the push is rejected twice", "pull and rebase")
    run = b.run([(other, "pass", {"prevented": ["F-1"]})])
    successor = decide(b.store, DecisionRequest("approve", "ana", rule_id=other, run_id=run, reason="better"))
    assert successor.promotion is not None
    return successor


def test_a_supersede_says_by_what(promotion_store: Store) -> None:
    b, rule, standing = _approved(promotion_store)
    successor = _approved_successor(b)
    outcome = decide(b.store, DecisionRequest("supersede", "ana", standing_id=standing,
                                              successor=successor.promotion.standing_id, reason="replaced"))
    assert outcome.message == f"{standing} superseded by {successor.promotion.standing_id}."
    assert outcome.rule_id == rule


def test_a_rule_approved_here_cannot_be_rejected_while_it_stands(promotion_store: Store) -> None:
    b, rule, standing = _approved(promotion_store)
    with pytest.raises(PromotionError, match=f"c/r.yaml is the active standing rule {standing}: it cannot be rejected"):
        decide(b.store, DecisionRequest("reject", "ana", rule_id=rule, reason="changed my mind"))


def test_a_retired_imported_standing_rule_may_be_rejected(promotion_store: Store) -> None:
    _store_with_rules(promotion_store)
    imported = next(r.id for r in RuleRepository(promotion_store).list_rules() if r.rule_ref == "R-007")
    decide(promotion_store, DecisionRequest("retire", "ana", rule_id=imported, reason="obsolete"))
    outcome = decide(promotion_store, DecisionRequest("reject", "ana", rule_id=imported, reason="not useful"))
    assert outcome.decision is not None and outcome.decision.action == "reject"


def test_a_reject_citing_a_run_keeps_that_results_verdict_in_its_evidence(promotion_store: Store) -> None:
    b, rule, run = _built(promotion_store)
    decide(b.store, DecisionRequest("reject", "ana", rule_id=rule, run_id=run, reason="breaks S-1"))
    assert _last_event(b.store, rule, "reject").after["evidence"] == {
        "run_id": run, "result_id": b.result_id(run, rule), "verdict": "pass", "reason": "pass",
        "run_status": "complete"}


def test_a_retire_of_an_unknown_standing_rule_is_refused_by_name(promotion_store: Store) -> None:
    with pytest.raises(PromotionError, match="R-999"):
        decide(promotion_store, DecisionRequest("retire", "ana", standing_id="R-999", reason="obsolete"))


def test_an_imported_standing_rule_is_retired_by_its_standing_id(promotion_store: Store) -> None:
    _store_with_rules(promotion_store)
    outcome = decide(promotion_store, DecisionRequest("retire", "ana", standing_id="R-007", reason="obsolete"))
    assert (outcome.message, outcome.promotion.status if outcome.promotion else None) == (
        "R-007 retired.", "retired")


def test_an_approvals_provenance_names_the_rule_run_and_reviewer(promotion_store: Store) -> None:
    b, rule, run, outcome = _approval(promotion_store)
    prov = outcome.promotion.provenance
    assert set(prov) == {
        "source_trajectory", "rule_origin", "rule_kind", "rule_version", "extract_timestamp", "replay_run_id",
        "replay_result_id", "run_config_hash", "corpus_hash", "evidence_counts", "precision", "recall", "reviewer",
        "reason", "approved_at"}
    assert (prov["rule_origin"], prov["rule_kind"], prov["rule_version"]) == ("c/r.yaml", "candidate", 1)
    assert (prov["replay_run_id"], prov["replay_result_id"]) == (run, b.result_id(run, rule))
    assert (prov["precision"], prov["recall"]) == (pytest.approx(6 / 8), 0.5)  # 6 prevented, 2 broken


SENTENCE = "when git push fails with non-fast-forward, pull --rebase before pushing"


def test_an_unsplit_one_sentence_approval_records_the_injection_gate(promotion_store: Store) -> None:
    b = Builder(promotion_store)
    b.trajectories("F-1", "F-2")
    rule = b.rule("expected_rule:F-1", SENTENCE, SENTENCE, kind="expected_rule")
    run = b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]})])
    decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="reviewed",
                                    acknowledge_no_task=True))
    wording = "trigger and directive are one sentence; it fires at injection on no task"
    after = _last_event(b.store, rule, "approve").after
    assert after["gates"]["injection"] == {
        "state": "fail", "wording": wording, "fired": 0,
        "proposal": {"trigger": "git push fails with non-fast-forward", "directive": "pull --rebase before pushing"}}
    assert after["acknowledgement"] == f"ana acknowledged: {wording}"


def test_a_decision_without_a_reviewer_is_refused_and_writes_nothing(promotion_store: Store) -> None:
    b, rule, _run = _built(promotion_store)
    with pytest.raises(ValueError, match=r"a decision \(defer\) needs a reviewer"):
        decide(b.store, DecisionRequest("defer", "   ", rule_id=rule))
    assert ReviewRepository(b.store).current(rule) is None


def test_a_retire_by_standing_id_acts_on_that_promotion_even_if_an_import_shares_its_id(
    promotion_store: Store,
) -> None:
    # An imported standing rule whose reference collides with a promotion made here must not be
    # adopted (under a fresh id) and retired in its place.
    b, rule, standing = _approved(promotion_store)
    imported = b.rule("rules/clash.yaml", "when tests flake", "rerun once", kind="standing", rule_ref=standing)
    outcome = decide(b.store, DecisionRequest("retire", "ana", standing_id=standing, reason="obsolete"))
    assert (outcome.rule_id, outcome.message) == (rule, f"{standing} retired.")
    assert PromotionRepository(b.store).active_for_rule(imported) is None  # not adopted


# --- the refusals' words (every surface shows str(error)) -----------------------------------------

def test_an_override_refusal_says_its_message_and_keeps_the_verdict() -> None:
    error = OverrideRequired("approval refused: replay says fail", "fail")
    assert (str(error), error.verdict) == ("approval refused: replay says fail", "fail")


def test_a_split_offer_says_its_message_and_keeps_the_proposal() -> None:
    from core.decisions.service import SplitOffered

    error = SplitOffered("approval refused: one sentence", "when X / do Y", 0)  # as decide() raises it
    assert (str(error), error.proposal, error.fired) == ("approval refused: one sentence", "when X / do Y", 0)


def test_an_acknowledgement_refusal_says_its_message_and_keeps_the_wording(promotion_store: Store) -> None:
    _b, _rule, refused = _refused_for_agreement(promotion_store)
    assert str(refused) == (f"approval refused: {refused.wording}; approving needs your acknowledgement "
                            "that replay alone is not trusted here")


# --- what an approval stores and hands back ------------------------------------------------------------

def test_an_approvals_evidence_snapshot_names_the_reviewer_and_the_reason(promotion_store: Store) -> None:
    _b, _rule, _run, outcome = _approval(promotion_store)
    evidence = outcome.promotion.evidence
    assert (evidence["reviewer"], evidence["approval_reason"]) == ("ana", "ok")


def test_an_approval_outcome_names_the_action_and_the_rule(promotion_store: Store) -> None:
    b, rule, run = _built(promotion_store)
    outcome = decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="ok",
                                              waivers={"S-1": "log echo", "S-2": "log echo"}))
    assert (outcome.action, outcome.rule_id) == ("approve", rule)


def test_a_waiver_with_an_empty_reason_is_refused_and_writes_nothing(promotion_store: Store) -> None:
    b, rule, run = _built(promotion_store)
    with pytest.raises(ReasonRequired, match=r"a waiver needs a reason \(S-1\)"):
        decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="ok",
                                        waivers={"S-1": "", "S-2": "log echo"}))
    assert PromotionRepository(b.store).active_for_rule(rule) is None
    assert ReviewRepository(b.store).current(rule) is None


def test_a_waiver_reason_with_a_control_character_is_refused_by_its_name(promotion_store: Store) -> None:
    # A pasted escape sequence would reach the audit log and every team file: refused, naming the waiver.
    from core.domain.names import BadText

    b, rule, run = _built(promotion_store)
    with pytest.raises(BadText, match="waiver reason for 'S-1'"):
        decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="ok",
                                        waivers={"S-1": "log \x1b[31mecho", "S-2": "log echo"}))
    assert PromotionRepository(b.store).active_for_rule(rule) is None


def test_a_reject_citing_an_older_run_records_the_rule_version_that_run_replayed(promotion_store: Store) -> None:
    from core.store.rule_repo import RuleText

    b, rule, run = _built(promotion_store)
    replayed = RuleRepository(b.store).get(rule).latest.id  # type: ignore[union-attr]
    RuleRepository(b.store).add_version(rule, RuleText("when the push is rejected twice", "pull first"), "bo")
    decide(b.store, DecisionRequest("reject", "ana", rule_id=rule, run_id=run, reason="breaks S-1"))
    decision = ReviewRepository(b.store).current(rule)
    assert decision is not None and decision.rule_version_id == replayed


def test_an_imported_rule_its_rule_store_lists_as_retired_may_be_rejected(promotion_store: Store) -> None:
    # Retired before it was imported: history, not a standing rule, so nothing stands in the way.
    b = Builder(promotion_store)
    imported = b.rule("rules/R-008.yaml", "when tests flake", "rerun once", kind="standing", rule_ref="R-008",
                      status="retired")
    outcome = decide(b.store, DecisionRequest("reject", "ana", rule_id=imported, reason="not useful"))
    assert outcome.decision is not None and outcome.decision.action == "reject"


def test_a_retire_outcome_creates_no_standing_rule(promotion_store: Store) -> None:
    b, rule, _standing = _approved(promotion_store)
    outcome = decide(b.store, DecisionRequest("retire", "ana", rule_id=rule, reason="obsolete"))
    assert outcome.created is False


def test_a_supersede_by_a_rule_standing_here_adopts_no_import_that_shares_its_id(promotion_store: Store) -> None:
    # As for a retire: the successor already stands here, so an imported rule whose reference
    # collides with its id must not be adopted (under a fresh id) on the way.
    b, _rule, standing = _approved(promotion_store)
    successor = _approved_successor(b)
    clash = b.rule("rules/clash.yaml", "when tests flake", "rerun once", kind="standing",
                   rule_ref=successor.promotion.standing_id)
    decide(b.store, DecisionRequest("supersede", "ana", standing_id=standing,
                                    successor=successor.promotion.standing_id, reason="replaced"))
    assert PromotionRepository(b.store).active_for_rule(clash) is None  # not adopted


def test_a_supersede_by_an_imported_standing_rule_adopts_it_first(promotion_store: Store) -> None:
    b, _rule, standing = _approved(promotion_store)
    imported = b.rule("rules/R-007.yaml", "when tests flake", "rerun once", kind="standing", rule_ref="R-007")
    outcome = decide(b.store, DecisionRequest("supersede", "ana", standing_id=standing, successor="R-007",
                                              reason="the imported rule covers it"))
    assert outcome.message == f"{standing} superseded by R-007."
    adopted = PromotionRepository(b.store).active_for_rule(imported)
    assert adopted is not None and adopted.standing_id == "R-007"


# --- one-sentence rules: the injection gate ------------------------------------------------------------

def _one_sentence_rule(store: Store, tasks: tuple[str, ...] = ()) -> tuple[Builder, int, int]:
    """A one-sentence rule (an ``expected_rule`` copy) passing on a complete run; ``tasks``: more
    trajectories with these task texts, which injection may fire the rule on."""
    b = Builder(store)
    b.trajectories(*FAILS)
    rows = [dict(corpus_id=b.corpus_id, line=100 + n, end_line=100 + n, trajectory_id=f"T-{n}", success=False,
                 task=task, raw_text="{}", record_json="{}", content_hash=f"T-{n}") for n, task in enumerate(tasks)]
    if rows:
        b.corpora.apply_file_changes(b.file_id, rows, [], [])
        b.pks.update({t.trajectory_id: t.id for t in b.corpora.list_trajectories(limit=10_000)})
    rule = b.rule("expected_rule:F-1", SENTENCE, SENTENCE, kind="expected_rule")
    return b, rule, b.run([(rule, "pass", {"prevented": list(FAILS)})])


def test_a_one_sentence_rule_that_fires_on_a_task_is_a_warning_not_a_failure(promotion_store: Store) -> None:
    b, rule, run = _one_sentence_rule(promotion_store, tasks=(f"Task: {SENTENCE}.",))
    decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="reviewed",
                                    acknowledge_no_task=True))
    injection = _last_event(b.store, rule, "approve").after["gates"]["injection"]
    assert (injection["state"], injection["fired"]) == ("warn", 1)
    assert injection["wording"] == "trigger and directive are one sentence; it fires at injection on 1 task(s)"


def test_two_acknowledgements_are_recorded_one_after_the_other(promotion_store: Store) -> None:
    b, rule, run = _one_sentence_rule(promotion_store)
    _judge(b.store, run, 1, 21)  # the blind agreement gate fails
    decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="checked by hand",
                                    acknowledge_gate=True, acknowledge_no_task=True))
    after = _last_event(b.store, rule, "approve").after
    assert after["gates"]["agreement"]["state"] == "fail"
    assert after["acknowledgement"] == (
        f"ana acknowledged: {after['gates']['agreement']['wording']}; "
        f"ana acknowledged: {after['gates']['injection']['wording']}")


def test_an_override_on_a_passing_rule_needs_no_reason_there_is_nothing_to_override(promotion_store: Store) -> None:
    b, rule, run = _built(promotion_store)
    outcome = decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, override_verdict=True,
                                              waivers={"S-1": "log echo", "S-2": "log echo"}))
    assert outcome.promotion is not None and outcome.promotion.status == "active"
