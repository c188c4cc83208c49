"""Run the covering tests against each mutant, in throwaway copies of the tree.

The working tree is never written: each worker (at most ``jobs``, two by default because the
development machines have two cores) gets its own copy of the project in a temporary folder,
writes one mutant into its copy, runs ``pytest -x`` there with a per-mutant timeout (a hang
counts as killed, as in other mutation tools), and puts the original file back. Bytecode is
not written, so a stale ``.pyc`` can never stand in for a mutant. The copy keeps the project's
place next to ``../shared`` (a symlink), so the tests that use the shared corpus still find it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from queue import Queue

from tools.mutate.operators import Mutant, apply

_IGNORED = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.pyc", ".mypy_cache", ".ruff_cache",
                                  "build", "dist", "*.egg-info")


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    status: str  # "killed", "timeout" (counted as killed), "survived"


def _core_only(args: Sequence[str]) -> bool:
    """Only core tests among the pytest arguments (a ``-k`` expression is not a test path)."""
    paths = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] != "-k")]
    return all(p.startswith("tests/core/") for p in paths)


def _pytest_command(tests: Sequence[str]) -> list[str]:
    # Core tests run as ./dev.sh test runs them: without Qt, which also saves a PySide6 import per mutant.
    no_qt = ["-p", "no:pytest-qt"] if _core_only(tests) else []
    return [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *no_qt, "--no-header",
            "-W", "ignore", *tests]


def _environment(copy: Path, tests: Sequence[str]) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(copy)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    if _core_only(tests):
        env["WORKBENCH_BLOCK_QT"] = "1"
    return env


@contextmanager
def tree_copies(root: Path, count: int) -> Iterator[list[Path]]:
    """``count`` copies of the project, each as ``<tmp>/<n>/<project>`` beside a ``shared`` link."""
    with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
        copies: list[Path] = []
        for n in range(count):
            parent = Path(tmp) / str(n)
            parent.mkdir()
            shared = root.parent / "shared"
            if shared.exists():
                (parent / "shared").symlink_to(shared)
            copy = parent / root.name
            shutil.copytree(root, copy, ignore=_IGNORED, symlinks=True)
            copies.append(copy)
        yield copies


def baseline_seconds(copy: Path, tests: Sequence[str]) -> float:
    """Seconds the unmutated tests take; raises when they do not pass (no score without a green base)."""
    started = time.monotonic()
    done = subprocess.run(_pytest_command(tests), cwd=copy, env=_environment(copy, tests), capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join(done.stdout.splitlines()[-15:])
        raise RuntimeError(f"the covering tests fail before any mutation:\n{tail}")
    return time.monotonic() - started


def _run_one(copy: Path, module: str, source: str, mutant: Mutant, tests: Sequence[str], timeout: float) -> Outcome:
    target = copy / module
    target.write_text(apply(source, mutant), encoding="utf-8")
    # A session of its own, so a timeout also ends what pytest started (a CLI subprocess, say).
    process = subprocess.Popen(_pytest_command(tests), cwd=copy, env=_environment(copy, tests), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        status = "survived" if process.wait(timeout=timeout) == 0 else "killed"
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        status = "timeout"
    finally:
        target.write_text(source, encoding="utf-8")
    return Outcome(mutant, status)


def run_mutants(copies: Sequence[Path], module: str, source: str, mutants: Sequence[Mutant], tests: Sequence[str],
                timeout: float, progress: Callable[[Outcome], None]) -> list[Outcome]:
    """Each mutant once, spread over the copies (one mutant per copy at a time)."""
    free: Queue[Path] = Queue()
    for copy in copies:
        free.put(copy)

    def work(mutant: Mutant) -> Outcome:
        copy = free.get()
        try:
            outcome = _run_one(copy, module, source, mutant, tests, timeout)
        finally:
            free.put(copy)
        progress(outcome)
        return outcome

    with ThreadPoolExecutor(max_workers=len(copies)) as pool:
        return list(pool.map(work, mutants))
