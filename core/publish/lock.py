"""One publish at a time per rule store folder.

The lock is an exclusive ``flock`` on a hidden file beside the folder
(``.NAME.publish.lock``), not inside it: the folder itself is swapped for a new one by a
publish, and a lock inside it would be swapped away with it. The kernel drops the lock when
its holder dies, so a killed publish never leaves the store locked. (Another helper adds a
target lock for ``export-rules`` in core/export/atomic.py; the two are to be unified.)
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class PublishLockTimeout(RuntimeError):
    """Another publish to the same folder held the lock for longer than we were willing to wait."""


def lock_path(target: Path) -> Path:
    target = Path(target).absolute()
    return target.parent / f".{target.name}.publish.lock"


@contextmanager
def publish_lock(target: Path, wait_seconds: float = 60.0) -> Iterator[None]:
    """Hold the folder's publish lock for the block; wait up to ``wait_seconds`` for it."""
    path = lock_path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise PublishLockTimeout(
                        f"another publish to {target} is still running (lock {path}); try again when it ends"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
