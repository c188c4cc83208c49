"""Red team: replay runs and results, outcome blocks, pools, owners, caches, imports, settings.

Each case is one attempt by a real login with plain SQL; the server must refuse it and the
store must be unchanged.
"""

from __future__ import annotations

import pytest
from red_team import TeamStore, assert_refused_and_unchanged, team_store  # noqa: F401  (fixture)

ATTEMPTS: dict[str, tuple[str, list[str]]] = {
    "flip a finished run's verdict": ("bo", ["UPDATE replay_result SET verdict = 'pass', precision = 1"]),
    "delete a finished run's results": ("bo", ["DELETE FROM replay_result WHERE run_id = {run}"]),
    "add a result to a finished run": ("bo", [
        "INSERT INTO replay_result (run_id, rule_version_id, verdict, reason, threshold, prevented_n, broken_n, "
        "near_miss_n, missed_n) SELECT run_id, rule_version_id, 'pass', 'forged', threshold, 9, 0, 0, 0 "
        "FROM replay_result WHERE run_id = {run} LIMIT 1"]),
    "mark a finished run failed": ("bo", ["UPDATE replay_run SET status = 'failed' WHERE id = {run}"]),
    "delete a run": ("bo", ["DELETE FROM replay_run WHERE id = {run}"]),
    "prune a run through the server's prune function": ("bo", ["SELECT public.workbench_prune_run({run}, 100)"]),
    "prune a cited run as a lead by plain deletes": ("lena", ["DELETE FROM replay_result WHERE run_id = {run}",
                                                              "DELETE FROM replay_run WHERE id = {run}"]),
    "delete outcome blocks": ("bo", ["DELETE FROM replay_outcome_block"]),
    "rewrite an outcome block": ("bo", ["UPDATE replay_outcome_block SET data = ''::bytea"]),
    "delete replay pools": ("bo", ["DELETE FROM replay_pool"]),
    "steal a run's owner": ("bo", ["UPDATE replay_run_owner SET owner = 'elsewhere|1|1'"]),
    "delete run owners": ("bo", ["DELETE FROM replay_run_owner"]),
    "poison an embedding": ("bo", ["UPDATE embedding SET vector = ''::bytea"]),
    "delete embeddings": ("bo", ["DELETE FROM embedding"]),
    "poison the side cache": ("bo", ["UPDATE replay_side_cache SET data = ''::bytea"]),
    "rewrite an import report": ("bo", ["UPDATE import_report SET summary_json = '{{}}'"]),
    "delete import issues": ("bo", ["DELETE FROM import_issue"]),
    "delete settings": ("bo", ["DELETE FROM setting"]),
    "stamp the schema revision": ("bo", ["UPDATE alembic_version SET version_num = '0001_baseline'"]),
}


@pytest.mark.parametrize("name", sorted(ATTEMPTS))
def test_the_server_refuses(team_store: TeamStore, name: str) -> None:
    login, statements = ATTEMPTS[name]
    assert_refused_and_unchanged(team_store, login, [s.format(**team_store.ids) for s in statements])
