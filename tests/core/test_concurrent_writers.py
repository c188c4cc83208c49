"""Two processes writing one store at once: every action waits its turn, none fails (defect 1)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from sqlalchemy import text

from core.importing import import_paths
from core.store.engine import open_store

WORKER = Path(__file__).resolve().parent.parent / "drills" / "writer_worker.py"
ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_two_writer_processes_store_every_action(tmp_path: Path, demo_corpus: Path) -> None:
    path = tmp_path / "s.sqlite"
    store = open_store(path)
    import_paths(store, [demo_corpus])
    store.close()
    n = 150
    workers = [
        subprocess.Popen([sys.executable, str(WORKER), str(path), name, str(n)], stdout=subprocess.PIPE, env=_env())
        for name in ("ana", "bo")
    ]
    results = [json.loads(w.communicate(timeout=300)[0].decode().strip().splitlines()[-1]) for w in workers]
    assert [r["errors"] for r in results] == [0, 0], results
    store = open_store(path)
    with store.read_session() as session:
        label_saves = session.execute(text("SELECT count(*) FROM label_history")).scalar_one()
        decisions = session.execute(text("SELECT count(*) FROM decision")).scalar_one()
    store.close()
    assert label_saves + decisions == 2 * n


_START_RUN_AND_HANG = """
import sys, time
from core.store.engine import open_store
from core.store.replay_repo import ReplayRepository
store = open_store(sys.argv[1])
run = ReplayRepository(store).start_run("workbench", {}, "c", "h", None, "off", "test")
print(run, flush=True)
time.sleep(600)
"""


def test_a_run_left_running_by_a_killed_process_is_failed_on_next_open(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    open_store(path).close()
    child = subprocess.Popen(
        [sys.executable, "-c", _START_RUN_AND_HANG, str(path)], stdout=subprocess.PIPE, env=_env()
    )
    assert child.stdout is not None
    run_id = int(child.stdout.readline())
    # While its process lives the run stays running, even across other opens.
    open_store(path).close()
    assert _status(path, run_id) == "running"
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    open_store(path).close()
    assert _status(path, run_id) == "failed"


def _status(path: Path, run_id: int) -> str:
    store = open_store(path)
    try:
        with store.read_session() as session:
            return str(session.execute(text("SELECT status FROM replay_run WHERE id = :i"), {"i": run_id}).scalar_one())
    finally:
        store.close()
