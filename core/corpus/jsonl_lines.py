"""Record boundaries in a trajectory JSONL file: its bytes split into physical lines, each
decoded on its own, and the lines grouped into records (``Chunk``) before any parsing.

The boundaries follow the 0.3.1 loader (``load_trajectories``): one JSON object per non-blank
line, except that a line which is exactly ``{`` (after stripping) opens a pretty-printed record
that runs until its braces balance (``brace_depth``: braces inside strings ignored; blank lines
inside are skipped). Line breaks are ``\\n``, ``\\r\\n`` and a lone ``\\r``. Invalid UTF-8 is
kept as an error on its line, so it costs only its record. ``core.corpus.jsonl`` parses and
validates the chunks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


@dataclass
class Chunk:
    """The physical lines making up one record, before parsing."""

    first_line: int
    last_line: int
    texts: list[str]  # decoded (with replacement chars) line texts, blank ones included
    parse_lines: list[tuple[int, str, int]]  # (file line, stripped text, columns stripped on the left)
    bad_utf8: list[tuple[int, str]]  # (file line, decode error message)
    truncated: bool = False
    size: int = 0  # bytes of the record's lines, line breaks counted as one byte
    oversize: int = 0  # the per-record limit it is over (texts dropped, refused by size); 0: within


def _split_lines(raw: memoryview) -> Iterator[tuple[int, memoryview]]:
    """Physical lines with 1-based numbers; the empty tail after a final newline is dropped.

    Lines are views into ``raw``, not copies: a 200 MB line costs its text, not its bytes twice."""
    start = 0
    number = 0
    for match in _LINE_BREAK.finditer(raw):
        number += 1
        yield number, raw[start : match.start()]
        start = match.end()
    if start < len(raw):
        yield number + 1, raw[start:]


def _decode(line: memoryview) -> tuple[str, str | None]:
    """Decode one line; on invalid UTF-8 return replacement text (for structure) and the error."""
    try:
        return str(line, "utf-8"), None
    except UnicodeDecodeError as exc:
        error = f"invalid UTF-8 at byte {exc.start + 1} ({bytes(line[exc.start:exc.start + 4])!r}…)"
        return str(line, "utf-8", "replace"), error


def brace_depth(text: str) -> int:
    """Net ``{`` minus ``}`` outside string literals, the loader's rule for pretty-printed records.

    State resets per line (JSON strings cannot span lines), and a backslash escapes the next
    character wherever it appears, as in the 0.3.1 loader.
    """
    depth = 0
    in_string = False
    skip_next = False
    for ch in text:
        if skip_next:
            skip_next = False
        elif ch == "\\":
            skip_next = True
        elif ch == '"':
            in_string = not in_string
        elif not in_string:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
    return depth


def record_chunks(raw: memoryview, max_record_bytes: int) -> Iterator[Chunk]:
    """Group physical lines into records following the loader's rules.

    A record over ``max_record_bytes`` keeps only its size and lines (its text is dropped as
    soon as it is over), so it costs no more memory than the bytes already read."""
    open_chunk: Chunk | None = None
    depth = 0
    for number, line_bytes in _split_lines(raw):
        if open_chunk is None and len(line_bytes) > max_record_bytes:
            # Not even decoded: a one-line record this big is refused by its size.
            yield Chunk(first_line=number, last_line=number, texts=[], parse_lines=[], bad_utf8=[],
                         size=len(line_bytes), oversize=max_record_bytes)
            continue
        text, error = _decode(line_bytes)
        stripped = text.strip()
        if open_chunk is not None:
            open_chunk.last_line = number
            open_chunk.size += len(line_bytes) + 1
            if not open_chunk.oversize and open_chunk.size > max_record_bytes:
                open_chunk.oversize = max_record_bytes
                open_chunk.texts, open_chunk.parse_lines, open_chunk.bad_utf8 = [], [], []
            if not open_chunk.oversize:
                open_chunk.texts.append(text)
                if error:
                    open_chunk.bad_utf8.append((number, error))
            if not stripped:
                continue
            if not open_chunk.oversize:
                open_chunk.parse_lines.append((number, stripped, _left_strip_width(text)))
            depth += brace_depth(stripped)
            if depth <= 0:
                yield open_chunk
                open_chunk = None
            continue
        if not stripped:
            continue
        chunk = Chunk(
            first_line=number,
            last_line=number,
            texts=[text],
            parse_lines=[(number, stripped, _left_strip_width(text))],
            bad_utf8=[(number, error)] if error else [],
            size=len(line_bytes),
        )
        if stripped == "{":
            open_chunk, depth = chunk, 1
        else:
            yield chunk
    if open_chunk is not None:
        open_chunk.truncated = True
        yield open_chunk


def _left_strip_width(text: str) -> int:
    return len(text) - len(text.lstrip())
