"""Saving a label is autosave-friendly and keeps an append-only history (who, when, before, after)."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from test_labels_support import Builder, labels_store  # noqa: F401  (fixture)

from core.domain.labels import LabelText
from core.labels.service import save_label
from core.store.engine import Store
from core.store.label_repo import LabelRepository
from core.store.review_repo import ReviewRepository


def test_same_text_twice_adds_no_history_and_a_change_adds_before_and_after(labels_store: Store) -> None:
    (pk,) = Builder(labels_store).trajectories("T1")
    repo = LabelRepository(labels_store)
    first = save_label(labels_store, pk, "ana", LabelText("git push is rejected", "pull --rebase, then push"))
    assert first.changed
    # Autosave fires again with the same words (even re-spaced): nothing is written.
    again = save_label(labels_store, pk, "ana", LabelText("  git push is  rejected ", "pull --rebase, then push"))
    assert not again.changed
    assert len(repo.history(first.label.id)) == 1
    save_label(labels_store, pk, "ana", LabelText("git push is rejected as non-fast-forward", "pull --rebase, then push"),
              reason="more specific")
    history = repo.history(first.label.id)
    assert [h.action for h in history] == ["save", "save"]
    assert [h.actor for h in history] == ["ana", "ana"]
    assert history[0].before is None
    assert history[1].before == LabelText("git push is rejected", "pull --rebase, then push")
    assert history[1].after.trigger == "git push is rejected as non-fast-forward"
    assert history[1].reason == "more specific" and history[1].at >= history[0].at
    audit = [e.action for e in ReviewRepository(labels_store).audit("trajectory", pk)]
    assert audit == ["label_save", "label_save"]


def test_a_note_or_a_variant_is_part_of_the_label(labels_store: Store) -> None:
    (pk,) = Builder(labels_store).trajectories("T1")
    save_label(labels_store, pk, "ana", LabelText("a", "b"))
    assert save_label(labels_store, pk, "ana", LabelText("a", "b", variants=("when x, do y",))).changed
    assert save_label(labels_store, pk, "ana", LabelText("a", "b", variants=("when x, do y",), note="ask Bo")).changed
    assert not save_label(labels_store, pk, "ana", LabelText("a", "b", variants=("when x, do y", ""), note="ask Bo ")).changed


def test_each_reviewer_has_their_own_label(labels_store: Store) -> None:
    (pk,) = Builder(labels_store).trajectories("T1")
    repo = LabelRepository(labels_store)
    save_label(labels_store, pk, "ana", LabelText("a", "b"))
    save_label(labels_store, pk, "bo", LabelText("c", "d"))
    assert {lb.reviewer: lb.sentence for lb in repo.labels_for(pk)} == {"ana": "when a, b", "bo": "when c, d"}


def test_label_history_is_append_only(labels_store: Store) -> None:
    (pk,) = Builder(labels_store).trajectories("T1")
    save_label(labels_store, pk, "ana", LabelText("a", "b"))
    for statement in ("UPDATE label_history SET actor = 'mallory'", "DELETE FROM label_history"):
        with pytest.raises(Exception, match="append-only"):
            with labels_store.session() as session:
                session.execute(text(statement))
