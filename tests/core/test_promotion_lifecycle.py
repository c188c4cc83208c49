"""Reject, defer, retire and supersede keep their reasons and are audited."""

from __future__ import annotations

import pytest
from test_promotion_support import Builder, promotion_store  # noqa: F401  (fixtures)

from core.promotion import PromotionError, ReasonRequired, approve, defer, reject, retire, supersede
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository


@pytest.fixture()
def two(promotion_store: Store) -> tuple[Builder, int, int, int]:
    b = Builder(promotion_store)
    b.trajectories("F-1")
    old = b.rule("c/a.yaml", "old trigger words", "old directive")
    new = b.rule("c/b.yaml", "new trigger words", "new directive")
    run = b.run([(old, "pass", {"prevented": ["F-1"]}), (new, "pass", {"prevented": ["F-1"]})])
    return b, old, new, run


def test_reject_needs_a_reason_defer_may_have_one_and_both_keep_it(two: tuple[Builder, int, int, int]) -> None:
    b, old, new, run = two
    with pytest.raises(ReasonRequired):
        reject(b.store, old, "ana", "")
    assert defer(b.store, old, "ana", "   ").reason is None  # deciding later needs no justification
    defer(b.store, old, "ana", "needs a second reviewer", run_id=run)
    reject(b.store, new, "ana", "too vague")
    review = ReviewRepository(b.store)
    assert (review.current(old).action, review.current(old).reason) == ("defer", "needs a second reviewer")  # type: ignore[union-attr]
    assert review.current(new).reason == "too vague"  # type: ignore[union-attr]


def test_retire_is_audited_and_only_for_active_rules(two: tuple[Builder, int, int, int]) -> None:
    b, old, _new, run = two
    standing = approve(b.store, old, run, "ana", "ok").promotion.standing_id
    with pytest.raises(PromotionError, match="retire or supersede it instead"):
        reject(b.store, old, "ana", "changed my mind")
    with pytest.raises(ReasonRequired):
        retire(b.store, standing, "ana", "")
    retired = retire(b.store, standing, "ana", "fires on unrelated pushes")
    assert (retired.status, retired.status_reason) == ("retired", "fires on unrelated pushes")
    with pytest.raises(PromotionError, match="not active"):
        retire(b.store, standing, "ana", "again")
    [event] = ReviewRepository(b.store).audit("promotion", standing)[1:]
    assert event.action == "retire" and event.before["status"] == "active" and event.after["status"] == "retired"


def test_supersede_points_at_an_active_successor_and_is_audited(two: tuple[Builder, int, int, int]) -> None:
    b, old, new, run = two
    r_old = approve(b.store, old, run, "ana", "ok").promotion.standing_id
    r_new = approve(b.store, new, run, "ana", "better wording").promotion.standing_id
    with pytest.raises(PromotionError, match="itself"):
        supersede(b.store, r_old, r_old, "ana", "x")
    with pytest.raises(PromotionError, match="no standing rule"):
        supersede(b.store, r_old, "R-999", "ana", "x")
    done = supersede(b.store, r_old, r_new, "ana", "narrower trigger")
    assert (done.status, done.superseded_by, done.status_reason) == ("superseded", r_new, "narrower trigger")
    with pytest.raises(PromotionError, match="already superseded"):
        supersede(b.store, r_old, r_new, "ana", "again")
    retire(b.store, r_new, "ana", "obsolete")
    assert PromotionRepository(b.store).get(r_old).status == "superseded"  # type: ignore[union-attr]
    events = [e.action for e in ReviewRepository(b.store).audit("promotion", r_old)]
    assert events == ["promote", "supersede"]
