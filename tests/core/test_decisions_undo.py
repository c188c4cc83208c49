"""Undoing an approval: the undo and the retirement of the standing rule it created are one
write transaction, so they commit together or not at all (on each back end)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event
from test_promotion_support import Builder, promotion_store  # noqa: F401  (fixtures)

import core.decisions.service as decision_service
from core.decisions import DecisionRequest, decide, undo_last
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository


@pytest.fixture()
def approved(promotion_store: Store) -> tuple[Store, int, str]:
    b = Builder(promotion_store)
    b.trajectories("F-1")
    rule = b.rule("c/a.yaml", "git push rejected", "pull first")
    run = b.run([(rule, "pass", {"prevented": ["F-1"]})])
    outcome = decide(b.store, DecisionRequest("approve", "ana", rule_id=rule, run_id=run, reason="ok"))
    assert outcome.promotion is not None
    return b.store, rule, outcome.promotion.standing_id


def _state(store: Store, rule: int, standing: str) -> tuple[Any, ...]:
    review, promotion = ReviewRepository(store), PromotionRepository(store)
    current = review.current(rule)
    found = promotion.get(standing)
    assert found is not None
    return (None if current is None else current.action, found.status, len(review.audit()))


def test_undoing_an_approval_retires_its_standing_rule(approved: tuple[Store, int, str]) -> None:
    store, rule, standing = approved
    undone = undo_last(store, "ana")
    assert undone is not None and undone.action == "approve"
    assert _state(store, rule, standing)[:2] == (None, "retired")


def test_the_undo_and_the_retirement_are_one_write_transaction(approved: tuple[Store, int, str]) -> None:
    store, _rule, _standing = approved
    begins: list[bool] = []  # True: a write transaction

    def on_begin(connection: Any) -> None:
        begins.append(not connection.get_execution_options().get("workbench_read_only", False))

    event.listen(store.engine, "begin", on_begin)
    try:
        undo_last(store, "ana")
    finally:
        event.remove(store.engine, "begin", on_begin)
    assert begins == [True], f"{len(begins)} transactions ({sum(begins)} writes) for one undo"


def test_a_failed_retirement_rolls_the_undo_back(approved: tuple[Store, int, str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    store, rule, standing = approved
    before = _state(store, rule, standing)
    real_retire = decision_service.retire_in

    def retire_then_fail(*args: Any, **kwargs: Any) -> Any:
        real_retire(*args, **kwargs)  # the retirement is written, then the transaction fails
        raise OSError("disk I/O error")

    monkeypatch.setattr(decision_service, "retire_in", retire_then_fail)
    with pytest.raises(OSError, match="disk I/O error"):
        undo_last(store, "ana")
    assert _state(store, rule, standing) == before == ("approve", "active", before[2])
    monkeypatch.undo()
    assert undo_last(store, "ana") is not None  # the approval is still there to undo
    assert _state(store, rule, standing)[:2] == (None, "retired")
