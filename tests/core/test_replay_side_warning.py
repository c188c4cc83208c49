"""A replay that finished but could not keep its trajectory side in the store (a full disk)
prints one warning line, not a traceback, and still succeeds (issue 25 item 8)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.drills.stores import build_store

ROOT = Path(__file__).resolve().parents[2]
# The CLI with the side's write failing as it does on a full disk.
_FULL_DISK = """
import errno, sys
from core.store import side_cache_repo
def put(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")
side_cache_repo.SideCacheRepository.put = put
from core.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_side_that_cannot_be_kept_is_one_warning_line(tmp_path: Path) -> None:
    build_store(tmp_path / "s.sqlite", tmp_path / "corpus", "A", n=30)
    with sqlite3.connect(tmp_path / "s.sqlite") as db:  # the next replay builds the side and keeps it
        db.execute("DELETE FROM replay_side_cache")
    done = subprocess.run([sys.executable, "-c", _FULL_DISK, "replay", "--no-semantic", "--store",
                           str(tmp_path / "s.sqlite")], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and "complete" in done.stdout, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "could not be kept" in lines[0] and "No space left" in lines[0], done.stderr
