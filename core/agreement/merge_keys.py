"""Key limits on a team file: an entry whose indexed text is over the store's limits (or holds a
NUL character, which PostgreSQL text cannot) is refused alone, named by file, line, field and
limit, and the entries around it are merged.

A team export (``core.agreement.merge``) carries the keys the store indexes or looks things up
by: a label's ``(corpus, file, trajectory_id)``, reviewer and lead names, a session's uid, a
rule's origin. A PostgreSQL b-tree entry stops at ~2.7 KB, so one 10 KB trajectory id failed
the whole merge there ("index row size ... exceeds maximum") while SQLite took it. The corpus
importer's limits (``core.corpus.limits``, one check: ``text_oversize``) now apply to every such
field before any database sees it, so a file merges the same way on both back ends.

The export is pretty-printed JSON, so a refused field's line is found by walking the file's
text to that field: only for refused entries (the file is parsed once, in C, either way).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from core.corpus.limits import MAX_KEY_BYTES, MAX_PATH_BYTES, text_oversize

JsonPath = tuple[str | int, ...]
_ANY = "*"  # every element of a list (a session's items)
_REVIEWER = "a reviewer name"

# (path inside the entry, limit in UTF-8 bytes, what the value is)
_TRAJECTORY: tuple[tuple[JsonPath, int, str], ...] = (
    (("corpus",), MAX_PATH_BYTES, "a corpus name"),
    (("file",), MAX_PATH_BYTES, "a file's path inside its corpus"),
    (("trajectory_id",), MAX_KEY_BYTES, "a trajectory id"),
    (("content_hash",), MAX_KEY_BYTES, "a content hash"),
)


def _trajectory(*prefix: str | int) -> list[tuple[JsonPath, int, str]]:
    return [((*prefix, *path), limit, what) for path, limit, what in _TRAJECTORY]


FIELDS: dict[str, list[tuple[JsonPath, int, str]]] = {
    "labels": [*_trajectory("trajectory"), (("reviewer",), MAX_KEY_BYTES, _REVIEWER)],
    "adjudications": [*_trajectory("trajectory"), (("lead",), MAX_KEY_BYTES, _REVIEWER),
                      (("chosen_reviewer",), MAX_KEY_BYTES, _REVIEWER)],
    "sessions": [
        (("uid",), MAX_KEY_BYTES, "a session uid"), (("created_by",), MAX_KEY_BYTES, _REVIEWER),
        (("run", "config_hash"), MAX_KEY_BYTES, "a run's config hash"),
        (("run", "corpus_hash"), MAX_KEY_BYTES, "a run's corpus hash"),
        (("items", _ANY, "rule", "origin"), MAX_PATH_BYTES, "a rule's origin (its file's path)"),
        *_trajectory("items", _ANY, "trajectory"),
    ],
    "judgements": [(("session",), MAX_KEY_BYTES, "a session uid"), (("reviewer",), MAX_KEY_BYTES, _REVIEWER)],
}


@dataclass(frozen=True)
class RefusedEntry:
    """One team-file entry that was not merged: where (file, line, field) and why."""

    file: str
    line: int | None  # None: the field could not be found in the text (never for a file Workbench wrote)
    field: str  # a JSON path into the file: labels[3].trajectory.trajectory_id
    reason: str  # the length found, the limit, and that the entry was skipped

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where} {self.field}: {self.reason}"


@dataclass(frozen=True)
class Screened:
    """Which entries of each section are refused (by index), and the issues that say why."""

    skipped: dict[str, frozenset[int]]
    refused: tuple[RefusedEntry, ...]

    def keeps(self, section: str, index: int) -> bool:
        return index not in self.skipped.get(section, frozenset())


def screen(payload: Mapping[str, Any], text: str, file: str) -> Screened:
    """Check every key of every entry against the store's limits, before anything is merged."""
    where = _Locator(text)
    # PostgreSQL text cannot hold NUL (the merge would fail there). JSON always escapes it as
    # \u0000: a file without that escape needs no walk for it.
    may_hold_nul = "\\u0000" in text
    skipped: dict[str, frozenset[int]] = {}
    refused: list[RefusedEntry] = []
    for section, fields in FIELDS.items():
        entries = payload.get(section)
        if not isinstance(entries, list):
            continue
        bad: set[int] = set()
        for index, entry in enumerate(entries):
            for found in _nul_paths(entry, ()) if may_hold_nul else ():
                bad.add(index)
                full = (section, index, *found)
                refused.append(RefusedEntry(file, where.line(full), dotted(full),
                                            f"{NUL_REASON}; this {_ENTRY[section]} was not imported"))
            for path, limit, what in fields:
                for found, value in _values(entry, path):
                    problem = text_oversize(dotted(found), value, limit, what)
                    if problem is not None:
                        bad.add(index)
                        full = (section, index, *found)
                        refused.append(RefusedEntry(file, where.line(full), dotted(full),
                                                    f"{problem.reason}; this {_ENTRY[section]} was not imported"))
        skipped[section] = frozenset(bad)
    return Screened(skipped, tuple(refused))


