"""The team load drill (issue 14): N reviewer processes × M mixed actions on one PostgreSQL store.

Each worker is a separate process with its own store connection under its own login ``r<i>``
(issue 23: the server's grants and row-level security apply; even workers are leads, odd ones
reviewers, and only leads adjudicate).
Its actions, drawn at random (seeded per worker): save a label (a new text each time, so a
history row), give an agreement mark, waive a broken trajectory, decide on a rule (reject or
defer, naming the row version it read) and adjudicate a label (naming the ruling it saw). The
decisions and adjudications go to a handful of rules and trajectories shared by everyone, so
reviewers collide; a collision is a :class:`ConcurrentChangeError`, counted as a detected
conflict, after which the worker reads again and decides again (the reviewer "chooses").
Every action therefore ends as exactly one stored row, which the drill then counts in the
database per reviewer and kind: stored = done, lost = 0. Deadlocks and serialisation failures
are counted from the server's error codes (40P01, 40001). Latency: the action's write calls,
retries included.

Run in full by ``benchmarks/team_load.py``; bounded in ``tests/postgres/test_team_load.py``.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("label", "mark", "waiver", "decision", "adjudication")
HOT_RULES = 3  # decisions land on these few rules: reviewers collide
HOT_TRAJECTORIES = 3  # adjudications too


def seed_store(url: str, workers: int, trajectories: int = 40) -> None:
    """Trajectories, rules and one complete run with broken evidence to waive; a login per worker."""
    sys.path.insert(0, str(ROOT / "tests" / "postgres"))
    from every_kind import Builder

    from core.store.engine import open_store

    store = open_store(url)
    b = Builder(store)
    b.trajectories(*(f"F-{i}" for i in range(trajectories)))
    b.trajectories(*(f"S-{i}" for i in range(8)), success=True)
    rules = [b.rule(f"c/r{i}.yaml", f"when step {i} fails", f"retry step {i}") for i in range(HOT_RULES + 2)]
    b.run([(rule, "fail", {"prevented": [f"F-{i}"], "broken": [f"S-{i % 8}", f"S-{(i + 1) % 8}"]})
           for i, rule in enumerate(rules)])
    store.close()
    from core.team.roles import add_reviewer

    for index in range(workers):  # each worker works under its own login: the server's policies apply
        add_reviewer(url, f"r{index}", lead=_is_lead(index))


def _is_lead(index: int) -> bool:
    """Even workers are leads (they also adjudicate); odd ones are plain reviewers."""
    return index % 2 == 0


def login_url(url: str, login: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    return urlunsplit((parts.scheme, f"{login}@", parts.path, parts.query, ""))


def _think(rng: random.Random) -> float:
    pause = rng.random() * 0.02
    time.sleep(pause)
    return pause


def _worker(url: str, index: int, actions: int) -> dict[str, Any]:
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    from core.decisions import DecisionRequest, decide, waive
    from core.domain.labels import LabelText
    from core.labels.service import adjudicate, save_label
    from core.store.engine import open_store
    from core.store.label_repo import LabelRepository
    from core.store.outcome_reads import result_block
    from core.store.review_repo import ReviewRepository
    from core.store.row_versions import ConcurrentChangeError
    from core.store.rule_repo import RuleRepository

    rng = random.Random(index)
    me = f"r{index}"
    kinds = KINDS if _is_lead(index) else tuple(k for k in KINDS if k != "adjudication")  # a lead's ruling
    store = open_store(login_url(url, me))
    labels, reviews, rules = LabelRepository(store), ReviewRepository(store), RuleRepository(store)
    with store.read_session() as session:
        pks = [int(r[0]) for r in session.execute(text("SELECT id FROM trajectory WHERE success = FALSE ORDER BY id"))]
        results = [(int(r[0]), int(r[1])) for r in session.execute(text("SELECT id, rule_version_id FROM replay_result"))]
        broken = [(result_id, int(pk)) for result_id, _ in results
                  for pk in result_block(session, result_id, ("broken",)).pk.tolist()]
        rule_ids = [int(r[0]) for r in session.execute(text("SELECT id FROM rule ORDER BY id"))][:HOT_RULES]
    done = dict.fromkeys(KINDS, 0)
    conflicts = dict.fromkeys(KINDS, 0)
    errors: dict[str, int] = {}
    latencies: list[float] = []
    for n in range(actions):
        kind = rng.choice(kinds)
        started, thinking = time.perf_counter(), 0.0
        while True:
            try:
                if kind == "label":
                    save_label(store, rng.choice(pks), me, LabelText(f"when {me} sees case {n}", f"do thing {n}"))
                elif kind == "mark":
                    result, _ = rng.choice(results)
                    reviews.mark(me, result, None, "fail", rng.choice(("right", "wrong", "cant_tell")))
                elif kind == "waiver":
                    result, pk = rng.choice(broken)
                    waive(store, me, result, pk, f"{me} read it ({n})")
                elif kind == "decision":
                    rule = rng.choice(rule_ids)
                    seen = rules.row_version(rule)
                    thinking += _think(rng)  # the reviewer reads the evidence
                    action = rng.choice(("reject", "defer"))
                    decide(store, DecisionRequest(action, me, rule, reason=f"{me} #{n}", expected_version=seen))
                else:
                    pk = pks[rng.randrange(HOT_TRAJECTORIES)]
                    current = labels.adjudications(pk)
                    seen = max((a.id for a in current), default=0)
                    thinking += _think(rng)
                    adjudicate(store, pk, me, LabelText(f"ruling {me} {n}", "do it"), f"{me} #{n}",
                               expected_current=seen)
                break
            except ConcurrentChangeError:
                conflicts[kind] += 1  # detected: read again and choose again
            except DBAPIError as error:
                code = getattr(error.orig, "sqlstate", None) or type(error.orig).__name__
                errors[str(code)] = errors.get(str(code), 0) + 1
                if errors[str(code)] > 50:
                    raise
        latencies.append(time.perf_counter() - started - thinking)  # the store's time, not the reviewer's
        done[kind] += 1
    store.close()
    return {"reviewer": me, "done": done, "conflicts": conflicts, "errors": errors, "latencies": latencies}


def stored_counts(url: str) -> dict[str, dict[str, int]]:
    """Rows per reviewer and kind, counted in the database."""
    from sqlalchemy import text

    from core.store.engine import open_store

    queries = {
        "label": "SELECT actor, count(*) FROM label_history GROUP BY actor",
        "mark": "SELECT reviewer, count(*) FROM agreement_mark GROUP BY reviewer",
        "waiver": "SELECT reviewer, count(*) FROM waiver GROUP BY reviewer",
        "decision": "SELECT reviewer, count(*) FROM decision GROUP BY reviewer",
        "adjudication": "SELECT lead, count(*) FROM adjudication GROUP BY lead",
    }
    store = open_store(url)
    counts: dict[str, dict[str, int]] = {}
    with store.read_session() as session:
        for kind, query in queries.items():
            for who, count in session.execute(text(query)):
                counts.setdefault(str(who), {})[kind] = int(count)
    store.close()
    return counts


@dataclass(frozen=True)
class DrillResult:
    workers: int
    actions: int
    done: int
    stored: int
    lost: int
    conflicts: dict[str, int]
    deadlocks: int
    serialization_failures: int
    other_errors: dict[str, int]
    p50_ms: float
    p95_ms: float
    seconds: float


def run_drill(url: str, workers: int, actions: int) -> DrillResult:
    """Seed ``url`` (an empty database), run the workers at once, count what was stored."""
    seed_store(url, workers)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    started = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-m", "tests.drills.team_load", url, str(i), str(actions)],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(workers)]
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=1800)
        if proc.returncode != 0:
            raise RuntimeError(f"worker failed ({proc.returncode}): {err.strip().splitlines()[-1:]}")
        reports.append(json.loads(out))
    seconds = time.monotonic() - started
    stored = stored_counts(url)
    done = sum(sum(r["done"].values()) for r in reports)
    kept = sum(min(stored.get(r["reviewer"], {}).get(k, 0), n) for r in reports for k, n in r["done"].items())
    errors: dict[str, int] = {}
    for r in reports:
        for code, count in r["errors"].items():
            errors[code] = errors.get(code, 0) + count
    latencies = sorted(x for r in reports for x in r["latencies"])
    conflicts = {k: sum(r["conflicts"][k] for r in reports) for k in KINDS}
    return DrillResult(
        workers=workers, actions=actions, done=done,
        stored=sum(sum(v.values()) for who, v in stored.items() if who.startswith("r")),
        lost=done - kept, conflicts=conflicts, deadlocks=errors.pop("40P01", 0),
        serialization_failures=errors.pop("40001", 0), other_errors=errors,
        p50_ms=1000 * statistics.median(latencies), p95_ms=1000 * latencies[int(0.95 * (len(latencies) - 1))],
        seconds=seconds)


if __name__ == "__main__":
    print(json.dumps(_worker(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
