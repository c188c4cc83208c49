"""Reading trajectory JSONL files into records and per-record issues. Never raises.

Record boundaries follow the 0.3.1 loader (``load_trajectories``) so that both readers see
the same records: one JSON object per non-blank line, except that a line which is exactly
``{`` (after stripping) opens a pretty-printed record that runs until its braces balance
(braces inside strings ignored; blank lines inside are skipped). Line breaks are ``\\n``,
``\\r\\n`` and a lone ``\\r``, as in Python's universal-newline text mode the loader uses.
The lines and record boundaries are ``core.corpus.jsonl_lines``'s; this module parses and
validates each record.

Where the reference is fragile we are deliberately more tolerant, and say so:

* Decoding is per line, so invalid UTF-8 costs only the record it sits in (the reference
  aborts the whole file with ``UnicodeDecodeError``).
* A leading UTF-8 BOM is stripped (the reference fails the first record on it); the record
  gets a note saying so.
* A multi-line record still open at end of file is one issue, never silently dropped (#773).

``data`` is the object exactly as ``json.loads`` parsed it: key order, unknown keys, numbers
and literal backslash-n sequences are kept; nothing is coerced. Coerced views live in
properties.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.corpus.hostile import surrogate_field, surrogate_reason
from core.corpus.jsonl_lines import Chunk, record_chunks
from core.corpus.limits import trajectory_oversize
from core.corpus.strict_json import (
    AS_STRING,
    LONG_INTEGER,
    LossyNumberError,
    duplicate_key_note,
    exact_float,
    pairs_hook,
    refuse_constant,
)
from core.corpus.validation import (
    FieldProblem,
    describe_value,
    effective_trajectory_id,
    parse_strict_bool,
    text_like_reference,
    validate_trajectory,
)

_BOM = b"\xef\xbb\xbf"
# One record at most (issue 25 item 5): importing a record holds its text, its parsed object,
# its stored JSON and SQLite's copies of the row, about 10 times its size at the peak, so a
# 256 MB line (the file limit) needed ~5 GB. The real corpora's largest record is 12 KB.
MAX_RECORD_BYTES = 32 * 1024 * 1024
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


@dataclass(frozen=True)
class RecordIssue:
    """A record that could not be imported (or a file that could not be read).

    ``line`` is the 1-based first line of the record; None when the problem is not tied to a
    line (an unreadable file, a YAML file without position information).
    """

    file: str
    line: int | None
    field: str | None
    reason: str


@dataclass(frozen=True)
class TrajectoryRecord:
    """One accepted trajectory record, lossless.

    ``raw_text`` is the record's text as in the file (BOM and the final line ending removed;
    inner line breaks of a pretty-printed record normalised to ``\\n``). ``notes`` are the
    ``note``-level problems: accepted oddities a reviewer may want to see.
    """

    line: int
    end_line: int
    raw_text: str
    data: dict[str, Any]
    notes: list[FieldProblem] = field(default_factory=list)

    @property
    def trajectory_id(self) -> str:
        """The id the reference model uses: ``trajectory_id``, else ``id`` when that is empty."""
        return effective_trajectory_id(self.data)[1]

    @property
    def success(self) -> bool:
        """``success`` with the strict #769 coercion (accepted records always have one)."""
        return bool(parse_strict_bool(self.data.get("success")))

    @property
    def task(self) -> str:
        return text_like_reference(self.data.get("task", "")) or ""

    @property
    def domain(self) -> str | None:
        return _optional_text(self.data.get("domain"))

    @property
    def failure_class(self) -> str | None:
        return _optional_text(self.data.get("failure_class"))

    @property
    def failure_point(self) -> str | None:
        return _optional_text(self.data.get("failure_point"))

    @property
    def expected_outcome(self) -> str | None:
        return _optional_text(self.data.get("expected_outcome"))

    @property
    def expected_rule(self) -> str | None:
        """The gold rule sentence; ``""`` means "no rule expected", None means key absent/null."""
        return _optional_text(self.data.get("expected_rule"))

    @property
    def quality_label(self) -> str | None:
        return _optional_text(self.data.get("quality_label"))


