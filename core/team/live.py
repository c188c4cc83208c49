"""Live changes from a team store: PostgreSQL ``LISTEN/NOTIFY`` turned into callbacks (no Qt).

Every committed change to a table a window shows is announced by the server
(``NOTIFY workbench_changes, '<table>'``, revision ``0003_team``), by whoever made it: another
reviewer's window, the CLI, a replay process. :class:`ChangeFeed` holds one connection of its
own that ``LISTEN``s; its thread blocks on the socket (no polling), gathers what arrives within
``settle_s`` and calls ``callback(kinds)`` once with the set of kinds that changed
(:data:`KINDS`). The callback runs on the feed's thread: a GUI hands it to its own thread (see
``cauterule_gui/live_changes.py``). A dropped connection is re-opened with back-off, and a
reconnect reports every kind (something may have changed while it was away).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

CHANNEL = "workbench_changes"
# Table -> the kind of change a screen refreshes for (the names of the GUI executor's
# changes_applied kinds, so a notice from another reviewer refreshes what a local write would).
KINDS: dict[str, str] = {
    "decision": "decisions", "promotion": "promotion", "label": "labels", "adjudication": "labels",
    "agreement_session": "agreement", "agreement_judgement": "agreement", "agreement_mark": "agreement",
    "agreement_assignment": "agreement",
    "replay_run": "replay", "rule": "rules", "rule_version": "rules", "corpus": "corpora", "trajectory": "corpora",
    "waiver": "marks", "evidence_view": "marks",
}
ALL_KINDS = frozenset(KINDS.values())


def _add_kind(kinds: set[str], payload: str) -> None:
    """Only a table the triggers announce counts: any login may NOTIFY the channel with any text."""
    if payload in KINDS:
        kinds.add(KINDS[payload])


class ChangeFeed:
    """Calls ``callback(kinds)`` after other connections commit changes to a PostgreSQL store."""

    def __init__(self, url: str, callback: Callable[[frozenset[str]], None], settle_s: float = 0.1) -> None:
        self._url = getattr(url, "connect_url", str(url))
        self._callback = callback
        self._settle_s = settle_s
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._connection: Any = None
        self._thread = threading.Thread(target=self._run, name="workbench-change-feed", daemon=True)

    def start(self, timeout_s: float = 10.0) -> ChangeFeed:
        """Start listening; returns once LISTEN is in place (so no later commit is missed)."""
        self._thread.start()
        self._ready.wait(timeout_s)
        return self

    @property
    def listening(self) -> bool:
        return self._ready.is_set() and not self._stop.is_set()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _connect(self) -> Any:
        import psycopg

        connection = psycopg.connect(self._url, autocommit=True)
        connection.execute(f"LISTEN {CHANNEL}")
        return connection

    def _run(self) -> None:
        delay, first = 0.5, True
        while not self._stop.is_set():
            try:
                self._connection = self._connect()
            except Exception:  # server away: try again later, no traceback in the window
                self._stop.wait(delay)
                delay = min(delay * 2, 30.0)
                continue
            delay = 0.5
            if not first:
                self._deliver(set(ALL_KINDS))  # changes may have been missed while disconnected
            first = False
            self._ready.set()
            try:
                self._listen(self._connection)
            except Exception:
                pass  # connection lost: reconnect
            finally:
                try:
                    self._connection.close()
                except Exception:
                    pass

    def _listen(self, connection: Any) -> None:
        while not self._stop.is_set():
            kinds: set[str] = set()
            for notice in connection.notifies(timeout=0.5, stop_after=1):
                _add_kind(kinds, notice.payload)
            if not kinds:
                continue
            # Gather the rest of a burst (one import, one replay chunk) into one callback.
            deadline = time.monotonic() + self._settle_s
            while (left := deadline - time.monotonic()) > 0:
                for notice in connection.notifies(timeout=left):
                    _add_kind(kinds, notice.payload)
            self._deliver(kinds)

    def _deliver(self, kinds: set[str]) -> None:
        if kinds and not self._stop.is_set():
            self._callback(frozenset(kinds))
