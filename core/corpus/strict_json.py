"""JSON values a record cannot keep as written, decided once for every reader (issue 25 item 9).

Python's ``json`` reads ``NaN`` and ``Infinity`` (not JSON: an export holding them would not
be JSON either), turns ``1e-400`` into ``0.0`` and ``1e400`` into infinity without a word,
refuses integers over 4,300 digits with advice about ``sys.set_int_max_str_digits``, and
resolves duplicate keys last-wins silently. The Workbench refuses the record for each number
it cannot keep (file, line and the literal in the issue; its neighbours are imported) and
keeps a record with duplicate keys (last value, as every JSON reader does) with a note at
its file and line, the record's text kept as written.
"""

from __future__ import annotations

import math
import sys
from typing import Any

LONG_INTEGER = f"holds an integer with more than {sys.get_int_max_str_digits():,} digits, longer than the Workbench reads"
AS_STRING = "write it as a string to keep it exactly"


class LossyNumberError(ValueError):
    """A number in a record that JSON or a 64-bit float cannot carry as written."""

    def __init__(self, what: str, advice: str = AS_STRING) -> None:
        super().__init__(what)
        self.what, self.advice = what, advice


def refuse_constant(name: str) -> float:
    raise LossyNumberError(f"holds {name}, which is not standard JSON (RFC 8259)", "write it as a string or null")


def exact_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise LossyNumberError(f"holds the number {literal[:40]}, too large for a 64-bit float (it would become infinity)")
    mantissa = literal.lower().split("e")[0]
    if value == 0.0 and any(c in "123456789" for c in mantissa):
        raise LossyNumberError(f"holds the number {literal[:40]}, too small for a 64-bit float (it would become 0)")
    return value


def duplicate_key_note(key: str) -> str:
    return (f"key {key!r} appears more than once in an object; the last value is kept (the store keeps the "
            "record's text as written, and an export writes the last value)")


def pairs_hook(duplicates: list[str]) -> Any:
    """Build objects exactly as the default decoder does (last value wins), noting duplicate keys."""

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen and key not in duplicates:
                    duplicates.append(key)
                seen.add(key)
        return result

    return hook


NUL_REASON = "contains the NUL character (\\u0000), which the store cannot hold (PostgreSQL text cannot); record skipped"


def nul_field(data: dict[str, Any], raw_text: str) -> str | None:
    """The path of the first value or key holding NUL (``""``: the record's text), or None.

    The parsed values are stored in columns (task, domain, …): JSON's "\\u0000" becomes a real NUL there."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return path
        elif isinstance(item, dict):
            for key, value in item.items():
                child = f"{path}.{key}" if path else str(key)
                if "\x00" in str(key):
                    return child.replace("\x00", "\\u0000")
                stack.append((child, value))
        elif isinstance(item, list | tuple):
            stack.extend((f"{path}[{index}]", value) for index, value in enumerate(item))
    return "" if "\x00" in raw_text else None  # JSON refuses a raw NUL; kept as a last guard
