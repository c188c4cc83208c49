"""Test records in the CauterRule trajectory format, written as JSONL files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def trajectory(trajectory_id: str, *, task: str = "Deploy the service", success: bool = False,
               domain: str = "devops", failure_class: str | None = "deploy/timeout",
               failure_point: str | None = "step_2", expected_rule: str | None = None,
               steps: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "trajectory_id": trajectory_id,
        "timestamp": "2026-01-01T00:00:00+00:00",
        "task": task,
        "steps": list(steps) if steps is not None else [
            {"step_number": 1, "tool": "shell", "input": "kubectl apply -f app.yaml", "output": "applied",
             "error": None},
            {"step_number": 2, "tool": "shell", "input": "kubectl rollout status deploy/app",
             "output": "", "error": "timed out waiting for rollout"},
        ],
        "success": success,
        "domain": domain,
    }
    if failure_class is not None:
        record["failure_class"] = failure_class
    if failure_point is not None:
        record["failure_point"] = failure_point
    if expected_rule is not None:
        record["expected_rule"] = expected_rule
    return record


def write_jsonl(path: Path, records: Sequence[dict[str, Any] | str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
