"""Builds the trajectory viewer's document from a ``TrajectoryDetail``.

Everything from the record goes in with ``QTextCursor.insertText`` and a char format, so it
is always plain text: no HTML is ever generated from data, and markup or injection payloads
in a task or a tool output appear exactly as written. The error text and the failure step
are emphasised with formats, and also with words ("error", "FAILURE POINT"), so the
emphasis does not rely on colour alone.

Replay's matched spans (``(field, start, end, kind)`` into the ORIGINAL text of a record
field) are applied afterwards as char formats over the document range where that field's
text was inserted: highlighted, bold and underlined (not colour alone), with steps that
hold a match marked "◆ MATCHED".

Long fields (``long_text``): the builder produces a list of small operations instead of
editing the document directly, so the viewer can run them in time slices; a field longer
than ``ViewerOptions.shortened_chars`` is shown shortened (``shortened`` lists them), and
long runs without spaces go in as several blocks. Bidi control characters are shown as
visible ``<U+202E>`` marks, never applied (an id must not be shown reversed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)

from core.plain import BIDI_CONTROLS, show_bidi
from core.store.dto import TrajectoryDetail

from cauterule_gui import theme
from cauterule_gui.panels.long_text import SHORTENED_CHARS, Operation, Pieces, iter_pieces
from cauterule_gui.plain_text import literal_newlines

STEP_FIELDS = ("input", "output", "error")
_STEP_NUMBER = re.compile(r"(\d+)")
# Char-format property naming the span kind on matched text (exact | token | alias | phrase).
MATCH_PROPERTY = QTextFormat.Property.UserProperty + 1
Span = tuple[str, int, int, str]


@dataclass(frozen=True)
class ViewerOptions:
    literal_newlines: bool = False  # show backslash-n sequences as line breaks
    shortened_chars: int | None = SHORTENED_CHARS  # None: show every field in full


def failure_step_number(failure_point: Any) -> int | None:
    """``failure_point`` is written as "step_3", "3" or 3 across corpora; None if it names no step."""
    if isinstance(failure_point, bool):
        return None
    if isinstance(failure_point, int):
        return failure_point
    if isinstance(failure_point, str):
        match = _STEP_NUMBER.search(failure_point)
        if match:
            return int(match.group(1))
    return None


def as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2)


class _Formats:
    def __init__(self, palette: QPalette) -> None:
        base = QFont()
        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
        muted = palette.color(QPalette.ColorRole.PlaceholderText)

        self.title = QTextCharFormat()
        self.title.setFontWeight(QFont.Weight.Bold)
        self.title.setFontPointSize(base.pointSizeF() * 1.3)
        self.muted = QTextCharFormat()
        self.muted.setForeground(muted)
        self.heading = QTextCharFormat()
        self.heading.setFontWeight(QFont.Weight.Bold)
        self.heading.setFontCapitalization(QFont.Capitalization.AllUppercase)
        self.heading.setFontLetterSpacing(105)
        self.heading.setForeground(muted)
        self.key = QTextCharFormat()
        self.key.setForeground(muted)
        self.value = QTextCharFormat()
        self.step_heading = QTextCharFormat()
        self.step_heading.setFontWeight(QFont.Weight.Bold)
        self.code = QTextCharFormat()
        self.code.setFont(fixed)
        self.error = QTextCharFormat(self.code)
        self.error.setForeground(QColor("#ff8a80") if dark else QColor("#b00020"))
        self.error_label = QTextCharFormat()
        self.error_label.setFontWeight(QFont.Weight.Bold)
        self.error_label.setForeground(self.error.foreground())
        self.failure_marker = QTextCharFormat()
        self.failure_marker.setFontWeight(QFont.Weight.Bold)
        self.failure_marker.setForeground(QColor("#ffd180") if dark else QColor("#8a4b00"))
        self.failure_background = QColor("#4a3500") if dark else QColor("#fff3cd")
        self.error_background = QColor("#3d1414") if dark else QColor("#fdecea")
        self.empty = QTextCharFormat(self.muted)
        self.empty.setFontItalic(True)
        high = theme.swatch("highlight", palette)
        assert high is not None
        self.match = QTextCharFormat()
        self.match.setBackground(high.background)
        self.match.setForeground(high.foreground)
        self.match.setFontWeight(QFont.Weight.Bold)
        self.match.setFontUnderline(True)
        self.match_marker = QTextCharFormat()
        self.match_marker.setFontWeight(QFont.Weight.Bold)
        self.match_marker.setBackground(high.background)
        self.match_marker.setForeground(high.foreground)


def _offset(original: str, offset: int, literal: bool) -> int:
    """Position in the shown text of ``offset`` in the original (\\n may be shown as one
    char; a bidi control as a several-character mark)."""
    offset = max(0, min(offset, len(original)))
    if not literal and not any(c in BIDI_CONTROLS for c in original[:offset]):
        return offset
    prefix = literal_newlines(original[:offset]) if literal else original[:offset]
    return len(show_bidi(prefix))


class TrajectoryDocumentBuilder:
    def __init__(self, document: QTextDocument, palette: QPalette, options: ViewerOptions) -> None:
        self._doc = document
        self._fmt = _Formats(palette)
        self._options = options
        self._cursor = QTextCursor(document)
        self._first_block = True
        self._spans: dict[str, list[tuple[int, int, str]]] = {}
        # (document position, field, original text, pieces shown, characters shown)
        self._placed: list[tuple[int, str, str, Pieces, int]] = []
        self._ops: list[Operation] = []
        self.first_match: int | None = None
        self.shortened: list[tuple[str, int]] = []  # (field, full length) of fields shown shortened

    # -- primitives --------------------------------------------------------------------
    def _text(self, value: Any) -> str:
        text = as_text(value)
        return show_bidi(literal_newlines(text) if self._options.literal_newlines else text)

    def _block(self, *, top: float = 0, left: float = 0, background: QColor | None = None) -> None:
        self._ops.append(lambda: self._do_block(top, left, background))

    def _do_block(self, top: float, left: float, background: QColor | None) -> None:
        block = QTextBlockFormat()
        block.setTopMargin(top)
        block.setLeftMargin(left)
        if background is not None:
            block.setBackground(background)
        if self._first_block:
            self._cursor.setBlockFormat(block)
            self._first_block = False
        else:
            self._cursor.insertBlock(block, QTextCharFormat())

    def _insert(self, text: str, fmt: QTextCharFormat) -> None:
        # insertText turns "\n" into new blocks that inherit the current block format.
        self._ops.append(lambda: self._cursor.insertText(text, fmt))

    def _source(self, field: str, value: Any) -> Any:
        """A non-string value with matches is shown as the matcher read it (``str()``)."""
        if field in self._spans and value and not isinstance(value, str):
            return str(value)
        return value

    def _insert_field(self, field: str, value: Any, fmt: QTextCharFormat) -> None:
        """Insert a record field's text, remembering where it went so spans can be applied."""
        value = self._source(field, value)
        original = as_text(value)
        limit = self._options.shortened_chars
        short = limit is not None and len(original) > limit
        if short:
            self.shortened.append((field, len(original)))
        self._ops.append(lambda: self._insert_pieces(field, value, original[:limit] if short else original,
                                                     len(original) if short else None, fmt))

    def _insert_pieces(self, field: str, value: Any, original: str, full: int | None,
                       fmt: QTextCharFormat) -> Iterator[None]:
        """Steps of inserting one field: the text is transformed and cut lazily, and each
        piece goes in as its own block (same block format), so no step takes long."""
        shown = self._text(original)
        pieces = Pieces([])
        if field in self._spans and isinstance(value, str):
            self._placed.append((self._cursor.position(), field, value, pieces, len(shown)))
        yield
        for index, part in enumerate(iter_pieces(shown, pieces.cuts)):
            if index:
                self._cursor.insertBlock()
            self._cursor.insertText(part, fmt)
            yield
        if full is not None:
            self._cursor.insertText(f"  … shortened: the first {len(original):,} of {full:,} characters "
                                    "(Show all shows the rest)", self._fmt.empty)

    def _field(self, key: str, value: Any, *, left: float = 0, fmt: QTextCharFormat | None = None) -> None:
        self._block(left=left)
        self._insert(f"{key}: ", self._fmt.key)
        if as_text(self._source(key, value)):
            self._insert_field(key, value, fmt or self._fmt.value)
        else:
            self._insert("— (absent)", self._fmt.empty)

    def _apply_spans(self) -> None:
        literal = self._options.literal_newlines
        cursor = QTextCursor(self._doc)
        for position, field, original, pieces, shown in self._placed:
            for start, end, kind in self._spans.get(field, ()):
                a_shown = _offset(original, start, literal)
                b_shown = min(_offset(original, end, literal), shown)
                if b_shown <= a_shown:
                    continue  # empty, or beyond the part of a shortened field that is shown
                a = position + pieces.doc_offset(a_shown)
                b = position + pieces.doc_offset(b_shown)
                cursor.setPosition(a)
                cursor.setPosition(b, QTextCursor.MoveMode.KeepAnchor)
                fmt = QTextCharFormat(self._fmt.match)
                fmt.setProperty(MATCH_PROPERTY, kind)
                fmt.setToolTip(f"matched by replay ({kind})")
                cursor.mergeCharFormat(fmt)
                self.first_match = a if self.first_match is None else min(self.first_match, a)

    # -- document ----------------------------------------------------------------------
    def build(self, detail: TrajectoryDetail, spans: Sequence[Span] = ()) -> None:
        """Build the whole document now (one edit block)."""
        ops = self.operations(detail, spans)
        self._cursor.beginEditBlock()
        try:
            for op in ops:
                for _step in op() or ():
                    pass
        finally:
            self._cursor.endEditBlock()

    def operations(self, detail: TrajectoryDetail, spans: Sequence[Span] = (),
                   record: dict[str, Any] | None = None) -> list[Operation]:
        """The document as a list of small operations, to run in order (all at once or in
        slices). ``record``: the detail's parsed record, if the caller already has it."""
        record = detail.record if record is None else record
        self._doc.clear()
        self._cursor = QTextCursor(self._doc)
        self._first_block = True
        self._spans = {}
        self._placed = []
        self._ops = []
        self.shortened = []
        self.first_match = None
        for field, start, end, kind in spans:
            self._spans.setdefault(str(field), []).append((int(start), int(end), str(kind)))
        self._header(detail)
        self._metadata(detail, record)
        self._section("Task")
        self._block(left=4)
        task = record.get("task", detail.task)
        if as_text(self._source("task", task)):
            self._insert_field("task", task, self._fmt.value)
        self._steps(record.get("steps"), failure_step_number(record.get("failure_point", detail.failure_point)))
        self._ops.append(self._apply_spans)
        return self._ops

    def _header(self, detail: TrajectoryDetail) -> None:
        self._block()
        self._insert(show_bidi(detail.trajectory_id), self._fmt.title)
        self._block()
        # Files are named relative to the import root, so they usually start with the corpus.
        where = f"{detail.file}:{detail.line}"
        if not detail.file.startswith(detail.corpus + "/"):
            where = f"{detail.corpus}  ·  {where}"
        self._insert(show_bidi(where), self._fmt.muted)

    def _section(self, title: str) -> None:
        self._block(top=10)
        self._insert(title, self._fmt.heading)

    def _metadata(self, detail: TrajectoryDetail, record: dict[str, Any]) -> None:
        self._section("Metadata")
        self._field("success", "true" if detail.success else "false", left=4)
        self._field("failure_class", record.get("failure_class"), left=4)
        failure_point = record.get("failure_point")
        self._field("failure_point", failure_point, left=4,
                    fmt=self._fmt.failure_marker if failure_point not in (None, "") else None)
        self._field("domain", record.get("domain"), left=4)
        self._field("expected_outcome", record.get("expected_outcome"), left=4)
        self._field("expected_rule", record.get("expected_rule"), left=4)

    def _steps(self, steps: Any, failure_step: int | None) -> None:
        if not isinstance(steps, list) or not steps:
            self._section("Steps")
            self._block(left=4)
            self._insert("No steps recorded.", self._fmt.empty)
            return
        self._section(f"Steps ({len(steps)})")
        for position, step in enumerate(steps, start=1):
            self._step(position, step, failure_step)

    def _step_matched(self, index: int) -> bool:
        prefix = f"steps[{index}]."
        return any(field.startswith(prefix) for field in self._spans)

    def _step(self, position: int, step: Any, failure_step: int | None) -> None:
        index = position - 1  # spans name steps by their index in the record's list
        if not isinstance(step, dict):
            self._block(top=6, left=4)
            self._insert(f"Step {position}: ", self._fmt.step_heading)
            self._insert(self._text(step), self._fmt.code)
            return
        number = step.get("step_number", position)
        is_failure = failure_step is not None and number == failure_step
        background = self._fmt.failure_background if is_failure else None
        self._block(top=8, left=4, background=background)
        tool = self._text(step.get("tool")) or "(no tool)"
        self._insert(f"Step {number}  ·  ", self._fmt.step_heading)
        self._insert(tool, self._fmt.step_heading)
        if is_failure:
            self._insert("    ⚠ FAILURE POINT", self._fmt.failure_marker)
        if self._step_matched(index):
            self._insert("    ", self._fmt.step_heading)
            self._insert("◆ MATCHED", self._fmt.match_marker)
        for key in STEP_FIELDS:
            value = step.get(key)
            field = f"steps[{index}].{key}"
            if key == "error":
                if value in (None, ""):
                    continue
                self._block(left=20, background=self._fmt.error_background)
                self._insert("error: ", self._fmt.error_label)
                self._insert_field(field, value, self._fmt.error)
                continue
            self._block(left=20, background=background)
            self._insert(f"{key}: ", self._fmt.key)
            if as_text(self._source(field, value)):
                self._insert_field(field, value, self._fmt.code)
            else:
                self._insert("—", self._fmt.empty)