@dataclass(frozen=True)
class TrajectoryFileResult:
    """Everything read from one JSONL file: accepted records and the issues of the rest."""

    file: str
    records: list[TrajectoryRecord]
    issues: list[RecordIssue]

    @property
    def notes(self) -> list[RecordIssue]:
        """The records' notes flattened into file/line form, for a per-file listing."""
        return [
            RecordIssue(self.file, record.line, note.field or None, note.reason)
            for record in self.records
            for note in record.notes
        ]


def _optional_text(value: object) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else text_like_reference(value)


def read_trajectory_file(path: Path, file: str | None = None) -> TrajectoryFileResult:
    """Read a JSONL file; ``file`` is the label used in results (default: the path as given)."""
    label = file if file is not None else Path(path).as_posix()
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return TrajectoryFileResult(label, [], [RecordIssue(label, None, None, f"could not read file: {exc}")])
    return read_trajectory_bytes(data, label)


def record_oversize_reason(size: int, limit: int, span: str = "") -> str:
    return (f"record{span} is {size:,} bytes, over the {limit:,}-byte limit for one record "
            f"(importing a record takes about 10 times its size in memory); skipped — split it or shorten its fields")


def read_trajectory_bytes(data: bytes, file: str, max_record_bytes: int = MAX_RECORD_BYTES) -> TrajectoryFileResult:
    """Split, decode, parse and validate; bad records become issues, good neighbours still load."""
    records: list[TrajectoryRecord] = []
    issues: list[RecordIssue] = []
    try:
        raw = memoryview(data)  # lines are slices of it, decoded straight to text: no copy of the bytes
        had_bom = bytes(raw[: len(_BOM)]) == _BOM
        if had_bom:
            raw = raw[len(_BOM) :]
        seen_ids: dict[str, int] = {}
        for chunk in record_chunks(raw, max_record_bytes):
            try:
                outcome = _read_chunk(chunk, file)
            except Exception as exc:  # noqa: BLE001 — last line of defence: never raise
                outcome = RecordIssue(file, chunk.first_line, None, f"internal error while reading: {exc!r}")
            if isinstance(outcome, RecordIssue):
                issues.append(outcome)
                continue
            if had_bom and outcome.line == 1:
                outcome.notes.insert(
                    0,
                    FieldProblem("", "file starts with a UTF-8 BOM (stripped); the 0.3.1 loader fails this record", "note"),
                )
            _note_duplicate_id(outcome, seen_ids)
            records.append(outcome)
    except Exception as exc:  # noqa: BLE001 — e.g. a non-bytes argument
        issues.append(RecordIssue(file, None, None, f"internal error while reading file: {exc!r}"))
    return TrajectoryFileResult(file, records, issues)


def _note_duplicate_id(record: TrajectoryRecord, seen: dict[str, int]) -> None:
    """Ids are not unique in the corpora (reference doc §1.7); keep both, but say so."""
    tid = record.trajectory_id
    if tid in seen:
        record.notes.append(
            FieldProblem(
                "trajectory_id",
                f"duplicate id {tid!r} in this file (first at line {seen[tid]}); kept — records are keyed by file and line",
                "note",
            )
        )
    else:
        seen[tid] = record.line