_ENTRY = {"labels": "label", "adjudications": "adjudication", "sessions": "session", "judgements": "judgement"}


NUL_REASON = "contains the NUL character (\\u0000), which the store cannot hold (PostgreSQL text cannot)"


def _nul_paths(node: Any, at: JsonPath) -> Iterator[JsonPath]:
    """Where a text (a value or a key) holds NUL: the corpus importer refuses it the same way."""
    if isinstance(node, str):
        if "\x00" in node:
            yield at
    elif isinstance(node, Mapping):
        for key, value in node.items():
            if "\x00" in str(key):
                yield at
            else:
                yield from _nul_paths(value, (*at, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _nul_paths(value, (*at, index))


def dotted(path: JsonPath) -> str:
    """``("labels", 3, "trajectory", "trajectory_id")`` -> ``labels[3].trajectory.trajectory_id``."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def _values(node: Any, path: JsonPath) -> Iterator[tuple[JsonPath, Any]]:
    """The values at ``path`` (``_ANY`` stands for every element of a list), with their concrete paths."""
    if _ANY not in path:  # the common case, walked without recursion (it runs for every field of every entry)
        for step in path:
            if not isinstance(node, dict) or step not in node:
                return
            node = node[step]
        yield path, node
        return
    if not path:
        yield (), node
        return
    head, rest = path[0], path[1:]
    if head == _ANY:
        children: list[tuple[str | int, Any]] = list(enumerate(node)) if isinstance(node, list) else []
    else:
        children = [(head, node[head])] if isinstance(node, Mapping) and head in node else []
    for step, child in children:
        for sub, value in _values(child, rest):
            yield (step, *sub), value


class _Locator:
    """Finds the line of a value in JSON text by walking to it (the json module keeps no positions)."""

    _decoder = json.JSONDecoder()

    def __init__(self, text: str) -> None:
        self._text = text
        # Both filled lazily and kept: many refused entries in a big file cost one pass, not one each.
        self._elements: dict[int, list[int]] = {}  # a list's offset -> its elements' offsets so far
        self._members: dict[int, dict[str, int]] = {}  # an object's offset -> its members' offsets
        self._newlines: list[int] | None = None

    def line(self, path: JsonPath) -> int | None:
        try:
            offset = self._offset(path)
        except (ValueError, IndexError):
            return None
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self._text)]
        return bisect.bisect_left(self._newlines, offset) + 1

    def _ws(self, i: int) -> int:
        while i < len(self._text) and self._text[i] in " \t\r\n":
            i += 1
        return i

    def _skip(self, i: int) -> int:
        return self._ws(self._decoder.raw_decode(self._text, i)[1])

    def _offset(self, path: JsonPath) -> int:
        i = self._ws(0)
        for step in path:
            i = self._element(i, step) if isinstance(step, int) else self._member(i, step)
        return i

    def _element(self, i: int, index: int) -> int:
        if self._text[i] != "[":
            raise ValueError("not a list")
        known = self._elements.setdefault(i, [self._ws(i + 1)])
        while len(known) <= index:
            after = self._skip(known[-1])
            if self._text[after] != ",":
                raise ValueError("no such element")
            known.append(self._ws(after + 1))
        return known[index]

    def _member(self, i: int, key: str) -> int:
        members = self._members.get(i)
        if members is None:
            members = self._members[i] = self._scan_members(i)
        if key not in members:
            raise ValueError(f"no member {key!r}")
        return members[key]

    def _scan_members(self, i: int) -> dict[str, int]:
        """Each key of the object at ``i`` -> its value's offset (the last of duplicates, as json.loads keeps)."""
        if self._text[i] != "{":
            raise ValueError("not an object")
        i = self._ws(i + 1)
        found: dict[str, int] = {}
        while self._text[i] == '"':
            name, i = self._decoder.raw_decode(self._text, i)
            i = self._ws(self._ws(i) + 1)  # past the colon
            found[name] = i
            i = self._skip(i)
            if self._text[i] == ",":
                i = self._ws(i + 1)
        return found
