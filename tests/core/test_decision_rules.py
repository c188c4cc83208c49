"""Issue 24 item 14: one decision rule set (core.decisions.rules, docs/promotion.md) for the Review
tab, the Promotion tab and the CLI: an imported active standing rule cannot be rejected or
deferred; which decisions need a reason, acknowledging a failed gate included."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_promotion_every_rule import _judge, _store_with_rules
from test_promotion_support import promotion_store  # noqa: F401  (fixture)

from core.cli import main
from core.decisions import DecisionRequest, PromotionError, ReasonRequired, decide
from core.decisions.rules import reason_needed
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import RuleRepository


def _imported_standing(store: Store) -> int:
    return next(r.id for r in RuleRepository(store).list_rules() if r.rule_ref == "R-007")


@pytest.mark.parametrize("action", ["reject", "defer"])
@pytest.mark.parametrize("via", ["review", "promotion", "cli"])
def test_an_imported_active_standing_rule_cannot_be_rejected_or_deferred(
    promotion_store: Store, action: str, via: str,
) -> None:
    _store_with_rules(promotion_store)
    standing = _imported_standing(promotion_store)
    refusal = r"imported active standing rule R-007: it cannot be .*; retire or supersede it instead"
    with pytest.raises(PromotionError, match=refusal):
        decide(promotion_store, DecisionRequest(action, "ana", rule_id=standing, reason="not useful", via=via))
    assert ReviewRepository(promotion_store).current_all().get(standing) is None  # nothing written


def test_an_imported_standing_rule_can_still_be_retired(promotion_store: Store) -> None:
    _store_with_rules(promotion_store)
    decide(promotion_store, DecisionRequest("retire", "ana", rule_id=_imported_standing(promotion_store),
                                            reason="obsolete", via="review"))
    assert PromotionRepository(promotion_store).get("R-007").status == "retired"  # type: ignore[union-attr]


def test_acknowledging_a_failed_gate_needs_a_reason(promotion_store: Store) -> None:
    _b, rule, run = _store_with_rules(promotion_store)
    _judge(promotion_store, run, 3, 21)
    with pytest.raises(ReasonRequired, match="blind agreement gate failed needs a written reason"):
        decide(promotion_store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, acknowledge_gate=True,
                                                via="promotion"))
    assert PromotionRepository(promotion_store).active_for_rule(rule) is None


def test_approving_a_passing_rule_and_deferring_need_no_reason(promotion_store: Store) -> None:
    _b, rule, run = _store_with_rules(promotion_store)
    decide(promotion_store, DecisionRequest("defer", "ana", rule_id=rule, via="promotion"))
    decide(promotion_store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, via="promotion"))
    assert PromotionRepository(promotion_store).active_for_rule(rule) is not None


def test_the_rule_set_names_every_decision_that_needs_a_reason() -> None:
    assert {a for a in ("approve", "reject", "defer", "retire", "supersede") if reason_needed(a)} == {
        "reject", "retire", "supersede"}
    assert reason_needed("approve", override_verdict=True) and reason_needed("approve", acknowledge_gate=True)


def _cli(capsys: pytest.CaptureFixture[str], store: Store, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["decide", *argv, "--store", str(store.path), "--reviewer", "ana"])
    return code, capsys.readouterr().err


def test_the_cli_refuses_to_reject_an_imported_standing_rule_in_one_line(
    promotion_store: Store, capsys: pytest.CaptureFixture[str],
) -> None:
    if not isinstance(promotion_store.path, Path):
        pytest.skip("the CLI test opens the store by its file")
    _store_with_rules(promotion_store)
    code, err = _cli(capsys, promotion_store, "reject", "--rule", str(_imported_standing(promotion_store)),
                     "--reason", "not useful")
    assert code == 1
    assert err.strip().count("\n") == 0 and "imported active standing rule R-007" in err and "Traceback" not in err


def test_the_cli_acknowledge_gate_needs_a_reason(promotion_store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    if not isinstance(promotion_store.path, Path):
        pytest.skip("the CLI test opens the store by its file")
    _b, rule, run = _store_with_rules(promotion_store)
    _judge(promotion_store, run, 3, 21)
    code, err = _cli(capsys, promotion_store, "approve", "--rule", str(rule), "--acknowledge-gate")
    assert code == 1 and "needs a written reason" in err
    code, _err = _cli(capsys, promotion_store, "approve", "--rule", str(rule), "--acknowledge-gate",
                      "--reason", "read every trajectory myself")
    assert code == 0 and PromotionRepository(promotion_store).active_for_rule(rule) is not None
