"""Writing records back: one line each, raw Unicode, lossless through our reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.corpus.jsonl import read_trajectory_file
from core.corpus.writer import dump_record, write_jsonl

RECORD = {
    "zeta": [1, 2.5, None],
    "trajectory_id": "T-é",
    "timestamp": "t",
    "task": "line1\nline2\r\u2028 and a literal \\n",
    "steps": [{"step_number": 1, "tool": "bash", "state": {"exit_code": 1}}],
    "success": "false",
}


def test_dump_is_one_line_with_raw_unicode() -> None:
    text = dump_record(RECORD)
    assert "\n" not in text and "\r" not in text
    assert "T-é" in text
    assert json.loads(text) == RECORD


def test_written_records_read_back_unchanged_in_order(tmp_path: Path) -> None:
    path = tmp_path / "out" / "t.jsonl"
    assert write_jsonl([RECORD, {**RECORD, "trajectory_id": "T-2"}], path) == 2
    result = read_trajectory_file(path)
    assert result.issues == []
    assert [r.data for r in result.records] == [RECORD, {**RECORD, "trajectory_id": "T-2"}]
    assert list(result.records[0].data) == list(RECORD)
    assert path.read_bytes().endswith(b"}\n")


def test_a_failed_write_leaves_the_existing_file_intact(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("original\n", encoding="utf-8")
    with pytest.raises(TypeError):
        write_jsonl([RECORD, {"bad": object()}], path)
    assert path.read_text(encoding="utf-8") == "original\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.jsonl"]
