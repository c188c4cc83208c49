"""Writing trajectory records back as JSONL.

Records are written as parsed (``TrajectoryRecord.data``), not via a model, so unknown keys
and key order survive. One object per line with ``ensure_ascii=False``, as the 0.3.1 library
writer does; json.dumps escapes control characters, so a record is always a single line.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


class NotJsonError(ValueError):
    """A record holds a value JSON cannot carry (NaN or Infinity, stored before they were refused)."""


def dump_record(data: Mapping[str, Any]) -> str:
    """One record as one line of JSON (no line ending).

    ``allow_nan=False``: the importer refuses NaN and Infinity, and a value that still holds
    one (a store from before) fails the export rather than writing a file that is not JSON."""
    try:
        return json.dumps(data, ensure_ascii=False, allow_nan=False)
    except ValueError as error:
        if "Out of range float" not in str(error):
            raise
        record_id = data.get("trajectory_id") or data.get("id") or "?"
        raise NotJsonError(
            f"record {record_id!r} holds NaN or Infinity (imported before the Workbench refused them), which "
            "JSON cannot hold; the export stopped and a previous export there, if any, is unchanged — import "
            "its file again to have the record reported") from error


def write_jsonl(records: Iterable[Mapping[str, Any]], path: Path) -> int:
    """Write records to ``path`` atomically (temp file + rename); return how many were written.

    Atomic so that a failure halfway (a record json cannot encode, a full disk) leaves any
    existing file untouched rather than truncated.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            for record in records:
                handle.write(dump_record(record) + "\n")
                count += 1
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return count
