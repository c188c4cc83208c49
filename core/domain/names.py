"""The one check of every reviewer name and every reason a user types (issue 25 item 3).

Names and reasons enter through the GUI, the CLI and team files, and end up in indexed
columns, audit events, exports, tables and terminals. So every service that takes one (a
decision, a waiver, a label or ruling, a judgement, an assignment, a what-if edit, a new
candidate) passes it through :func:`checked_name` / :func:`checked_reason` first, and a bad
one is refused with :class:`BadText` saying what is wrong — before anything is written.

* A **name** (reviewer, author, lead, actor) is one line of printable text: no control
  character (C0 — tab and newline included —, DEL, C1), no bidi control (it could make one
  name look like another), at most :data:`MAX_NAME_BYTES` UTF-8 bytes: the store's key limit
  (``core.corpus.limits.MAX_KEY_BYTES``), the one team-file import applies to the same names.
* A **reason** (or a note) is prose: tabs and line breaks are fine, other control characters
  and NUL are not, and it is at most :data:`MAX_REASON_BYTES` (16 KB, several pages: a reason
  is read in the audit log and carried in every team file; a megabyte of it is a mistake).

Both are trimmed; emptiness is the caller's rule (some reasons are optional).
"""

from __future__ import annotations

import re

from core.domain.errors import DomainError
from core.plain import BIDI_CONTROLS, terminal_safe

MAX_NAME_BYTES = 512  # = core.corpus.limits.MAX_KEY_BYTES (the domain layer cannot import it; a test checks)
MAX_REASON_BYTES = 16_384

_NAME_BAD = re.compile("[\x00-\x1f\x7f-\x9f" + "".join(sorted(BIDI_CONTROLS)) + "]")
_REASON_BAD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # tab (09) and newline (0a) allowed


class BadText(DomainError, ValueError):
    """A name or reason was refused; the message says which, and why."""


def _preview(value: str) -> str:
    shown = terminal_safe(value[:40])
    return f"'{shown}…'" if len(value) > 40 else f"'{shown}'"


def _check(value: str, what: str, bad: re.Pattern[str], limit: int) -> str:
    found = bad.search(value)
    if found is not None:
        char = found.group()
        kind = "a NUL character" if char == "\x00" else "a control character"
        raise BadText(f"{what} {_preview(value)} holds {kind} (U+{ord(char):04X} at character {found.start() + 1}); "
                      "nothing was saved")
    size = len(value.encode("utf-8", errors="surrogatepass"))
    if size > limit:
        article = "an" if what[0] in "aeiou" else "a"
        raise BadText(f"{what} {_preview(value)}: {size:,} bytes, over the {limit:,}-byte limit for {article} {what}; "
                      "nothing was saved")
    return value


def checked_name(value: str | None, what: str = "reviewer name") -> str:
    """``value`` trimmed ("" for None), or :class:`BadText`."""
    return _check((value or "").strip(), what, _NAME_BAD, MAX_NAME_BYTES)


def checked_reason(value: str | None, what: str = "reason") -> str | None:
    """``value`` trimmed (None when empty), or :class:`BadText`."""
    text = (value or "").strip()
    return _check(text, what, _REASON_BAD, MAX_REASON_BYTES) if text else None
