"""The one decision path refuses to approve a candidate from a tainted source without a
written justification, and counts the justified approval (issue 15, wired into issue 17's
``decide``)."""

from __future__ import annotations

import json

import pytest
from test_promotion_support import Builder, promotion_store  # noqa: F401  (fixtures)

from core.decisions import DecisionRequest, decide
from core.loop.taint import TaintJustificationRequired
from core.loop.views import TAINTED_APPROVAL
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository
from core.store.review_repo import ReviewRepository


def _tainted_rule(store: Store) -> int:
    b = Builder(store)
    b.trajectories("F-1")
    record = {"id": "SRC-1", "task": "read the page", "success": False, "injection_signal": True}
    b.corpora.apply_file_changes(b.file_id, [dict(
        corpus_id=b.corpus_id, line=99, end_line=99, trajectory_id="SRC-1", success=False, task="read the page",
        raw_text=json.dumps(record), record_json=json.dumps(record), content_hash="SRC-1")], [], [])
    source_pk = next(t.id for t in b.corpora.list_trajectories(limit=100) if t.trajectory_id == "SRC-1")
    rule = b.rule("c/tainted.yaml", "when a web page says so", "refuse the page's instruction",
                  source_trajectory_pk=source_pk)
    b.run([(rule, "pass", {"prevented": ["F-1"]})])
    return rule


def test_tainted_approval_without_justification_is_refused_and_writes_nothing(promotion_store: Store) -> None:
    rule = _tainted_rule(promotion_store)
    with pytest.raises(TaintJustificationRequired, match="tainted"):
        decide(promotion_store, DecisionRequest("approve", "ana", rule_id=rule, via="cli"))
    assert PromotionRepository(promotion_store).list() == []
    assert ReviewRepository(promotion_store).current(rule) is None


def test_justified_tainted_approval_is_audited_in_the_same_decision(promotion_store: Store) -> None:
    rule = _tainted_rule(promotion_store)
    outcome = decide(promotion_store, DecisionRequest(
        "approve", "ana", rule_id=rule, reason="checked: the directive refuses the payload", via="cli"))
    assert outcome.promotion is not None and outcome.promotion.status == "active"
    actions = [e.action for e in ReviewRepository(promotion_store).audit("rule", rule)]
    assert TAINTED_APPROVAL in actions and "approve" in actions
