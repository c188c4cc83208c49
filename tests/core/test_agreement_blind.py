"""Blind by construction: replay's answer is hidden until the reviewer commits, and commits are final."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import text
from test_labels_support import labels_store, small_run  # noqa: F401  (fixture)

from core.agreement.session import commit_judgement, create_session, next_item, progress, reveal
from core.domain.errors import AlreadyCommitted, NotYetCommitted, RunNotUsable
from core.store.engine import Store


def test_the_item_carries_no_replay_answer_until_commit(labels_store: Store) -> None:
    run_id = small_run(labels_store)
    session = create_session(labels_store, run_id, "lead", size=11, seed=1)
    assert session.blind and session.size == 11
    item = next_item(labels_store, session.id, "ana")
    assert item is not None
    fields = {f.name for f in dataclasses.fields(item)}
    assert "stratum" not in fields and item.replay_answer is None
    with pytest.raises(NotYetCommitted):
        reveal(labels_store, item.item_id, "ana")
    answer = item.choices[0]
    revealed = commit_judgement(labels_store, item.item_id, "ana", answer)
    assert revealed.answer == answer and revealed.replay_answer in item.choices
    assert revealed.agrees == (answer == revealed.replay_answer)
    assert revealed.progress.committed == 1 and revealed.progress.size == 11
    assert reveal(labels_store, item.item_id, "ana").replay_answer == revealed.replay_answer
    # Another reviewer still sees it blind.
    assert next_item(labels_store, session.id, "bo").item_id == item.item_id  # type: ignore[union-attr]
    with pytest.raises(NotYetCommitted):
        reveal(labels_store, item.item_id, "bo")


def test_a_judgement_is_final(labels_store: Store) -> None:
    session = create_session(labels_store, small_run(labels_store), "lead", size=11, seed=1)
    item = next_item(labels_store, session.id, "ana")
    assert item is not None
    commit_judgement(labels_store, item.item_id, "ana", "cant_tell")
    with pytest.raises(AlreadyCommitted):
        commit_judgement(labels_store, item.item_id, "ana", item.choices[0])
    with pytest.raises(ValueError):
        commit_judgement(labels_store, item.item_id, "bo", "maybe")
    for statement in ("UPDATE agreement_judgement SET answer = 'pass'", "DELETE FROM agreement_judgement"):
        with pytest.raises(Exception, match="append-only"):
            with labels_store.session() as db:
                db.execute(text(statement))
    assert progress(labels_store, session.id, "ana").committed == 1
    assert next_item(labels_store, session.id, "ana").ordinal == 2  # type: ignore[union-attr]


def test_verdict_items_show_what_fired_without_the_buckets(labels_store: Store) -> None:
    session = create_session(labels_store, small_run(labels_store), "lead", size=11, seed=1)
    seen = {}
    while (item := next_item(labels_store, session.id, "ana")) is not None:
        if item.kind == "verdict":
            seen[item.rule_origin] = item
            assert item.choices == ("pass", "fail", "inconclusive", "cant_tell")
        else:
            assert item.trajectory_pk is not None and "does_not_fire" in item.choices
        commit_judgement(labels_store, item.item_id, "ana", "cant_tell")
    assert len(seen["R1"].evidence_pks) == 3 and len(seen["R2"].evidence_pks) == 3
    assert seen["R3"].evidence_pks == ()  # misses are not shown: that would be replay's own list


def test_an_unblinded_session_says_so(labels_store: Store) -> None:
    session = create_session(labels_store, small_run(labels_store), "lead", size=5, seed=1, blind=False)
    item = next_item(labels_store, session.id, "ana")
    assert item is not None and item.replay_answer is not None


def test_an_incomplete_run_cannot_be_sampled(labels_store: Store) -> None:
    with pytest.raises(RunNotUsable):
        create_session(labels_store, small_run(labels_store, status="cancelled"), "lead", size=5, seed=1)
