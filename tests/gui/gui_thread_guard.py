"""Record every SQL statement that runs on the GUI thread (SQLAlchemy's ``before_cursor_execute``).

The store's engine and its read-only view share their event listeners, so one listener sees
every statement the application runs through SQLAlchemy. ``paused()`` lets a test look at the
store to check what was written without that look counting as the application's.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event


class GuiThreadStatements:
    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.seen: list[tuple[str, str, str]] = []  # (what the test was driving, statement, stack)
        self.step = "start"
        self._paused = False

    def _listener(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if not self._paused and threading.current_thread() is threading.main_thread():
            # The application's frames only (SQLAlchemy's are the same for every statement).
            frames = [f for f in traceback.extract_stack()[:-1] if "/site-packages/" not in f.filename
                      and "/gui_thread_guard.py" not in f.filename]
            stack = "".join(traceback.format_list(frames[-8:]))
            self.seen.append((self.step, statement.strip().splitlines()[0][:120], stack))

    def __enter__(self) -> GuiThreadStatements:
        event.listen(self.engine, "before_cursor_execute", self._listener)
        return self

    def __exit__(self, *_exc: object) -> None:
        event.remove(self.engine, "before_cursor_execute", self._listener)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The test itself reads the store (to check a write); not the application's statement."""
        self._paused = True
        try:
            yield
        finally:
            self._paused = False

    def report(self) -> str:
        lines = [f"{len(self.seen)} statement(s) ran on the GUI thread:"]
        shown: set[str] = set()
        for step, statement, stack in self.seen:
            if stack not in shown and len(shown) < 12:
                shown.add(stack)
                lines.append(f"--- while {step}: {statement}\n{stack}")
        return "\n".join(lines)
