"""The review workspace's decision path: approve promotes, undo retires what it promoted."""

from __future__ import annotations

from pathlib import Path

import pytest

from cauterule_gui import review_actions
from core.importing import import_paths
from core.replay.profiles import REFERENCE_0_3_1
from core.replaying import run_replay
from core.store.engine import Store, open_store
from core.store.promotion_repo import PromotionRepository
from core.store.replay_repo import ReplayRepository
from core.store.review_repo import ApprovalRefused, ReviewRepository

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    opened = open_store(tmp_path / "s.sqlite")
    import_paths(opened, [DEMO])
    run_replay(opened, REFERENCE_0_3_1)
    yield opened
    opened.close()


def _target(store: Store, origin_end: str) -> review_actions.DecisionTarget:
    run = ReplayRepository(store).latest_complete_run()
    assert run is not None
    result = next(r for r in ReplayRepository(store).results(run.id) if r.origin.endswith(origin_end))
    return review_actions.DecisionTarget(
        rule_id=result.rule_id, rule_version_id=result.rule_version_id, run_id=run.id, result_id=result.id,
        run_status=run.status, evidence={"verdict": result.verdict, "reason": result.reason},
    )


def test_approving_a_passing_rule_makes_a_standing_rule(store: Store) -> None:
    target = _target(store, "C-05-k8s-pod-oomkilled.yaml")
    review_actions.approve(ReviewRepository(store), target, "ana")
    standing = PromotionRepository(store).active_for_rule(target.rule_id)
    assert standing is not None and standing.status == "active"


def test_undoing_the_approval_retires_its_standing_rule(store: Store) -> None:
    reviews = ReviewRepository(store)
    target = _target(store, "C-05-k8s-pod-oomkilled.yaml")
    review_actions.approve(reviews, target, "ana")
    review_actions.undo_last(reviews, "ana")
    assert PromotionRepository(store).active_for_rule(target.rule_id) is None
    assert reviews.current(target.rule_id) is None


def test_approving_against_a_failing_verdict_needs_a_reason(store: Store) -> None:
    target = _target(store, "C-04-api-credentials-refused.yaml")
    with pytest.raises(ApprovalRefused, match="needs a written reason"):
        review_actions.approve(ReviewRepository(store), target, "ana")
