"""A large synthetic run: completes, reports progress monotonically, cancels promptly."""

from __future__ import annotations

import random
import threading
from typing import Any

from core.replay.engine import replay
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH
from core.replay.types import ReplayRule, ReplayTrajectory

DOMAINS = ["git", "docker", "python", "k8s", "terraform", "npm", "ci", "ssh", "browser", "api"]
TOOLS = {"git": "git", "docker": "docker", "python": "pip", "k8s": "kubectl", "terraform": "terraform",
         "npm": "npm", "ci": "ci", "ssh": "ssh", "browser": "browser", "api": "api"}
ERRORS = ["permission denied", "connection refused", "timed out", "not found", "out of memory",
          "merge conflict", "rate limit exceeded", "non-fast-forward", "module not found",
          "certificate verification failed", "state lock", "exit code 1", "no such file"]
WORDS = ("cache build deploy push pull install update config volume image layer branch remote token "
         "request service pod node package version lock schema table index worker queue job").split()


def synthetic(n_traj: int, n_rules: int, seed: int = 7) -> tuple[list[ReplayRule], list[ReplayTrajectory]]:
    rnd = random.Random(seed)
    trajs: list[ReplayTrajectory] = []
    for i in range(n_traj):
        dom = rnd.choice(DOMAINS)
        tool = TOOLS[dom]
        success = rnd.random() < 0.45
        err = rnd.choice(ERRORS)
        words = " ".join(rnd.sample(WORDS, 5))
        retry = " retry" if success and rnd.random() < 0.1 else ""
        record: dict[str, Any] = {
            "trajectory_id": f"T-{i:05d}{retry.replace(' ', '-')}",
            "timestamp": "2026-01-01T00:00:00Z",
            "task": f"{tool} {words}{retry}",
            "success": success,
            "domain": dom,
            "failure_class": None if success else f"{dom}/{err.split()[0]}/{rnd.choice(WORDS)}",
            "steps": [
                {"step_number": 1, "tool": tool, "input": f"{tool} {rnd.choice(WORDS)} {rnd.choice(WORDS)}",
                 "output": "ok" if success else None, "error": None if success else f"{tool}: {err} while {words}"},
            ],
        }
        trajs.append(ReplayTrajectory(i, record["trajectory_id"], f"synthetic/{dom}", dom, success,
                                      record["failure_class"], record))
    rules = []
    for j in range(n_rules):
        dom = rnd.choice(DOMAINS)
        src = rnd.choice([t for t in trajs[:200] if t.domain == dom] or trajs[:1])
        rules.append(ReplayRule(
            key=f"R{j}", trigger=f"{TOOLS[dom]} {rnd.choice(ERRORS)} during {' '.join(rnd.sample(WORDS, 2))}",
            context=(rnd.choice(WORDS),) if j % 7 == 0 else (), directive="fix it",
            source_trajectory_id=src.trajectory_id, source_key=src.key, domain=src.domain, corpus=src.corpus,
        ))
    return rules, trajs


def test_large_run_progress_and_results() -> None:
    rules, trajs = synthetic(2000, 200)
    seen: list[tuple[int, int]] = []
    out = replay(rules, trajs, WORKBENCH, progress=lambda d, n: seen.append((d, n)))
    assert out.status == "complete" and len(out.results) == 200
    assert out.pairs == 200 * 2000
    assert seen and seen[-1] == (400_000, 400_000)
    assert all(b[0] > a[0] for a, b in zip(seen, seen[1:]))
    assert {n for _, n in seen} == {400_000}
    assert {r.verdict for r in out.results} >= {"pass"}  # its speed is benchmarks/scale.py's figure


def test_reference_profile_large_run() -> None:
    rules, trajs = synthetic(2000, 40, seed=3)
    out = replay(rules, trajs, REFERENCE_0_3_1)
    assert out.status == "complete" and len(out.results) == 40
    assert any(r.recall_pool.scoped for r in out.results)


def test_cancel_midway_returns_promptly() -> None:
    rules, trajs = synthetic(2000, 200, seed=11)
    cancel = threading.Event()
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == 2:
            cancel.set()

    out = replay(rules, trajs, WORKBENCH, progress=progress, cancel=cancel)
    assert out.status == "cancelled"
    assert out.results == []  # nothing is marked complete
    assert 0 < out.pairs < 200 * 2000 and len(seen) == 2  # "promptly": no progress after the cancel


def test_cancel_before_start() -> None:
    rules, trajs = synthetic(50, 5)
    cancel = threading.Event()
    cancel.set()
    out = replay(rules, trajs, WORKBENCH, cancel=cancel)
    assert out.status == "cancelled" and out.pairs == 0 and out.results == []
