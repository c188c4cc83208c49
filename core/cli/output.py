"""Everything the CLI prints goes through the terminal-safe path (``core.plain``).

Corpus folder names, trajectory ids, triggers, directives, reviewer names and reasons come
from whoever wrote the corpus or the store; printed raw, ``eve\\x1b]0;pwned\\x07\\x1b[2J``
retitles and clears the user's terminal. Rather than trusting every ``print`` in every
subcommand to remember :func:`core.plain.terminal_safe`, :func:`terminal_safe_streams` wraps
``sys.stdout`` and ``sys.stderr`` for the whole command, so a subcommand added later is covered
too. Text already made safe passes unchanged (the escapes are plain ASCII).

JSON is printed with :func:`print_json`: ``json.dumps`` escapes C0 controls itself but leaves
C1 controls (U+0080–U+009F, which some terminals obey like ESC), DEL and bidi controls raw;
they are written as ``\\u00XX`` escapes, the same value to a JSON reader and inert on a terminal.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from core.plain import BIDI_CONTROLS, terminal_safe

_JSON_UNSAFE = re.compile("[\x7f-\x9f" + "".join(sorted(BIDI_CONTROLS)) + "]")


def json_text(value: Any, indent: int | None = 2) -> str:
    """``value`` as JSON (Unicode kept readable) with no character a terminal would obey."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def print_json(value: Any) -> None:
    print(json_text(value))


class TerminalSafeStream(io.TextIOBase):
    """A text stream that writes ``terminal_safe(text, keep_newlines=True)`` to ``inner``."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(terminal_safe(text, keep_newlines=True))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def fileno(self) -> int:
        return self.inner.fileno()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self.inner, "encoding", "utf-8"))


@contextlib.contextmanager
def terminal_safe_streams() -> Iterator[None]:
    """Wrap ``sys.stdout`` and ``sys.stderr`` for the block; put the originals back after."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalSafeStream(out), TerminalSafeStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


def export_failure(error: OSError, target: object) -> str:
    """One line for an export that could not be written (a full disk, a read-only folder):
    the folder asked for, the file that failed if known, and that nothing was swapped in."""
    where = f" ({error.filename})" if error.filename and str(error.filename) != str(target) else ""
    return (f"could not write the export to {target}: {error.strerror or error}{where}; "
            "the previous export there, if any, is unchanged")


def quiet_broken_pipe() -> None:
    """The reader of our output went away (``| head``): say nothing, as Unix tools do. Point
    stdout at /dev/null so the interpreter's last flush does not complain either."""
    import os

    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the stream in use (under a test's capture: none, a no-op)
