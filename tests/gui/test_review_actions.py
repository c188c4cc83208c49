"""The review workspace's requests go to core.decisions (run there by the window's executor):
approve promotes, undo retires what it promoted, and refusals come from the core."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.decisions import OverrideRequired, decide, undo_last
from core.importing import import_paths
from core.replay.profiles import REFERENCE_0_3_1
from core.replaying import run_replay
from core.store.engine import Store, open_store
from core.store.promotion_repo import PromotionRepository
from core.store.replay_repo import ReplayRepository
from core.store.result_repo import ResultRepository
from core.store.review_repo import ReviewRepository
from core.store.workspace_query import WorkspaceFilter, WorkspaceRule, WorkspaceScope

from cauterule_gui import review_actions

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    opened = open_store(tmp_path / "s.sqlite")
    import_paths(opened, [DEMO])
    run_replay(opened, REFERENCE_0_3_1)
    yield opened
    opened.close()


def _row(store: Store, origin_end: str) -> WorkspaceRule:
    run = ReplayRepository(store).latest_complete_run()
    assert run is not None
    rows = ResultRepository(store).list_rules(WorkspaceScope(run.id), WorkspaceFilter(), limit=1000)
    return next(r for r in rows if r.origin.endswith(origin_end))


def test_approving_a_passing_rule_makes_a_standing_rule(store: Store) -> None:
    row = _row(store, "C-05-k8s-pod-oomkilled.yaml")
    decide(store, review_actions.request(row, "approve", "ana"))
    standing = PromotionRepository(store).active_for_rule(row.rule_id)
    assert standing is not None and standing.status == "active"


def test_undoing_the_approval_retires_its_standing_rule(store: Store) -> None:
    row = _row(store, "C-05-k8s-pod-oomkilled.yaml")
    decide(store, review_actions.request(row, "approve", "ana"))
    undo_last(store, "ana")
    assert PromotionRepository(store).active_for_rule(row.rule_id) is None
    assert ReviewRepository(store).current(row.rule_id) is None


def test_approving_against_a_failing_verdict_needs_an_override(store: Store) -> None:
    row = _row(store, "C-04-api-credentials-refused.yaml")
    with pytest.raises(OverrideRequired, match="needs an override with a written reason"):
        decide(store, review_actions.request(row, "approve", "ana"))


def test_first_upper_keeps_the_case_of_ids() -> None:
    assert review_actions.first_upper("approval refused: NM-015-Docker") == "Approval refused: NM-015-Docker"
