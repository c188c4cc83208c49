"""``store prune`` and ``store stats`` (issue 27 item 4), on SQLite and PostgreSQL.

A prune keeps the newest N runs and every run something cites, deletes the others in bounded
transactions (a stop between two leaves the store consistent, and the next prune finishes),
and writes an audit event per run. Revision 0015_store_prune makes the keys refuse deleting a
run a decision or an agreement session names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
import sqlalchemy.exc
from every_kind import Builder
from red_team import TeamStore, snapshot, team_store  # noqa: F401  (fixture)
from sqlalchemy import text

from core.agreement.session import create_session
from core.cli import main
from core.decisions import waive
from core.promotion import approve
from core.store.engine import Store, open_store
from core.store.prune import PRUNING, plan_prune, prune
from core.store.replay_repo import ReplayRepository
from core.store.result_repo import ResultRepository
from core.store.review_repo import ReviewRepository
from core.store.store_stats import store_stats
from core.store.workspace_query import WorkspaceFilter, WorkspaceScope

WORK = ("decision", "promotion", "waiver", "agreement_session", "agreement_item", "audit_event")


@dataclass
class Runs:
    store: Store
    approved: int  # a decision and a promotion cite it
    waived: int  # a waiver points into it
    old: int  # nothing cites it
    sampled: int  # an agreement session samples it
    superseded: int  # nothing cites it; the newest run replays the same rules
    newest: int
    running: int


@pytest.fixture()
def runs(store_location: Path | str) -> Iterator[Runs]:
    store = open_store(store_location)
    b = Builder(store)
    b.trajectories("F-1", "F-2", "F-3")
    b.trajectories("S-1", success=True)
    rule = b.rule("c/r1.yaml", "when git push is rejected", "pull --rebase then push", source="F-1")
    other = b.rule("c/r2.yaml", "when a test flakes", "rerun it once")

    def run() -> int:
        return b.run([(rule, "pass", {"prevented": ["F-1", "F-2"], "broken": ["S-1"], "missed": ["F-3"]}),
                      (other, "fail", {"broken": ["S-1"]})])

    approved, waived, old, sampled, superseded, newest = (run() for _ in range(6))
    approved_result = next(r.id for r in ReplayRepository(store).results(approved) if r.rule_id == rule)
    ReviewRepository(store).record_view("ana", approved_result, b.pks["S-1"])  # approval needs it opened
    approve(store, rule, approved, "ana", "prevents both push failures")
    result = next(r.id for r in ReplayRepository(store).results(waived) if r.rule_id == rule)
    waive(store, "ana", result, b.pks["S-1"], "only quotes the error text")
    create_session(store, sampled, "lead", size=2, seed=1)
    running = ReplayRepository(store).start_run("workbench", {}, "cfg", "corpus", None, "off", None)
    yield Runs(store, approved, waived, old, sampled, superseded, newest, running)
    store.close()


def _run_ids(store: Store) -> dict[int, str]:
    with store.read_session() as session:
        return {int(r[0]): str(r[1]) for r in session.execute(text("SELECT id, status FROM replay_run")).all()}


def _counts(store: Store, tables: tuple[str, ...]) -> dict[str, int]:
    with store.read_session() as session:
        return {t: int(session.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()) for t in tables}


def test_the_plan_keeps_the_newest_and_every_cited_run(runs: Runs) -> None:
    plan = plan_prune(runs.store, keep=1)
    assert [r.run_id for r in plan.prune] == [runs.old, runs.superseded]
    assert "a decision" in plan.kept[runs.approved] and "a promotion's evidence" in plan.kept[runs.approved]
    assert "a waiver" in plan.kept[runs.waived]
    assert "an agreement session" in plan.kept[runs.sampled]
    assert plan.kept[runs.running][0] == "one of the newest 1" and "a running replay" in plan.kept[runs.running]
    assert plan.kept[runs.newest] == ("a rule's current result",)


def test_the_plan_counts_what_each_run_occupies(runs: Runs) -> None:
    [old, _] = plan_prune(runs.store, keep=1).prune
    with runs.store.read_session() as session:
        blocks = session.execute(text(
            "SELECT count(*), sum(b.n) FROM replay_outcome_block b JOIN replay_result r ON r.id = b.result_id "
            "WHERE r.run_id = :run"), {"run": runs.old}).one()
    assert (old.results, old.stored_pairs) == (2, int(blocks[1])) and int(blocks[0]) == 2
    assert old.block_bytes > 0 and old.bytes > old.block_bytes


def test_a_dry_run_changes_nothing(runs: Runs, capsys: pytest.CaptureFixture[str]) -> None:
    before = _counts(runs.store, ("replay_run", "replay_result", "replay_outcome_block", *WORK))
    assert main(["store", "prune", "--store", str(runs.store.path) if not runs.store.is_postgres
                 else _url(runs.store), "--keep", "1", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("would delete 2 run(s), 4 results")
    assert f"run #{runs.old} " in out and f"= run #{runs.approved} kept: a decision" in out
    assert _counts(runs.store, ("replay_run", "replay_result", "replay_outcome_block", *WORK)) == before


def _url(store: Store) -> str:
    return store.engine.url.render_as_string(hide_password=False)


def test_a_prune_deletes_the_planned_runs_and_leaves_every_citation(runs: Runs) -> None:
    work = _counts(runs.store, WORK)
    outcome = prune(runs.store, plan_prune(runs.store, keep=1), "lead", batch=1)
    assert outcome.runs == (runs.old, runs.superseded) and outcome.results == 4
    assert set(_run_ids(runs.store)) == {runs.approved, runs.waived, runs.sampled, runs.newest, runs.running}
    with runs.store.read_session() as session:
        orphans = session.execute(text(
            "SELECT (SELECT count(*) FROM replay_outcome_block b WHERE NOT EXISTS "
            "(SELECT 1 FROM replay_result r WHERE r.id = b.result_id)) + (SELECT count(*) FROM replay_pool p "
            "WHERE NOT EXISTS (SELECT 1 FROM replay_result r WHERE r.id = p.result_id))")).scalar_one()
        audited = session.execute(text(
            "SELECT target_id, actor FROM audit_event WHERE action = 'prune_run' ORDER BY id")).all()
    assert orphans == 0
    assert {int(t) for t, _ in audited} == {runs.old, runs.superseded}
    assert _counts(runs.store, WORK) == {**work, "audit_event": work["audit_event"] + 2}


def test_a_prune_stopped_between_batches_leaves_a_consistent_store_and_the_next_finishes_it(runs: Runs) -> None:
    steps = iter([False, False, True])  # mark the run, delete one result, then stop
    outcome = prune(runs.store, plan_prune(runs.store, keep=1), "lead", batch=1, cancel=lambda: next(steps))
    assert outcome.cancelled and outcome.runs == ()
    assert _run_ids(runs.store)[runs.old] == PRUNING
    with runs.store.read_session() as session:
        left = session.execute(text("SELECT count(*) FROM replay_result WHERE run_id = :r"),
                               {"r": runs.old}).scalar_one()
    assert left == 1
    shown = ResultRepository(runs.store).page(WorkspaceScope(), WorkspaceFilter(), limit=50)
    assert runs.old not in {row.run_id for row in shown.rows}  # a half-deleted run is never shown
    again = plan_prune(runs.store, keep=10)  # keeps every finished run, but finishes the stopped prune
    assert [r.run_id for r in again.prune] == [runs.old]
    assert prune(runs.store, again, "lead").runs == (runs.old,)
    assert runs.old not in _run_ids(runs.store)


def test_a_run_cited_after_the_plan_is_kept(runs: Runs) -> None:
    plan = plan_prune(runs.store, keep=1)
    result = next(r for r in ReplayRepository(runs.store).results(runs.old))
    with runs.store.read_session() as session:
        pk = session.execute(text("SELECT id FROM trajectory WHERE trajectory_id = 'S-1'")).scalar_one()
    waive(runs.store, "bo", result.id, int(pk), "a waiver written while the prune was planned")
    outcome = prune(runs.store, plan, "lead")
    assert outcome.runs == (runs.superseded,) and runs.old in outcome.skipped
    assert _run_ids(runs.store)[runs.old] == "complete"


@pytest.mark.parametrize("what", ["decision", "agreement_session"])
def test_the_keys_refuse_deleting_a_run_that_a_decision_or_session_names(runs: Runs, what: str) -> None:
    run = runs.approved if what == "decision" else runs.sampled
    with runs.store.session() as session:  # the owner clears everything else that points at the run
        session.execute(text("DELETE FROM promotion"))
        session.execute(text("DELETE FROM agreement_item"))
        session.execute(text("DELETE FROM evidence_view"))
    before = _counts(runs.store, ("replay_run", "replay_result", *WORK))
    with pytest.raises(sqlalchemy.exc.DBAPIError, match="referenced|violates foreign key|FOREIGN KEY"):
        with runs.store.session() as session:
            session.execute(text("DELETE FROM replay_result WHERE run_id = :r"), {"r": run})
            session.execute(text("DELETE FROM replay_run WHERE id = :r"), {"r": run})
    assert _counts(runs.store, ("replay_run", "replay_result", *WORK)) == before


def test_stats_count_rows_and_bytes_per_table_and_per_run(runs: Runs) -> None:
    stats = store_stats(runs.store)
    by_table = {t.table: t for t in stats.tables}
    assert by_table["replay_run"].rows == 7 and by_table["replay_outcome_block"].rows == 12
    assert by_table["replay_outcome_block"].bytes > 0
    assert sum(t.bytes for t in stats.tables) <= stats.total_bytes
    assert [r.run_id for r in stats.runs] == sorted(_run_ids(runs.store))
    assert all(r.results == 2 and r.bytes > 0 for r in stats.runs if r.run_id != runs.running)


def test_keep_below_one_is_refused_in_one_line(runs: Runs, capsys: pytest.CaptureFixture[str]) -> None:
    location = _url(runs.store) if runs.store.is_postgres else str(runs.store.path)
    assert main(["store", "prune", "--store", location, "--keep", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "keep at least one run" in err


# A team store: only a lead prunes, through the server function (core.team.prune_function).

def _old_run_on_team_store(url: str) -> int:
    """As the owner: an uncited, superseded run (the fill's run is cited by waivers and marks)."""
    owner = open_store(url)
    b = Builder(owner)
    b.pks = {t.trajectory_id: t.id for t in b.corpora.list_trajectories(limit=100)}
    with owner.read_session() as session:
        rule = int(session.execute(text("SELECT min(id) FROM rule")).scalar_one())
    old = b.run([(rule, "pass", {"prevented": ["F-1"]})])
    b.run([(rule, "pass", {"prevented": ["F-2"]})])
    owner.close()
    return old


@pytest.mark.parametrize("backend", ["postgresql"])
def test_a_lead_prunes_a_team_store_in_their_own_name(team_store: TeamStore, backend: str) -> None:
    old = _old_run_on_team_store(team_store.url)
    lead = open_store(team_store.login("lena"))
    plan = plan_prune(lead, keep=1)
    assert old in [r.run_id for r in plan.prune] and team_store.ids["run"] in plan.kept
    assert old in prune(lead, plan, "someone else").runs
    with lead.read_session() as session:
        actors = session.execute(text("SELECT DISTINCT actor FROM audit_event WHERE action = 'prune_run'")).all()
        gone = session.execute(text("SELECT count(*) FROM replay_run WHERE id = :r"), {"r": old}).scalar_one()
    lead.close()
    assert [a for (a,) in actors] == ["lena"] and gone == 0


@pytest.mark.parametrize("backend", ["postgresql"])
def test_a_reviewer_cannot_prune_a_team_store(team_store: TeamStore, backend: str) -> None:
    old = _old_run_on_team_store(team_store.url)
    reviewer = open_store(team_store.login("bo"))
    plan = plan_prune(reviewer, keep=1)
    before = snapshot(team_store.url)
    with pytest.raises(sqlalchemy.exc.DBAPIError, match="permission denied for function workbench_prune_run"):
        prune(reviewer, plan, "bo")
    reviewer.close()
    assert old in [r.run_id for r in plan.prune] and snapshot(team_store.url) == before


@pytest.mark.parametrize("backend", ["postgresql"])
def test_the_server_refuses_a_lead_pruning_a_cited_run(team_store: TeamStore, backend: str) -> None:
    before = snapshot(team_store.url)
    with psycopg.connect(team_store.login("lena")) as connection:
        left = connection.execute("SELECT public.workbench_prune_run(%s, 100)", (team_store.ids["run"],)).fetchone()
    assert left == (-1,) and snapshot(team_store.url) == before


@pytest.mark.parametrize("backend", ["postgresql"])
def test_the_cli_tells_a_reviewer_in_one_line(team_store: TeamStore, backend: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _old_run_on_team_store(team_store.url)
    before = snapshot(team_store.url)
    assert main(["store", "prune", "--store", team_store.login("bo"), "--keep", "1"]) == 1
    assert capsys.readouterr().err == "error: only a lead prunes a team store (nothing was deleted)\n"
    assert snapshot(team_store.url) == before


@pytest.mark.parametrize("backend", ["sqlite"])
def test_a_vacuumed_prune_returns_the_space_to_the_disk(runs: Runs, backend: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["store", "prune", "--store", str(runs.store.path), "--keep", "1", "--vacuum", "--by", "lead"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("deleted 2 run(s), 4 results") and "after VACUUM" in out
    before_mb, after_mb = (float(x.split()[0].replace(",", "")) for x in
                           out.split("file ")[1].split(" after VACUUM")[0].split(" -> "))
    assert after_mb <= before_mb
    assert set(_run_ids(runs.store)) == {runs.approved, runs.waived, runs.sampled, runs.newest, runs.running}
