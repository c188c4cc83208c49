"""The team load drill, bounded: reviewer processes at once on one PostgreSQL store lose nothing."""

from __future__ import annotations

from tests.drills.team_load import run_drill


def test_concurrent_reviewers_lose_nothing_and_collisions_are_detected(pg_server) -> None:  # type: ignore[no-untyped-def]
    url = pg_server.empty_database()
    result = run_drill(url, workers=4, actions=40)
    assert result.done == 160 and result.stored == 160 and result.lost == 0
    assert result.deadlocks == 0 and result.serialization_failures == 0 and result.other_errors == {}
    assert result.conflicts["decision"] + result.conflicts["adjudication"] > 0  # they collided, and it was seen
    pg_server.drop(url)
