"""Issue 17: every rule in the store is in the queue, each gate state reads as what it means,
approving under a failed gate needs (and records) the reviewer's acknowledgement, and imported
standing rules can be retired."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from test_promotion_support import Builder, promotion_store  # noqa: F401  (fixture)

from core.agreement.session import commit_judgement, create_session
from core.decisions import AcknowledgementRequired, DecisionRequest, decide
from core.promotion.queue import promotion_queue
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository

FAILS = [f"F-{i}" for i in range(1, 21)]


def _store_with_rules(store: Store) -> tuple[Builder, int, int]:
    b = Builder(store)
    b.trajectories(*FAILS)
    rule = b.rule("c/r.yaml", "when the push is rejected", "pull first")
    b.rule("c/expected.jsonl:3", "when the build fails", "read the log", kind="expected_rule")
    b.rule("rules/R-007.yaml", "when tests flake", "rerun once", kind="standing", rule_ref="R-007")
    b.rule("user/new.yaml", "when a deploy hangs", "check the probe", kind="user")  # never replayed
    run = b.run([(rule, "pass", {"prevented": FAILS})])
    return b, rule, run


def _judge(store: Store, run: int, agree: int, size: int) -> None:
    """Commit ``size`` blind judgements, the first ``agree`` of them agreeing with replay."""
    session = create_session(store, run, "lead", size=size, seed=1)
    for n, item in enumerate(AgreementRepository(store).items_with_answers(session.id)):
        wrong = "inconclusive" if item.kind == "verdict" else "does_not_fire"
        commit_judgement(store, item.id, "ana", item.replay_answer if n < agree else wrong)


def test_the_queue_lists_every_rule_in_the_store(promotion_store: Store) -> None:
    _store_with_rules(promotion_store)
    with promotion_store.session() as session:
        rules = session.execute(text("SELECT count(*) FROM rule")).scalar_one()
    queue = promotion_queue(promotion_store)
    assert len(queue.items) == rules == 4
    by_origin = {i.origin: i for i in queue.items}
    assert by_origin["user/new.yaml"].wording == "not replayed: replay it to measure its gates"
    imported = by_origin["rules/R-007.yaml"]
    assert imported.imported and imported.standing_id == "R-007" and imported.promotion_status == "active"


@pytest.mark.parametrize(("agree", "size", "state", "wording"), [
    (None, 0, "not_measured", "human approval required: no blind agreement measured for run #1"),
    (21, 21, "pass", "ready: replay trusted: blind agreement 1.00 [0.85–1.00] ≥ 0.80"),
    (3, 21, "fail", "human approval required: blind agreement 0.14 [0.05–0.35] < 0.80"),
    (4, 5, "warn", "human approval required: blind agreement 0.80 [0.38–0.96] spans 0.80; judge more items"),
])
def test_each_agreement_gate_state_reads_as_what_it_means(
    promotion_store: Store, agree: int | None, size: int, state: str, wording: str,
) -> None:
    _b, rule, run = _store_with_rules(promotion_store)
    if agree is not None:
        _judge(promotion_store, run, agree, size)
    item = next(i for i in promotion_queue(promotion_store).items if i.rule_id == rule)
    assert item.gate("agreement").state == state
    assert item.wording.startswith(wording)


def test_approving_under_a_failed_gate_needs_and_records_the_acknowledgement(promotion_store: Store) -> None:
    _b, rule, run = _store_with_rules(promotion_store)
    _judge(promotion_store, run, 3, 21)
    with pytest.raises(AcknowledgementRequired, match="human approval required: blind agreement 0.14"):
        decide(promotion_store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, via="cli"))
    assert PromotionRepository(promotion_store).active_for_rule(rule) is None
    decide(promotion_store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, acknowledge_gate=True,
                                            reason="read every trajectory myself", via="cli"))
    [event] = [e for e in ReviewRepository(promotion_store).audit("rule", rule) if e.action == "approve"]
    assert event.after["acknowledgement"].startswith("ana acknowledged: human approval required")
    assert event.after["gates"]["agreement"]["state"] == "fail"


def test_an_imported_standing_rule_can_be_retired_and_superseded(promotion_store: Store) -> None:
    b, rule, run = _store_with_rules(promotion_store)
    other = b.rule("rules/R-008.yaml", "when caches go stale", "clear them", kind="standing", rule_ref="R-008")
    decide(promotion_store, DecisionRequest("supersede", "ana", standing_id="R-007", successor="R-008",
                                            reason="R-008 covers it"))
    decide(promotion_store, DecisionRequest("retire", "ana", rule_id=other, reason="obsolete"))
    repo = PromotionRepository(promotion_store)
    assert repo.get("R-007").status == "superseded" and repo.get("R-008").status == "retired"  # type: ignore[union-attr]
    actions = [e.action for e in ReviewRepository(promotion_store).audit("promotion")]
    assert actions == ["adopt_imported", "adopt_imported", "supersede", "retire"]
    assert len(promotion_queue(promotion_store).items) == 5
