"""An export that finds its folder locked by another export names the holder (issue 24):
the lock file says who holds it, and the refusal quotes that line."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from core.export.atomic import ExportBusyError, export_lock


def _hold(target: Path, taken: threading.Event, release: threading.Event) -> None:
    with export_lock(target):
        taken.set()
        release.wait(10)


def test_a_busy_target_names_the_process_that_holds_it(tmp_path: Path) -> None:
    target = tmp_path / "rules"
    taken, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold, args=(target, taken, release))  # its own lock (thread-local)
    holder.start()
    try:
        assert taken.wait(10)
        with pytest.raises(ExportBusyError) as busy, export_lock(target, wait_seconds=0.2):
            pass
    finally:
        release.set()
        holder.join(10)
    assert f"process {os.getpid()} " in busy.value.holder
    assert busy.value.holder in str(busy.value) and "nothing was changed" in str(busy.value)
    assert not (tmp_path / ".rules.lock").exists()  # released: nothing left beside the folder


def test_an_unreadable_holder_line_still_gives_one_sentence(tmp_path: Path) -> None:
    lock = tmp_path / ".rules.lock"
    lock.write_bytes(b"\xff\xfe not utf-8")
    import fcntl

    fd = os.open(lock, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # held without a holder line of its own (an older Workbench)
    try:
        with pytest.raises(ExportBusyError) as busy, export_lock(tmp_path / "rules", wait_seconds=0.1):
            pass
    finally:
        os.close(fd)
    assert busy.value.holder == "another export"