def _read_chunk(chunk: Chunk, file: str) -> TrajectoryRecord | RecordIssue:
    """Turn one chunk into a record or the single issue explaining why it is not one."""
    span = _span(chunk)
    if chunk.oversize:
        return RecordIssue(file, chunk.first_line, None, record_oversize_reason(chunk.size, chunk.oversize, span))
    if chunk.truncated:
        return RecordIssue(
            file,
            chunk.first_line,
            None,
            f"truncated: the multi-line record opened at line {chunk.first_line} is not closed "
            f"before the end of the file (line {chunk.last_line})",
        )
    if chunk.bad_utf8:
        where, error = chunk.bad_utf8[0]
        at = f" on line {where}" if where != chunk.first_line else ""
        return RecordIssue(file, chunk.first_line, None, f"{error}{at}; record{span} skipped")
    duplicate_keys: list[str] = []
    parse_text = "\n".join(text for _, text, _ in chunk.parse_lines)
    try:
        obj = json.loads(parse_text, object_pairs_hook=pairs_hook(duplicate_keys),
                         parse_constant=refuse_constant, parse_float=exact_float)
    except LossyNumberError as exc:
        return RecordIssue(file, chunk.first_line, None, f"{exc.what}; record{span} skipped — {exc.advice}")
    except json.JSONDecodeError as exc:
        line, column = _file_position(chunk, exc.lineno, exc.colno)
        return RecordIssue(file, chunk.first_line, None, f"not valid JSON: {exc.msg} (line {line}, column {column})")
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # Python's own limit, with its advice text
            return RecordIssue(file, chunk.first_line, None, f"{LONG_INTEGER}; record{span} skipped — {AS_STRING}")
        return RecordIssue(file, chunk.first_line, None, f"not valid JSON{span}: {exc}")
    except RecursionError as exc:
        return RecordIssue(file, chunk.first_line, None, f"not valid JSON{span}: {exc}")
    if not isinstance(obj, dict):
        return RecordIssue(file, chunk.first_line, None, f"expected a JSON object{span}, got {describe_value(obj)}")
    # A lone surrogate can only come from a \uD800-\uDFFF escape: without one in the text the
    # walk (which serialises the whole object once) is skipped.
    bad_field = surrogate_field(obj) if _SURROGATE_ESCAPE.search(parse_text) else None
    del parse_text
    if bad_field is not None:
        # "\ud800" is valid JSON but not Unicode text: it could be neither hashed nor stored.
        return RecordIssue(file, chunk.first_line, bad_field or None, f"{_surrogate_in(obj, bad_field)}; record{span} skipped")
    problems = validate_trajectory(obj)
    # The reference model's refusals first, then the store's length limits (core.corpus.limits).
    errors = [p for p in problems if p.is_error] + trajectory_oversize(obj)
    if errors:
        return RecordIssue(file, chunk.first_line, errors[0].field or None, _summarise(errors))
    notes = [p for p in problems if not p.is_error]
    notes.extend(FieldProblem(key, duplicate_key_note(key), "note") for key in duplicate_keys)
    return TrajectoryRecord(
        line=chunk.first_line,
        end_line=chunk.last_line,
        raw_text="\n".join(chunk.texts),
        data=obj,
        notes=notes,
    )


def _surrogate_in(obj: dict[str, Any], path: str) -> str:
    value: Any = obj
    for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path):
        try:
            value = value[int(index)] if index else value[name] if name in value else name
        except (KeyError, IndexError, TypeError):
            break
    return surrogate_reason(value if isinstance(value, str) else path)


def _span(chunk: Chunk) -> str:
    return f" (lines {chunk.first_line}–{chunk.last_line})" if chunk.last_line != chunk.first_line else ""


def _summarise(errors: list[FieldProblem]) -> str:
    """One issue per bad record: the first error in full, the others listed after it."""
    head = errors[0].reason
    if len(errors) == 1:
        return head
    rest = "; ".join(f"{p.field or 'record'}: {p.reason}" for p in errors[1:])
    return f"{head} (also: {rest})"


def _file_position(chunk: Chunk, lineno: int, colno: int) -> tuple[int, int]:
    """Map a position in the joined, stripped parse text back to the file's line and column."""
    index = min(max(lineno, 1), len(chunk.parse_lines)) - 1
    file_line, _, stripped_left = chunk.parse_lines[index]
    return file_line, colno + stripped_left
