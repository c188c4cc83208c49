"""Guards against hostile or unlucky input files: text that is not Unicode, YAML alias
bombs, special files, floods of issues. Used by the readers and the importer; never raises.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

# A JSON "\ud800" escape or a YAML "\ud800" parses to a lone surrogate: a Python str that
# cannot be encoded as UTF-8, so it could be neither hashed nor stored.
_SURROGATE = re.compile("[\ud800-\udfff]")
# More nodes than any real rule file has (the largest corpus rule has a few hundred), far
# fewer than an alias bomb expands to (a 492-byte "billion laughs" is 10^9).
MAX_YAML_NODES = 100_000
MAX_ISSUES_PER_FILE = 100
# Bigger than any corpus file we have seen by far; an import must not read /dev/zero-sized input.
DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its ``\\udXXX`` escape (storable, printable)."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def surrogate_field(value: Any) -> str | None:
    """The path (``a.b[2]``; ``""`` for the top) of the first string or key holding a lone
    surrogate, or None when the value is valid Unicode throughout. A surrogate inside a key
    is shown escaped in the path, so the path itself can be stored and printed."""
    try:
        json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")
        return None
    except UnicodeEncodeError:
        pass
    except (ValueError, TypeError, RecursionError):
        pass  # circular or odd values: walk them below
    stack: list[tuple[str, Any]] = [("", value)]
    seen: set[int] = set()
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return path
        elif isinstance(item, dict):
            if id(item) in seen:
                continue
            seen.add(id(item))
            for key, child in item.items():
                key_text = str(key)
                child_path = f"{path}.{escape_surrogates(key_text)}" if path else escape_surrogates(key_text)
                if _SURROGATE.search(key_text):
                    return child_path
                stack.append((child_path, child))
        elif isinstance(item, (list, tuple)):
            if id(item) in seen:
                continue
            seen.add(id(item))
            stack.extend((f"{path}[{i}]", child) for i, child in enumerate(item))
    return None


def surrogate_reason(text: str) -> str:
    found = _SURROGATE.search(text)
    escaped = re.search(r"\\u(d[89a-f][0-9a-f]{2})", text, re.IGNORECASE)
    code = f"\\u{ord(found.group()):04x}" if found else f"\\u{escaped.group(1)}" if escaped else "a surrogate escape"
    return f"contains a lone surrogate ({code}), which is not valid Unicode text"


def yaml_expansion_problem(root: yaml.Node | None, limit: int = MAX_YAML_NODES) -> str | None:
    """Why a composed YAML document must not be constructed, or None.

    Aliases make the node graph a DAG (or, for ``&a [*a]``, a cycle); constructing it expands
    every alias in full. Count the expanded size over the graph (memoised, iteratively, so
    the count itself is cheap) and refuse cycles and expansions past ``limit``.
    """
    if root is None:
        return None
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            total = 1 + sum(size[id(c)] for c in _children(node))
            size[key] = min(total, limit + 1)
            continue
        if key in size:
            continue
        if key in on_path:
            return "recursive YAML alias (a node that contains itself); refused"
        on_path.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in on_path:
                return "recursive YAML alias (a node that contains itself); refused"
            if id(child) not in size:
                stack.append((child, False))
    if len(size) > limit:
        # Written out, not expanded by aliases: a big file (e.g. many rules in one), not a bomb.
        return (f"{len(size):,} YAML values, over the {limit:,}-value limit for one rule file (a rule has a "
                "few hundred); refused — put one rule in each file")
    if size[id(root)] > limit:
        return (f"YAML aliases expand {len(size):,} written values to more than {limit:,} (the limit for one "
                "rule file); refused as an alias bomb")
    return None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


@dataclass(frozen=True)
class FileRead:
    data: bytes | None
    problem: str | None  # why the file was not read (None when data is set)


def read_regular_file(path: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> FileRead:
    """The bytes of a regular file no bigger than ``max_bytes``; otherwise why not.

    Broken links, link loops, FIFOs (whose read would block forever) and devices
    (``/dev/zero`` never ends) are refused by what they are, before anything is read; the
    open is non-blocking and re-checked, so a file swapped for a FIFO meanwhile cannot hang.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return FileRead(None, "broken symbolic link or vanished file; skipped")
    except OSError as error:
        return FileRead(None, f"cannot be read ({error.strerror or error}); skipped")
    problem = _not_regular(info.st_mode) or _too_big(info.st_size, max_bytes)
    if problem:
        return FileRead(None, problem)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        return FileRead(None, f"cannot be read ({error.strerror or error}); skipped")
    try:
        info = os.fstat(fd)
        problem = _not_regular(info.st_mode) or _too_big(info.st_size, max_bytes)
        if problem:
            return FileRead(None, problem)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            # Ask for the size the file has, not the limit: read(n) allocates n bytes first, so
            # read(256 MB) cost 256 MB for every small file of an import.
            want = min(info.st_size, max_bytes) + 1
            data = handle.read(want)
            if len(data) == want and want <= max_bytes:  # it grew since fstat: the rest, still bounded
                data += handle.read(max_bytes + 1 - len(data))
    except OSError as error:
        return FileRead(None, f"cannot be read ({error.strerror or error}); skipped")
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        return FileRead(None, _too_big(len(data), max_bytes))
    return FileRead(data, None)


def _not_regular(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        what = "a named pipe (FIFO)"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        what = "a device"
    elif stat.S_ISSOCK(mode):
        what = "a socket"
    elif stat.S_ISDIR(mode):
        what = "a folder"
    else:
        what = "not a regular file"
    return f"{what}, not a regular file; skipped"


def _too_big(size: int, max_bytes: int) -> str | None:
    if size <= max_bytes:
        return None
    return f"{size:,} bytes, over the {max_bytes:,}-byte limit for one file; skipped"


def cap_issues(issues: Sequence[Any], make_more: Any, limit: int = MAX_ISSUES_PER_FILE) -> list[Any]:
    """At most ``limit`` issues, then one ``make_more(n)`` issue saying how many were left out."""
    if len(issues) <= limit:
        return list(issues)
    return [*issues[:limit], make_more(len(issues) - limit)]
