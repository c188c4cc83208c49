"""A reader that goes away (``cauterule-workbench promotions | head``) is not an error: the
CLI exits quietly, as Unix tools do (issue 25 item 8)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.drills.stores import build_store

ROOT = Path(__file__).resolve().parents[2]


def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    build_store(tmp_path / "s.sqlite", tmp_path / "corpus", "A", n=30)
    proc = subprocess.Popen([sys.executable, "-m", "core.cli", "promotions", "--no-semantic",
                             "--store", str(tmp_path / "s.sqlite")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line is written
    err = proc.stderr.read().decode()
    assert (proc.wait(timeout=120), err) == (0, "")
