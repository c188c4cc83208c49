"""Retire and supersede name the rule version the reviewer saw, like decisions: a standing rule
another reviewer retired, superseded or re-approved in between is a conflict naming them, and
nothing is written. Two stores opened on one location stand for two reviewers' windows; every
test runs on SQLite and on PostgreSQL (``store_location``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_promotion_support import Builder

from core.decisions import DecisionRequest, decide
from core.decisions.undo import undo_last
from core.domain.errors import ConcurrentChangeError
from core.promotion import approve
from core.store.engine import Store, open_store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository
from core.store.row_versions import version_after_own_undo
from core.store.rule_repo import RuleRepository


@pytest.fixture()
def two_windows(store_location: Path | str) -> Iterator[tuple[Store, Store]]:
    ana, bo = open_store(store_location), open_store(store_location)
    yield ana, bo
    ana.close()
    bo.close()


@pytest.fixture()
def standing(two_windows: tuple[Store, Store]) -> tuple[int, int, str, str]:
    """Two approved rules: (old rule id, run id, its standing id, the other standing id)."""
    ana, _bo = two_windows
    b = Builder(ana)
    b.trajectories("F-1")
    old = b.rule("c/a.yaml", "old trigger words", "old directive")
    new = b.rule("c/b.yaml", "new trigger words", "new directive")
    run = b.run([(old, "pass", {"prevented": ["F-1"]}), (new, "pass", {"prevented": ["F-1"]})])
    first = approve(ana, old, run, "ana", "ok").promotion.standing_id
    second = approve(ana, new, run, "ana", "better wording").promotion.standing_id
    return old, run, first, second


def _retire(store: Store, reviewer: str, standing_id: str, seen: int, reason: str = "obsolete") -> None:
    decide(store, DecisionRequest("retire", reviewer, standing_id=standing_id, reason=reason, via="promotion",
                                  expected_version=seen))


def _lifecycle_events(store: Store, standing_id: str) -> list[tuple[str, str]]:
    return [(e.actor, e.action) for e in ReviewRepository(store).audit("promotion", standing_id)
            if e.action in ("retire", "supersede")]


def test_a_second_retire_of_the_same_standing_rule_is_a_conflict_naming_the_first(
    two_windows: tuple[Store, Store], standing: tuple[int, int, str, str],
) -> None:
    ana, bo = two_windows
    rule_id, _run, first, _second = standing
    seen = RuleRepository(bo).row_version(rule_id)  # both windows show the rule at this version
    _retire(ana, "ana", first, seen, "fires on unrelated pushes")
    with pytest.raises(ConcurrentChangeError, match=rf"ana retired {first} \(fires on unrelated pushes\)") as raised:
        _retire(bo, "bo", first, seen, "duplicate")
    assert (raised.value.by, raised.value.found) == ("ana", seen + 1)
    assert _lifecycle_events(bo, first) == [("ana", "retire")]  # bo's retirement was not written
    assert PromotionRepository(bo).get(first).status_reason == "fires on unrelated pushes"  # type: ignore[union-attr]


def test_a_supersede_after_another_reviewer_retired_the_rule_is_a_conflict(
    two_windows: tuple[Store, Store], standing: tuple[int, int, str, str],
) -> None:
    ana, bo = two_windows
    rule_id, _run, first, second = standing
    seen = RuleRepository(bo).row_version(rule_id)
    _retire(ana, "ana", first, seen)
    with pytest.raises(ConcurrentChangeError, match=f"ana retired {first}"):
        decide(bo, DecisionRequest("supersede", "bo", standing_id=first, successor=second, reason="narrower",
                                   expected_version=seen))
    assert PromotionRepository(bo).get(first).superseded_by is None  # type: ignore[union-attr]
    assert _lifecycle_events(bo, first) == [("ana", "retire")]


def test_a_retire_after_another_reviewer_superseded_the_rule_is_a_conflict_naming_the_successor(
    two_windows: tuple[Store, Store], standing: tuple[int, int, str, str],
) -> None:
    ana, bo = two_windows
    rule_id, _run, first, second = standing
    seen = RuleRepository(bo).row_version(rule_id)
    decide(ana, DecisionRequest("supersede", "ana", standing_id=first, successor=second, reason="narrower",
                                expected_version=seen))
    with pytest.raises(ConcurrentChangeError, match=f"ana superseded {first} by {second}"):
        _retire(bo, "bo", first, seen)
    assert _lifecycle_events(bo, first) == [("ana", "supersede")]


def test_a_retire_after_another_reviewer_reapproved_the_rule_is_a_conflict(
    two_windows: tuple[Store, Store], standing: tuple[int, int, str, str],
) -> None:
    ana, bo = two_windows
    rule_id, run, first, _second = standing
    seen = RuleRepository(bo).row_version(rule_id)
    approve(ana, rule_id, run, "ana", "checked again")  # re-approval: same standing id, new evidence
    with pytest.raises(ConcurrentChangeError, match="ana approve"):
        _retire(bo, "bo", first, seen)
    assert PromotionRepository(bo).get(first).status == "active"  # type: ignore[union-attr]
    assert _lifecycle_events(bo, first) == []


def test_a_retire_on_the_version_just_shown_goes_through_and_returns_the_next_version(
    two_windows: tuple[Store, Store], standing: tuple[int, int, str, str],
) -> None:
    ana, bo = two_windows
    rule_id, run, first, _second = standing
    approve(ana, rule_id, run, "ana", "checked again")
    fresh = RuleRepository(bo).row_version(rule_id)  # bo looks again and still chooses to retire
    outcome = decide(bo, DecisionRequest("retire", "bo", standing_id=first, reason="obsolete", expected_version=fresh))
    assert outcome.promotion is not None and outcome.promotion.status == "retired"
    # The version the screen holds next: bo's own following write on the rule is no conflict.
    assert outcome.row_version == fresh + 1 == RuleRepository(ana).row_version(rule_id)
    assert _lifecycle_events(ana, first) == [("bo", "retire")]


def test_undoing_an_approval_still_hands_the_screen_its_own_version(
    two_windows: tuple[Store, Store], standing: tuple[int, int, str, str],
) -> None:
    # The undo retires the standing rule it made in the same transaction: that retirement is
    # the undo's own change, not another reviewer's, so the screen takes the version on.
    ana, _bo = two_windows
    _rule_id, _run, _first, second = standing
    second_rule = PromotionRepository(ana).get(second).rule_id  # type: ignore[union-attr]
    undone = undo_last(ana, "ana")
    assert undone is not None and undone.rule_id == second_rule
    assert PromotionRepository(ana).get(second).status == "retired"  # type: ignore[union-attr]
    assert version_after_own_undo(ana, second_rule, "ana") == RuleRepository(ana).row_version(second_rule)


def test_another_reviewers_supersede_after_an_undo_is_not_taken_on_silently(
    two_windows: tuple[Store, Store], standing: tuple[int, int, str, str],
) -> None:
    ana, bo = two_windows
    rule_id, run, first, second = standing
    approve(ana, rule_id, run, "ana", "again")  # a re-approval; undoing it retires the standing rule
    undo_last(ana, "ana")
    decide(bo, DecisionRequest("supersede", "bo", standing_id=first, successor=second, reason="replaced",
                               expected_version=RuleRepository(bo).row_version(rule_id)))
    assert version_after_own_undo(ana, rule_id, "ana") is None  # bo's change must show as a conflict
