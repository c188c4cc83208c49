"""Reading rule YAML files: standing rules, candidate rules, catalogs. Never raises.

Only ``yaml.safe_load`` / ``yaml.compose`` with the safe loader are used: rule files come
from other people's repositories and must not be able to construct Python objects.

A file is classified before it is validated:

* ``standing`` — has ``when``/``do`` plus a standing-rule key (``id``, ``status``,
  ``provenance``, ``promoted_at``), or at least two standing-rule keys (a rule whose
  ``when`` is misspelled is still a broken rule, not "other").
* ``candidate`` — ``when``/``do`` without standing-rule keys (``tests/fixtures/candidates``),
  including the flattened field-test shape where ``when``/``do`` are plain strings.
* ``catalog`` — corpus catalogs, store indexes, pack manifests: noted, never imported as rules.
* ``other`` — anything else that parsed; ``unreadable`` — not UTF-8 or not YAML.

Validation mirrors the acceptance of the 0.3.1 ``StandingRule.from_dict`` /
``CandidateRule.from_dict`` (checked against the reference package in tests): a rule file
has issues iff the reference would refuse it. The one deliberate extension is the flattened
candidate shape, which the reference model cannot load but the field-test results use.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from core.corpus.hostile import cap_issues, surrogate_field, surrogate_reason, yaml_expansion_problem
from core.corpus.jsonl import RecordIssue
from core.corpus.limits import rule_oversize
from core.corpus.rule_fields import (
    as_float,
    validate_candidate,
    validate_standing,
)
from core.corpus.validation import FieldProblem

RuleFileKind = Literal["standing", "candidate", "catalog", "other", "unreadable"]
RuleKind = Literal["standing", "candidate"]


_STANDING_KEYS = frozenset({"id", "status", "provenance", "promoted_at"})
# Store indexes, pack manifests and lockfiles the reference loader also refuses to treat as
# rules (#554), plus the corpus catalog.
_CATALOG_STEMS = frozenset({"index", "manifest", "catalog", "pack", "packs.lock"})
_CATALOG_KEYS = frozenset({"rules", "curated", "sources", "corpora"})
# libyaml's parser when present (same safe constructor): the pure-Python scanner needs
# seconds per megabyte, which a hostile 1 MB scalar turns into a stall.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class RuleRecord:
    """A rule read from YAML: the fields the Workbench uses, plus the mapping as parsed."""

    kind: RuleKind
    rule_id: str | None
    trigger: str
    context: tuple[str, ...]
    signature: str | None
    directive: str
    because: str | None
    confidence: float | None  # None when the file has no confidence key
    status: str | None
    source_trajectory: str | None
    data: dict[str, Any]
    notes: list[FieldProblem] = field(default_factory=list)


@dataclass(frozen=True)
class RuleFileResult:
    """One YAML file: its kind, the rule if it is a valid one, and its issues."""

    file: str
    kind: RuleFileKind
    rule: RuleRecord | None
    issues: list[RecordIssue]
    raw_text: str
    data: Any = None  # the parsed document (catalogs included), None if unreadable


def read_rule_file(path: Path, file: str | None = None) -> RuleFileResult:
    """Read a rule YAML file; ``file`` is the label used in results (default: the path)."""
    label = file if file is not None else Path(path).as_posix()
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return RuleFileResult(label, "unreadable", None, [RecordIssue(label, None, None, f"could not read file: {exc}")], "")
    return read_rule_bytes(data, label)


def read_rule_bytes(data: bytes, file: str) -> RuleFileResult:
    """Decode, safe-load, classify and validate one rule YAML document."""
    try:
        return _read(bytes(data), file)
    except Exception as exc:  # noqa: BLE001 — last line of defence: never raise
        return RuleFileResult(file, "unreadable", None, [RecordIssue(file, None, None, f"internal error: {exc!r}")], "")


def _read(raw: bytes, file: str) -> RuleFileResult:
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line: int | None = raw.count(b"\n", 0, exc.start) + 1
        issue = RecordIssue(file, line, None, f"invalid UTF-8 at byte {exc.start + 1}")
        return RuleFileResult(file, "unreadable", None, [issue], raw.decode("utf-8", errors="replace"))
    if surrogate_field(text) is not None:
        # Decoded UTF-8 never holds a surrogate; this guards callers passing text directly.
        return RuleFileResult(file, "unreadable", None, [RecordIssue(file, None, None, surrogate_reason(text))], text)
    try:
        doc, refusal = _safe_load_bounded(text)
        if refusal is not None:
            return RuleFileResult(file, "unreadable", None, [RecordIssue(file, refusal[0], None, refusal[1])], text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else None
        reason = " ".join(str(exc).split())
        return RuleFileResult(file, "unreadable", None, [RecordIssue(file, line, None, f"not valid YAML: {reason}")], text)
    except (ValueError, TypeError, RecursionError, OverflowError) as exc:
        # e.g. an unquoted but impossible date such as 2026-13-45 fails in the constructor
        return RuleFileResult(file, "unreadable", None, [RecordIssue(file, None, None, f"not valid YAML: {exc}")], text)
    bad_field = surrogate_field(doc)
    if bad_field is not None:
        line = _line_locator(text)(bad_field) if bad_field else None
        issue = RecordIssue(file, line, bad_field or None, surrogate_reason(_first_surrogate_text(text)))
        return RuleFileResult(file, "unreadable", None, [issue], text)
    kind = classify_rule_document(doc, file)
    if kind not in ("standing", "candidate"):
        return RuleFileResult(file, kind, None, [], text, doc)
    assert isinstance(doc, dict)
    problems = list(validate_standing(doc) if kind == "standing" else validate_candidate(doc))
    # The reference model's refusals, then the store's length limits (core.corpus.limits).
    errors = [p for p in problems if p.is_error] + rule_oversize(doc)
    if errors:
        locate = _line_locator(text)
        issues = cap_issues(
            [RecordIssue(file, locate(p.field), p.field or None, p.reason) for p in errors],
            lambda n: RecordIssue(file, None, None, f"… and {n} more issues in this file"),
        )
        return RuleFileResult(file, kind, None, issues, text, doc)
    notes = [p for p in problems if not p.is_error]
    return RuleFileResult(file, kind, _record(kind, doc, notes), [], text, doc)


def _safe_load_bounded(text: str) -> tuple[Any, tuple[int | None, str] | None]:
    """``yaml.safe_load`` that first checks the composed node graph: alias bombs and
    recursive aliases are refused (line, reason) before a single value is constructed."""
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        problem = yaml_expansion_problem(node)
        if problem is not None:
            return None, (node.start_mark.line + 1 if node is not None else None, problem)
        return (loader.construct_document(node) if node is not None else None), None
    finally:
        loader.dispose()


def _first_surrogate_text(text: str) -> str:
    # The YAML text holds the escape (e.g. "\ud800"); name it in the reason.
    found = re.search(r"\\u(d[89a-f][0-9a-f]{2})", text, re.IGNORECASE)
    return chr(int(found.group(1), 16)) if found else "\ud800"


def classify_rule_document(doc: object, file: str = "") -> RuleFileKind:
    """Decide what a parsed YAML document is (see module docstring)."""
    stem = Path(file).name.lower()
    for suffix in (".yaml", ".yml"):
        stem = stem.removesuffix(suffix)
    if isinstance(doc, Mapping):
        keys = set(doc.keys())
        rule_keys = keys & {"when", "do"}
        standing_keys = keys & _STANDING_KEYS
        if (rule_keys and standing_keys) or len(standing_keys) >= 2:
            return "standing"
        if rule_keys:
            return "candidate"
        if stem in _CATALOG_STEMS or keys & _CATALOG_KEYS or _is_id_keyed_index(doc):
            return "catalog"
        return "other"
    if isinstance(doc, list) and (stem in _CATALOG_STEMS or _is_list_index(doc)):
        return "catalog"
    return "other"


def _is_id_keyed_index(doc: Mapping[Any, Any]) -> bool:
    """Old store index shape: ``{R-001: {status, trigger, ...}, ...}``."""
    return bool(doc) and all(isinstance(v, Mapping) and ("status" in v or "trigger" in v) for v in doc.values())


def _is_list_index(doc: list[Any]) -> bool:
    """Oldest store index shape: a list of ``{id, trigger, directive, promoted_at, status}``."""
    return bool(doc) and all(isinstance(v, Mapping) and "id" in v and "status" in v for v in doc)


# --- validation -----------------------------------------------------------------------------


def _record(kind: RuleKind, doc: dict[str, Any], notes: list[FieldProblem]) -> RuleRecord:
    when = doc.get("when", {})
    do = doc.get("do", {})
    when_map: Mapping[str, Any] = when if isinstance(when, Mapping) else {}
    do_map: Mapping[str, Any] = do if isinstance(do, Mapping) else {}
    prov = doc.get("provenance")
    standing = kind == "standing"
    return RuleRecord(
        kind=kind,
        rule_id=doc.get("id") if standing else None,
        trigger=when if isinstance(when, str) else when_map.get("trigger", ""),
        context=tuple(when_map.get("context") or ()),
        signature=when_map.get("signature"),
        directive=do if isinstance(do, str) else do_map.get("directive", ""),
        because=do_map.get("because"),
        confidence=as_float(doc["confidence"]) if "confidence" in doc else None,
        status=doc.get("status") if standing else None,
        source_trajectory=prov.get("source_trajectory") if standing and isinstance(prov, Mapping) else None,
        data=doc,
        notes=notes,
    )


# --- line numbers ---------------------------------------------------------------------------

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _line_locator(text: str) -> Any:
    """Return ``path -> line`` using the composed node tree (no objects constructed).

    For a missing field the nearest existing ancestor's line is used; None at top level.
    """
    try:
        root = yaml.compose(text, Loader=_LOADER)
    except Exception:  # noqa: BLE001 — line numbers are a courtesy
        root = None

    def locate(path: str) -> int | None:
        node, line = root, None
        for name, index in _PATH_PART.findall(path):
            child, key_line = _child(node, name, index)
            if child is None:
                return line
            node, line = child, key_line
        return line

    return locate


def _child(node: Any, name: str, index: str) -> tuple[Any, int | None]:
    if isinstance(node, yaml.MappingNode) and name:
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == name:
                return value_node, key_node.start_mark.line + 1
    if isinstance(node, yaml.SequenceNode) and index:
        position = int(index)
        if position < len(node.value):
            item = node.value[position]
            return item, item.start_mark.line + 1
    return None, None
