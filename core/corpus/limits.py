"""Length limits for the text the store indexes, applied by the readers on every back end.

A PostgreSQL b-tree entry cannot exceed about 2.7 KB (a third of an 8 KB page), so a
trajectory whose id, domain or failure class is longer failed the whole import there with
"index row size ... exceeds maximum", while SQLite (no such limit) took it. The store indexes
these columns on both back ends (``TrajectoryRow``; the label key ``(corpus, file,
trajectory_id)``; the unique ``(corpus_id, path)`` of a file and a rule's ``origin``), so the
readers refuse an oversized value themselves, before any database sees it: the same record
gets the same specific issue (file, line, field, limit, length found) on SQLite and on
PostgreSQL, and the records around it are imported.

The limits are far beyond any real corpus (the CauterRule corpora's longest id is 47 bytes,
domain 18, failure class 34, file path 85) and far below the index limit even for the
widest composite key, a label's ``(corpus, file, trajectory_id)``: the corpus name is the
folder's path, so it is bounded by the path limit, and 768 + 768 + 512 bytes is 1.8 KB.
Lengths are UTF-8 bytes, as the index measures them, not characters.

These are store limits, not the reference model's: ``validate_trajectory`` keeps "an error
iff cauterule 0.3.1 refuses the record", and these checks run after it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from core.corpus.validation import FieldProblem, effective_trajectory_id

MAX_KEY_BYTES = 512  # an id, a domain, a failure class: short labels, indexed
MAX_PATH_BYTES = 768  # a file's path inside its import root (part of unique keys)

# Trajectory fields stored in indexed columns, besides the id (checked with its fallback).
_TRAJECTORY_KEY_FIELDS: tuple[str, ...] = ("domain", "failure_class")


def oversize_reason(length: int, limit: int, what: str) -> str:
    return (
        f"{length:,} bytes, over the {limit:,}-byte limit for {what} "
        f"(the store indexes it; real corpora stay far below)"
    )


def text_oversize(path: str, value: object, limit: int, what: str) -> FieldProblem | None:
    """The problem with one indexed text field, or None (anything but text is not measured here).

    The one check every reader of indexed text uses: corpus records and rules below, and the
    team files reviewers exchange (``core.agreement.merge_keys``)."""
    return next(_too_long(path, value, limit, what), None) if isinstance(value, str) else None


def _too_long(path: str, value: str, limit: int, what: str) -> Iterator[FieldProblem]:
    length = len(value.encode("utf-8", errors="surrogatepass"))
    if length > limit:
        yield FieldProblem(path, oversize_reason(length, limit, what))


def trajectory_oversize(obj: Mapping[str, Any]) -> list[FieldProblem]:
    """Errors for a trajectory whose indexed text is longer than the store accepts."""
    used, text = effective_trajectory_id(obj)
    problems = list(_too_long(used, text, MAX_KEY_BYTES, "a trajectory id"))
    for name in _TRAJECTORY_KEY_FIELDS:
        value = obj.get(name)
        if isinstance(value, str):  # only text is stored in the column (anything else is a note)
            problems.extend(_too_long(name, value, MAX_KEY_BYTES, f"a {name.replace('_', ' ')}"))
    return problems


def rule_oversize(doc: Mapping[str, Any]) -> list[FieldProblem]:
    """Errors for a rule whose id or source trajectory is longer than the store accepts.

    ``provenance.source_trajectory`` is looked up among the trajectory ids (so it obeys their
    limit), and a standing rule's ``id`` names it in the store, in exports and in file names.
    """
    problems: list[FieldProblem] = []
    rule_id = doc.get("id")
    if isinstance(rule_id, str):
        problems.extend(_too_long("id", rule_id, MAX_KEY_BYTES, "a rule id"))
    prov = doc.get("provenance")
    if isinstance(prov, Mapping) and isinstance(prov.get("source_trajectory"), str):
        problems.extend(_too_long("provenance.source_trajectory", prov["source_trajectory"], MAX_KEY_BYTES,
                                  "a trajectory id"))
    return problems


def path_oversize(rel_path: str) -> str | None:
    """Why a file's path is too long to be stored, or None."""
    length = len(rel_path.encode("utf-8", errors="surrogatepass"))
    if length <= MAX_PATH_BYTES:
        return None
    return oversize_reason(length, MAX_PATH_BYTES, "a file's path inside its folder") + "; skipped"
