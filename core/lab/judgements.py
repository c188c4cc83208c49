"""Reviewers' committed firing and scope answers, read from the store's agreement sessions."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text as sql

from core.lab.truths import ReviewerJudgement

# Single-question sessions (before firing and scope were split) answered with bucket names.
_FIRING = {"prevents": "prevents", "prevented": "prevents", "breaks": "breaks", "broken": "breaks",
           "near_miss": "near_miss", "does_not_fire": "does_not_fire", "missed": "does_not_fire",
           "no_effect": "does_not_fire", "cant_tell": "cant_tell"}


def reviewer_judgements(store: Any) -> list[ReviewerJudgement]:
    """Every committed judgement on an evidence item whose rule version and trajectory are known
    (the rule key is the version id, as ``core.replaying.load_inputs`` keys rules)."""
    query = sql("""SELECT i.rule_version, i.trajectory_pk, j.answer, j.scope
                   FROM agreement_judgement j JOIN agreement_item i ON i.id = j.item_id
                   WHERE i.rule_version IS NOT NULL AND i.trajectory_pk IS NOT NULL""")
    with store.read_session() as session:
        rows = session.execute(query).all()
    return [ReviewerJudgement(str(version), int(pk), _FIRING[answer], scope)
            for version, pk, answer, scope in rows if answer in _FIRING]
