"""Untrusted text made safe to show: on a terminal, and with its direction controls visible.

Corpus folder names, file names, ids and record fields come from whoever wrote the corpus.
Printed raw, an ESC sequence in a folder name can recolour, retitle or rewrite the user's
terminal; a right-to-left override (U+202E) makes ``exe.txt`` read as ``txt.exe``. So text
from a corpus goes through :func:`terminal_safe` before any print, and bidi controls are
shown as visible ``<U+202E>`` marks (here and in the GUI) instead of being applied.
"""

from __future__ import annotations

import re

# Explicit direction embeddings, overrides, isolates and marks (Unicode bidi controls).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_BIDI_RE = re.compile("[" + "".join(sorted(BIDI_CONTROLS)) + "]")
# Every C0/C1 control character but tab and newline: ESC starts terminal escape sequences,
# CR rewrites the line, BS erases; with ESC shown as text, "[31m" after it is harmless text.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def show_bidi(text: str) -> str:
    """Replace every bidi control with a visible ``<U+XXXX>`` mark."""
    # str.find per control is a fast scan; the regex is only run when one is present (a
    # 10 MB field costs milliseconds, not the regex's hundreds).
    if not any(control in text for control in BIDI_CONTROLS):
        return text
    return _BIDI_RE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


# Every ASCII punctuation character may be backslash-escaped in CommonMark, and escaping all
# of them leaves no link, image, heading, emphasis, table cell, HTML tag or entity to form.
_MD_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def markdown_text(text: str) -> str:
    """``text`` as literal Markdown inline text: every punctuation character escaped, line
    breaks and other control characters shown as ``\\xNN`` (a newline could otherwise start
    a heading or end a table row), bidi controls visible."""
    text = _MD_PUNCTUATION.sub(r"\\\1", show_bidi(text))
    return _CONTROL_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace("\n", "\\x0a").replace("\t", "\\x09"))


def markdown_code(text: str) -> str:
    """``text`` as a Markdown code span shown literally: a fence longer than any backtick
    run inside, control characters as ``\\xNN``, ``|`` escaped (GFM splits table cells on
    it even inside code), bidi controls visible."""
    text = _CONTROL_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", show_bidi(text).replace("\n", "\\x0a"))
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    cell_safe = text.replace("|", "\\|")
    return f"{fence}{pad}{cell_safe}{pad}{fence}"


def terminal_safe(text: str, keep_newlines: bool = False) -> str:
    """Text a terminal prints literally: control characters (ESC, CR, BS, ...) shown as
    ``\\xNN`` so nothing is applied or vanishes, bidi controls visible. Newlines become
    ``\\n`` unless ``keep_newlines`` (a one-line message must stay one line)."""
    if not keep_newlines:
        text = text.replace("\r\n", "\\n").replace("\n", "\\n")
    return show_bidi(_CONTROL_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", text))
