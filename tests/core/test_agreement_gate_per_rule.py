"""The Promotion queue's agreement gate (issue 24 item 6, core side): one state and one summary
for the column and the detail; each rule says whether its own items were judged or it carries
the run's pooled gate."""

from __future__ import annotations

from test_labels_support import labels_store, small_run  # noqa: F401  (fixture)

from core.agreement.session import commit_judgement, create_session
from core.promotion.gates import RULE_ITEMS, RUN_POOLED, agreement_gate
from core.promotion.queue import promotion_queue
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store
from core.store.replay_repo import ReplayRepository


def _judge_three_items(store: Store, run_id: int) -> None:
    """Three firing/verdict items judged as replay answered: 3/3 agree, Wilson low 0.44 spans 0.80."""
    session = create_session(store, run_id, "lead", size=11, seed=3)
    items = [i for i in AgreementRepository(store).items_with_answers(session.id) if i.kind in ("firing", "verdict")]
    for item in items[:3]:
        commit_judgement(store, item.id, "ana", item.replay_answer)


def test_a_measured_gate_that_spans_the_threshold_is_a_warning_not_not_measured(labels_store: Store) -> None:
    run_id = small_run(labels_store)
    _judge_three_items(labels_store, run_id)
    gate = agreement_gate(labels_store, run_id)
    agreement = gate.data["blind"]["agreement"]
    assert agreement["value"] is not None and agreement["ci_low"] < 0.8 <= agreement["ci_high"]
    assert gate.state == "warn"
    interval = f"{agreement['value']:.2f} [{agreement['ci_low']:.2f}–{agreement['ci_high']:.2f}]"
    assert gate.data["summary"] == f"{interval} spans 0.80" and interval in gate.detail


def test_an_unjudged_run_is_not_measured_in_the_column_and_the_detail(labels_store: Store) -> None:
    run_id = small_run(labels_store)
    gate = agreement_gate(labels_store, run_id)
    assert gate.state == "not_measured" and gate.data["summary"] == "— not measured"
    assert "no blind agreement measured" in gate.detail


def test_each_rule_says_whether_its_own_items_were_judged(labels_store: Store) -> None:
    run_id = small_run(labels_store)
    judged_rules = set(AgreementRepository(labels_store).judgements_per_rule([]))  # none before judging
    assert judged_rules == set()
    session = create_session(labels_store, run_id, "lead", size=11, seed=3)
    rule_of_result = {r.id: r.rule_id for r in ReplayRepository(labels_store).results(run_id)}
    items = [i for i in AgreementRepository(labels_store).items_with_answers(session.id)
             if i.kind in ("firing", "verdict")]
    chosen = rule_of_result[items[0].result_id]  # type: ignore[index]
    for item in items:
        if rule_of_result.get(item.result_id or -1) == chosen:
            commit_judgement(labels_store, item.id, "ana", item.replay_answer)
    gates = {item.rule_id: item.gate("agreement") for item in promotion_queue(labels_store).items if item.run_id}
    assert gates[chosen].data["scope"] == RULE_ITEMS and gates[chosen].data["rule_judgements"] > 0
    others = [rule_id for rule_id in gates if rule_id != chosen]
    assert others
    for rule_id in others:
        assert gates[rule_id].data["scope"] == RUN_POOLED and gates[rule_id].data["rule_judgements"] == 0
        assert "the run's pooled gate: none of this rule's items was judged" in gates[rule_id].detail
        assert gates[rule_id].state == gates[chosen].state  # the same pooled numbers
