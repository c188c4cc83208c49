"""The evidence board's reads: bucket sizes and first pages, later pages in the same order,
never every row of a bucket, and the approval gate's count of broken rows left to open."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.decisions import waive
from core.importing import import_paths
from core.replay.profiles import REFERENCE_0_3_1
from core.replaying import materialise_expected_rules, run_replay
from core.store import evidence_pages
from core.store.engine import Store, open_store
from core.store.replay_repo import ReplayRepository, StoredResult
from core.store.result_repo import ResultRepository
from core.store.review_repo import ReviewRepository

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture()
def store(store_location: Path | str) -> Iterator[Store]:
    opened = open_store(store_location)  # on each back end
    import_paths(opened, [DEMO])
    materialise_expected_rules(opened)
    yield opened
    opened.close()


def _results(store: Store) -> list[StoredResult]:
    summary = run_replay(store, REFERENCE_0_3_1)
    return ReplayRepository(store).results(summary.run_id)


def test_later_pages_continue_the_first_page_in_the_board_order(store: Store) -> None:
    result = max(_results(store), key=lambda r: r.missed_n)
    board = evidence_pages.evidence_board(store, result.id, None, first=3)
    assert board.counts == evidence_pages.evidence_counts(store, result.id) and board.total("missed") == result.missed_n
    whole = [o.trajectory_pk for o in evidence_pages.evidence_page(store, result.id, "missed", 0, 10**6)]
    paged = [o.trajectory_pk for start in range(3, len(whole), 3)
             for o in evidence_pages.evidence_page(store, result.id, "missed", start, 3)]
    assert len(whole) > 6 and [o.trajectory_pk for o in board.first_rows["missed"]] + paged == whole


def test_the_board_reads_one_page_per_bucket_not_every_row(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    result = max(_results(store), key=lambda r: r.missed_n)
    built: list[Any] = []
    real = evidence_pages.outcome_from_row
    monkeypatch.setattr(evidence_pages, "outcome_from_row", lambda s, r: built.append(r) or real(s, r))
    board = ResultRepository(store).evidence_bundle(result.id, None)
    assert result.missed_n > 0
    assert len(built) == sum(min(n, evidence_pages.PAGE) for n in board.counts.values())
    built.clear()
    evidence_pages.evidence_board(store, result.id, None, first=2)
    assert len(built) == sum(min(n, 2) for n in board.counts.values()) < sum(board.counts.values())


def test_unopened_broken_counts_what_the_approval_gate_checks(store: Store) -> None:
    result = next(r for r in _results(store) if r.broken_n >= 2)
    reviews = ReviewRepository(store)
    assert evidence_pages.unopened_broken(store, result.id, "ana") == result.broken_n
    assert evidence_pages.unopened_broken(store, result.id, None) == result.broken_n
    broken = evidence_pages.evidence_page(store, result.id, "broken")
    ReviewRepository(store).record_view("ana", result.id, broken[0].trajectory_pk)
    waive(store, "ana", result.id, broken[1].trajectory_pk, "flaky network, not the rule")
    left = evidence_pages.unopened_broken(store, result.id, "ana")
    assert left == result.broken_n - 2 == len(reviews.unreviewed_broken("ana", result.id))
    assert evidence_pages.evidence_board(store, result.id, "ana").unopened_broken == left
    assert evidence_pages.unopened_broken(store, result.id, "ben") == result.broken_n  # per reviewer
