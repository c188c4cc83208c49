"""Red team: a replay run belongs to the login that started it (revision 0016_run_login).

The server names the login in ``replay_run.started_by`` (a client cannot write another name,
not even the lead's), and only that login writes results, outcome blocks, pools and owners into
the run while it runs. So evidence on a team store is attributable, and one reviewer cannot
slip forged results into another's run or close it.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from red_team import TeamStore, assert_refused_and_unchanged, attempt, team_store  # noqa: F401  (fixture)

from core.cli import main
from core.store.engine import open_store
from core.store.replay_repo import ReplayRepository

_NEW_RUN = ("INSERT INTO replay_run (started_at, status, profile, config_json, config_hash, corpus_hash, "
            "semantic_state, pairs{extra_columns}) VALUES ('2026-12-03T00:00:00Z', 'running', 'workbench', '{{}}', "
            "'cfg', 'corpus', 'off', 0{extra_values}) RETURNING id, started_by")


def _start_run(store: TeamStore, login: str, claimed_by: str | None = None) -> tuple[int, str]:
    extra = (", started_by", f", '{claimed_by}'") if claimed_by else ("", "")
    with psycopg.connect(store.login(login)) as connection:
        row = connection.execute(_NEW_RUN.format(extra_columns=extra[0], extra_values=extra[1])).fetchone()  # type: ignore[arg-type]
    assert row is not None
    return int(row[0]), str(row[1])


def _copy_into(store: TeamStore, table: str, key: str, value: int) -> str:
    """SQL copying an existing row of ``table`` with ``key`` set to ``value`` (the rest as it is)."""
    with psycopg.connect(store.url) as connection:
        columns = [str(r[0]) for r in connection.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
            "AND column_name NOT IN ('id', %s) ORDER BY ordinal_position", (table, key))]
    names = ", ".join(columns)
    return f"INSERT INTO {table} ({key}, {names}) SELECT {value}, {names} FROM {table} LIMIT 1"


def _add_result(store: TeamStore, login: str, run: int) -> int:
    with psycopg.connect(store.login(login)) as connection:
        row = connection.execute(_copy_into(store, "replay_result", "run_id", run) + " RETURNING id").fetchone()  # type: ignore[arg-type]
    assert row is not None
    return int(row[0])


# name: (does ana's run hold a result first, what bo tries)
ATTEMPTS: dict[str, tuple[bool, str]] = {
    "add a forged result to another reviewer's running run": (False, "{copy_result}"),
    "close another reviewer's running run as complete": (False, "UPDATE replay_run SET status = 'complete' "
                                                                "WHERE id = {run}"),
    "rewrite the verdict in another reviewer's running run": (True, "UPDATE replay_result SET verdict = 'fail' "
                                                                    "WHERE run_id = {run}"),
    "add an outcome block to another reviewer's running run": (True, "{copy_block}"),
    "add a recall pool to another reviewer's running run": (True, "{copy_pool}"),
}


@pytest.mark.parametrize("name", sorted(ATTEMPTS))
def test_a_reviewer_cannot_write_into_another_reviewers_running_run(team_store: TeamStore, name: str) -> None:
    with_result, statement = ATTEMPTS[name]
    run, _ = _start_run(team_store, "ana")
    result = _add_result(team_store, "ana", run) if with_result else 0
    sql = statement.format(run=run, copy_result=_copy_into(team_store, "replay_result", "run_id", run),
                           copy_block=_copy_into(team_store, "replay_outcome_block", "result_id", result),
                           copy_pool=_copy_into(team_store, "replay_pool", "result_id", result))
    outcome = assert_refused_and_unchanged(team_store, "bo", [sql])
    assert "violates unique" not in outcome.error and "not-null" not in outcome.error  # refused for the right reason


def test_the_server_names_the_login_that_started_a_run_whatever_the_client_claims(team_store: TeamStore) -> None:
    run, started_by = _start_run(team_store, "bo", claimed_by="lena")
    assert started_by == "bo"
    outcome = attempt(team_store.login("bo"), [f"UPDATE replay_run SET started_by = 'lena' WHERE id = {run}"])
    assert not outcome.refused  # bo's own running run: the update runs, the name stays
    with psycopg.connect(team_store.url) as connection:
        assert connection.execute("SELECT started_by FROM replay_run WHERE id = %s", (run,)).fetchone() == ("bo",)


def test_a_reviewer_can_still_write_their_own_run(team_store: TeamStore) -> None:
    run, _ = _start_run(team_store, "ana")
    _add_result(team_store, "ana", run)
    outcome = attempt(team_store.login("ana"), [f"UPDATE replay_run SET status = 'complete' WHERE id = {run}"])
    assert not outcome.refused


def test_a_reviewers_replay_through_the_product_records_their_login(team_store: TeamStore, tmp_path: Path) -> None:
    assert main(["replay", "--store", team_store.login("ana"), "--no-semantic"]) == 0
    store = open_store(team_store.url)
    try:
        newest = ReplayRepository(store).runs()[0]
    finally:
        store.close()
    assert (newest.status, newest.started_by) == ("complete", "ana")
