"""Every loadable shared-corpus record, read once, with the reference model built from it."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from core.corpus.jsonl import read_trajectory_file
from core.corpus.walk import walk_import_root


@lru_cache(maxsize=1)
def shared_records(root: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """(``file:line``, raw record) for every record the 0.3.1 model accepts."""
    from cauterule.models.trajectory import Trajectory

    out = []
    for item in walk_import_root(Path(root)):
        if item.kind != "trajectories":
            continue
        result = read_trajectory_file(item.abs_path)
        for record in result.records:
            try:
                Trajectory.from_dict(record.data)
            except Exception:  # noqa: BLE001 - the reference refuses it; so does the import
                continue
            out.append((f"{item.rel_path}:{record.line}", record.data))
    return tuple(out)
