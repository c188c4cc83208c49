"""Who starts a job: a spy on ``JobRunner.submit`` that records the calling module, so a test can
show a panel's store work goes through the window's ``DatabaseExecutor`` and not straight to the
runner (the executor is what drops late results and announces writes)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from cauterule_gui.jobs.runner import JobRunner

EXECUTOR = "cauterule_gui/db/executor.py"


def spy_submit_callers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Patch ``JobRunner.submit``; the returned list fills with each caller's path (posix, from
    the project root) and the job's name, as ``"path: name"``."""
    callers: list[str] = []
    real = JobRunner.submit

    def spy(self: JobRunner, fn: Any, **kwargs: Any) -> Any:
        frame = sys._getframe(1)
        path = Path(frame.f_code.co_filename).as_posix()
        where = path[path.rfind("cauterule_gui/"):] if "cauterule_gui/" in path else path
        callers.append(f"{where}: {kwargs.get('name')}")
        return real(self, fn, **kwargs)

    monkeypatch.setattr(JobRunner, "submit", spy)
    return callers


def not_through_executor(callers: list[str]) -> list[str]:
    return [c for c in callers if not c.startswith(EXECUTOR + ":")]
