"""read_trajectory_bytes: record boundaries, tolerant decoding, issues that name file/line/reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.corpus.jsonl import read_trajectory_bytes, read_trajectory_file


def rec(tid: str, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "trajectory_id": tid,
        "timestamp": "2026-09-07T23:16:12Z",
        "task": f"task {tid}",
        "steps": [{"step_number": 1, "tool": "bash", "input": "ls", "output": None, "error": None}],
        "success": True,
    }
    record.update(extra)
    return record


def line(tid: str, **extra: Any) -> str:
    return json.dumps(rec(tid, **extra))


def read(text: str | bytes, file: str = "f.jsonl"):  # noqa: ANN201
    data = text.encode("utf-8") if isinstance(text, str) else text
    return read_trajectory_bytes(data, file)


def ids(result) -> list[str]:  # noqa: ANN001
    return [r.trajectory_id for r in result.records]


def test_one_object_per_line_with_blank_lines_and_no_trailing_newline() -> None:
    result = read(f"{line('A')}\n\n  \n{line('B')}")
    assert ids(result) == ["A", "B"]
    assert [(r.line, r.end_line) for r in result.records] == [(1, 1), (4, 4)]
    assert result.issues == []


def test_truncated_line_is_an_issue_and_neighbours_still_import() -> None:
    result = read(f"{line('A')}\n{line('B')[:30]}\n{line('C')}\n")
    assert ids(result) == ["A", "C"]
    [issue] = result.issues
    assert (issue.file, issue.line) == ("f.jsonl", 2)
    assert issue.reason.startswith("not valid JSON")


def test_success_maybe_is_reported_with_field_and_reason() -> None:
    result = read(f"{line('A')}\n{line('B', success='maybe')}\n{line('C')}\n")
    assert ids(result) == ["A", "C"]
    [issue] = result.issues
    assert (issue.line, issue.field) == (2, "success")
    assert "expected a boolean" in issue.reason and "maybe" in issue.reason


def test_step_without_tool_is_reported_with_the_step_path() -> None:
    result = read(f"{line('A', steps=[{'step_number': 1}])}\n{line('B')}\n")
    assert ids(result) == ["B"]
    assert (result.issues[0].line, result.issues[0].field) == (1, "steps[0].tool")


def test_json_that_is_not_an_object_is_an_issue() -> None:
    result = read(f'[1, 2]\n"text"\n{line("A")}\n')
    assert ids(result) == ["A"]
    assert [(i.line, "expected a JSON object" in i.reason) for i in result.issues] == [(1, True), (2, True)]


def test_invalid_utf8_costs_only_its_own_line() -> None:
    bad = line("B").encode().replace(b"task B", b"task \xff\xfe")
    data = line("A").encode() + b"\n" + bad + b"\n" + line("C").encode() + b"\n"
    result = read(data)
    assert ids(result) == ["A", "C"]
    [issue] = result.issues
    assert issue.line == 2 and "invalid UTF-8" in issue.reason


def test_utf8_bom_is_stripped_and_noted() -> None:
    result = read(b"\xef\xbb\xbf" + f"{line('A')}\n{line('B')}\n".encode())
    assert ids(result) == ["A", "B"] and result.issues == []
    assert not result.records[0].raw_text.startswith("\ufeff")
    assert any("BOM" in n.reason for n in result.records[0].notes)


def test_crlf_and_lone_cr_line_endings() -> None:
    result = read(f"{line('A')}\r\n{line('B')}\r{line('C')}\r\n")
    assert ids(result) == ["A", "B", "C"]
    assert [r.line for r in result.records] == [1, 2, 3]
    assert not result.records[0].raw_text.endswith("\r")


def test_pretty_printed_record_between_single_line_ones() -> None:
    pretty = json.dumps(rec("B", task="braces { in } strings \"{\""), indent=2)
    result = read(f"{line('A')}\n{pretty}\n\n{line('C')}\n")
    assert ids(result) == ["A", "B", "C"] and result.issues == []
    record = result.records[1]
    assert record.line == 2 and record.end_line == 2 + pretty.count("\n")
    assert record.raw_text == pretty
    assert record.data["task"] == 'braces { in } strings "{"'


def test_multi_line_record_truncated_at_eof_is_reported_not_dropped() -> None:
    pretty = json.dumps(rec("B"), indent=2)
    cut = "\n".join(pretty.splitlines()[:5])
    result = read(f"{line('A')}\n{cut}\n")
    assert ids(result) == ["A"]
    [issue] = result.issues
    assert issue.line == 2 and "truncated" in issue.reason


def test_duplicate_ids_are_kept_and_noted_with_the_first_line() -> None:
    result = read(f"{line('A')}\n{line('A', task='other')}\n{line('B')}\n")
    assert ids(result) == ["A", "A", "B"] and result.issues == []
    [note] = result.records[1].notes
    assert note.field == "trajectory_id" and "line 1" in note.reason
    assert [(n.file, n.line) for n in result.notes] == [("f.jsonl", 2)]


def test_data_is_kept_exactly_as_written() -> None:
    raw = (
        '{"zeta": 1, "trajectory_id": "A", "timestamp": "t", "task": "line1\\\\nline2 \\u00e9", '
        '"steps": [], "success": "false", "n": 1.0, "big": 123456789012345678901234567890, "alpha": null}'
    )
    [record] = read(raw + "\n").records
    assert list(record.data) == ["zeta", "trajectory_id", "timestamp", "task", "steps", "success", "n", "big", "alpha"]
    assert record.data["task"] == "line1\\nline2 é"  # literal backslash-n stays two characters
    assert record.data["success"] == "false" and record.success is False  # raw kept, coerced view
    assert isinstance(record.data["n"], float) and record.data["big"] == 123456789012345678901234567890
    assert record.raw_text == raw


def test_convenience_properties() -> None:
    [with_rule, without] = read(
        line('A', domain='git', failure_class='git/push', failure_point='step_1', expected_outcome='should_extract',
             expected_rule='') + "\n"
        f"{json.dumps({**rec('x'), 'trajectory_id': '', 'id': 'B'})}\n"
    ).records
    assert (with_rule.domain, with_rule.failure_class, with_rule.failure_point) == ("git", "git/push", "step_1")
    assert (with_rule.expected_outcome, with_rule.expected_rule, with_rule.task) == ("should_extract", "", "task A")
    assert without.trajectory_id == "B" and without.expected_rule is None and without.domain is None


def test_duplicate_json_keys_keep_the_last_value_and_are_noted() -> None:
    raw = line("A")[:-1] + ', "task": "second"}'
    [record] = read(raw).records
    assert record.data["task"] == "second"
    assert any(n.field == "task" and "more than once" in n.reason for n in record.notes)


def test_invalid_json_reports_the_file_line_of_the_error() -> None:
    pretty = json.dumps(rec("B"), indent=2).replace('"task": "task B"', '"task": oops')
    result = read(f"{line('A')}\n{pretty}\n")
    [issue] = result.issues
    bad_line = 2 + next(i for i, text in enumerate(pretty.splitlines()) if "oops" in text)
    assert issue.line == 2 and f"line {bad_line}," in issue.reason


def test_missing_file_is_an_issue_not_an_exception(tmp_path: Path) -> None:
    result = read_trajectory_file(tmp_path / "nope.jsonl", "nope.jsonl")
    assert result.records == [] and result.issues[0].file == "nope.jsonl"
    assert "could not read" in result.issues[0].reason


def test_file_label_defaults_to_the_path(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(line("A") + "\n{bad\n", encoding="utf-8")
    result = read_trajectory_file(path)
    assert result.file == path.as_posix() and result.issues[0].file == path.as_posix()
