"""Which process owns a running replay run, and closing runs whose process is gone.

A run row is written ``running`` and closed by the process that started it. If that process
is killed (or crashes past its ``finally``), nothing would ever close it. Each run records
its owner as ``host|pid|start`` (the process start time tells a reused pid from the
original); when a store opens, every ``running`` run owned by a process on this host that no
longer exists is marked ``failed``. Runs owned by another host are left alone: their
liveness cannot be checked from here.
"""

from __future__ import annotations

import os
import socket
import sqlite3
from functools import lru_cache

from core.timeutil import utc_now


def _process_start(pid: int) -> str:
    """The process's start time in clock ticks since boot (Linux), or '' where unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("ascii", "replace")
    except OSError:
        return ""
    # Field 22; the command name (field 2) may contain spaces, so split after its ')'.
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else ""


@lru_cache(maxsize=1)
def _host() -> str:
    return socket.gethostname()


def current_owner() -> str:
    pid = os.getpid()
    return f"{_host()}|{pid}|{_process_start(pid)}"


def owner_is_dead(owner: str) -> bool:
    """True only when the owner certainly no longer runs (same host, pid gone or reused)."""
    host, _, rest = owner.partition("|")
    pid_text, _, start = rest.partition("|")
    if host != _host() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # exists, owned by another user
    return bool(start) and _process_start(pid) not in ("", start)


def close_dead_runs(connection: sqlite3.Connection) -> list[int]:
    """Mark ``running`` runs whose owner died as ``failed``; return their ids."""
    rows = connection.execute(
        "SELECT r.id, o.owner FROM replay_run r JOIN replay_run_owner o ON o.run_id = r.id "
        "WHERE r.status = 'running'"
    ).fetchall()
    dead = [int(run_id) for run_id, owner in rows if owner_is_dead(str(owner))]
    if dead:
        connection.execute("BEGIN IMMEDIATE")
        try:
            connection.executemany(
                "UPDATE replay_run SET status = 'failed', finished_at = ? WHERE id = ? AND status = 'running'",
                [(utc_now(), run_id) for run_id in dead],
            )
            connection.execute("COMMIT")
        except Exception:
            connection.execute("ROLLBACK")
            raise
    return dead
