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

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from core.corpus.hostile import cap_issues, surrogate_field, surrogate_reason, yaml_expansion_problem
from core.corpus.jsonl import RecordIssue
from core.corpus.validation import FieldProblem, describe_value, is_nonblank_str

RuleFileKind = Literal["standing", "candidate", "catalog", "other", "unreadable"]
RuleKind = Literal["standing", "candidate"]

STATUSES: tuple[str, ...] = ("active", "retired", "superseded")
LAST_OUTCOMES: tuple[str, ...] = ("prevented", "broke", "neutral")

_STANDING_KEYS = frozenset({"id", "status", "provenance", "promoted_at"})
# Store indexes, pack manifests and lockfiles the reference loader also refuses to treat as
# rules (#554), plus the corpus catalog.
_CATALOG_STEMS = frozenset({"index", "manifest", "catalog", "pack", "packs.lock"})
_CATALOG_KEYS = frozenset({"rules", "curated", "sources", "corpora"})
_RULE_ID = re.compile(r"^[A-Za-z0-9_-]+$")
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
        line = raw.count(b"\n", 0, exc.start) + 1
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
    problems = list(_validate_standing(doc) if kind == "standing" else _validate_candidate(doc))
    errors = [p for p in problems if p.is_error]
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


def _as_float(value: object) -> float | None:
    """``float(value)`` as the reference applies it; None when it raises."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None


def _as_int(value: object) -> int | None:
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return None


def _nonblank(doc: Mapping[str, Any], key: str, path: str) -> Iterator[FieldProblem]:
    if key not in doc:
        yield FieldProblem(path, "required field is missing; expected a non-blank string")
    elif not is_nonblank_str(doc[key]):
        yield FieldProblem(path, f"expected a non-blank string, got {_describe(doc[key])}")


def _optional_nonblank(doc: Mapping[str, Any], key: str, path: str) -> Iterator[FieldProblem]:
    value = doc.get(key)
    if value is not None and not is_nonblank_str(value):
        yield FieldProblem(path, f"expected a non-blank string or nothing, got {_describe(value)}")


def _describe(value: object) -> str:
    if hasattr(value, "isoformat") and not isinstance(value, str):
        return f"an unquoted YAML date/time ({value}); quote it to make it a string"
    return describe_value(value)


def _confidence(doc: Mapping[str, Any], path: str = "confidence") -> Iterator[FieldProblem]:
    if "confidence" not in doc:
        yield FieldProblem(path, "missing; the reference model reads 0.0", "note")
        return
    number = _as_float(doc["confidence"])
    if number is None or not 0.0 <= number <= 1.0:
        yield FieldProblem(path, f"expected a number between 0 and 1, got {_describe(doc['confidence'])}")
    elif isinstance(doc["confidence"], (str, bool)):
        yield FieldProblem(path, f"{_describe(doc['confidence'])} read as {number}", "note")


def _counter(doc: Mapping[str, Any], key: str, path: str, minimum: int) -> Iterator[FieldProblem]:
    if key not in doc:
        return
    number = _as_int(doc[key])
    if number is None or number < minimum:
        yield FieldProblem(path, f"expected an integer ≥ {minimum}, got {_describe(doc[key])}")
    elif isinstance(doc[key], bool) or not isinstance(doc[key], int):
        yield FieldProblem(path, f"{_describe(doc[key])} read as {number}", "note")


def _unit_interval(doc: Mapping[str, Any], key: str, path: str, *, null_ok: bool) -> Iterator[FieldProblem]:
    if key not in doc or (null_ok and doc[key] is None):
        return
    number = _as_float(doc[key])
    if number is None or math.isnan(number) or not 0.0 <= number <= 1.0:
        yield FieldProblem(path, f"expected a number between 0 and 1, got {_describe(doc[key])}")


def _str_list(doc: Mapping[str, Any], key: str, path: str) -> Iterator[FieldProblem]:
    value = doc.get(key)
    if value is None:
        return
    if not isinstance(value, (list, tuple)):
        yield FieldProblem(path, f"expected a list of non-blank strings, got {_describe(value)}")
        return
    bad = [(index, item) for index, item in enumerate(value) if not is_nonblank_str(item)]
    if bad:
        index, item = bad[0]
        yield FieldProblem(f"{path}[{index}]", f"expected a non-blank string, got {_describe(item)}{_more(bad, path)}")


def _iterable_items(value: object) -> list[Any] | None:
    """What Python iteration yields for a YAML value (strings iterate into characters)."""
    try:
        return list(value)  # type: ignore[call-overload]
    except TypeError:
        return None


def _validate_when(doc: Mapping[str, Any], *, flattened_ok: bool) -> Iterator[FieldProblem]:
    when = doc.get("when", {})
    if flattened_ok and isinstance(when, str):
        if not when.strip():
            yield FieldProblem("when", "expected a non-blank trigger, got an empty string")
        else:
            yield FieldProblem("when", "flattened candidate shape: 'when' is the trigger text", "note")
        return
    if not isinstance(when, Mapping):
        yield FieldProblem("when", f"expected a mapping with a trigger, got {_describe(when)}")
        return
    if "when" not in doc:
        yield FieldProblem("when", "required field is missing; expected a mapping with a trigger")
        return
    yield from _nonblank(when, "trigger", "when.trigger")
    yield from _str_list(when, "context", "when.context")
    yield from _optional_nonblank(when, "signature", "when.signature")


def _validate_do(doc: Mapping[str, Any], *, flattened_ok: bool) -> Iterator[FieldProblem]:
    do = doc.get("do", {})
    if flattened_ok and isinstance(do, str):
        if not do.strip():
            yield FieldProblem("do", "expected a non-blank directive, got an empty string")
        else:
            yield FieldProblem("do", "flattened candidate shape: 'do' is the directive text", "note")
        return
    if not isinstance(do, Mapping):
        yield FieldProblem("do", f"expected a mapping with a directive, got {_describe(do)}")
        return
    if "do" not in doc:
        yield FieldProblem("do", "required field is missing; expected a mapping with a directive")
        return
    yield from _nonblank(do, "directive", "do.directive")
    yield from _optional_nonblank(do, "because", "do.because")


def _validate_candidate(doc: Mapping[str, Any]) -> Iterator[FieldProblem]:
    """The 0.3.1 ``CandidateRule`` rules, plus the flattened string shape."""
    yield from _validate_when(doc, flattened_ok=True)
    yield from _validate_do(doc, flattened_ok=True)
    yield from _confidence(doc)
    yield from _optional_nonblank(doc, "reasoning", "reasoning")
    yield from _counter(doc, "extraction_pass", "extraction_pass", 1)
    yield from _optional_nonblank(doc, "template", "template")


def _validate_standing(doc: Mapping[str, Any]) -> Iterator[FieldProblem]:
    """The 0.3.1 ``StandingRule`` rules (reference doc §2.5)."""
    if doc.get("status") is None:
        # A missing status must not resurrect a retired rule as active (#593).
        yield FieldProblem("status", f"required: one of {', '.join(STATUSES)}; it is missing")
    elif not (isinstance(doc["status"], str) and doc["status"] in STATUSES):
        yield FieldProblem("status", f"expected one of {', '.join(STATUSES)}, got {_describe(doc['status'])}")
    yield from _nonblank(doc, "id", "id")
    if is_nonblank_str(doc.get("id")) and not _RULE_ID.match(doc["id"]):
        yield FieldProblem("id", "contains characters other than letters, digits, '_' and '-'; "
                                 "the store refuses such ids (#499)", "note")
    yield from _validate_when(doc, flattened_ok=False)
    yield from _validate_do(doc, flattened_ok=False)
    yield from _confidence(doc)
    yield from _validate_provenance(doc)
    yield from _nonblank(doc, "promoted_at", "promoted_at")
    for key in ("hit_count", "prevented_count", "broke_count", "neutral_count"):
        yield from _counter(doc, key, key, 0)
    last = doc.get("last_outcome")
    if last is not None and not (isinstance(last, str) and last in LAST_OUTCOMES):
        yield FieldProblem("last_outcome", f"expected one of {', '.join(LAST_OUTCOMES)} or nothing, got {_describe(last)}")
    yield from _outcome_trend(doc)
    yield from _unit_interval(doc, "specificity", "specificity", null_ok=True)
    if "specificity_inputs" in doc:
        try:
            dict(doc["specificity_inputs"])
        except (TypeError, ValueError):
            yield FieldProblem("specificity_inputs", f"expected a mapping, got {_describe(doc['specificity_inputs'])}")
    yield from _str_list(doc, "tags", "tags")


def _validate_provenance(doc: Mapping[str, Any]) -> Iterator[FieldProblem]:
    prov = doc.get("provenance", {})
    if not isinstance(prov, Mapping):
        yield FieldProblem("provenance", f"expected a mapping, got {_describe(prov)}")
        return
    for key in ("source_trajectory", "extracted_by", "extract_timestamp"):
        yield from _nonblank(prov, key, f"provenance.{key}")
    yield from _counter(prov, "extraction_pass", "provenance.extraction_pass", 1)
    evidence = prov.get("replay_evidence")
    if isinstance(evidence, Mapping):
        for key in ("failures_prevented", "successes_broken"):
            if key in evidence and _iterable_items(evidence[key]) is None:
                yield FieldProblem(f"provenance.replay_evidence.{key}", f"expected a list, got {_describe(evidence[key])}")
        for key in ("precision", "recall"):
            yield from _unit_interval(evidence, key, f"provenance.replay_evidence.{key}", null_ok=False)


def _outcome_trend(doc: Mapping[str, Any]) -> Iterator[FieldProblem]:
    if "outcome_trend" not in doc:
        return
    items = _iterable_items(doc["outcome_trend"])
    if items is None:
        yield FieldProblem("outcome_trend", f"expected a list of -1/0/1, got {_describe(doc['outcome_trend'])}")
        return
    # One issue for the field, however long it is: a 1 MB string is a million "items".
    verdicts: dict[tuple[type, Any], bool] = {}  # a long string repeats few distinct characters

    def is_bad(item: Any) -> bool:
        if not isinstance(item, (str, int, float)):
            return _as_int(item) not in (-1, 0, 1)
        key = (type(item), item)
        if key not in verdicts:
            verdicts[key] = _as_int(item) not in (-1, 0, 1)
        return verdicts[key]

    bad = [(index, item) for index, item in enumerate(items) if is_bad(item)]
    if bad:
        index, item = bad[0]
        yield FieldProblem(
            f"outcome_trend[{index}]", f"expected -1, 0 or 1, got {_describe(item)}{_more(bad, 'outcome_trend')}"
        )


def _more(bad: list[tuple[int, Any]], path: str) -> str:
    return f" (and {len(bad) - 1:,} more bad items in {path})" if len(bad) > 1 else ""


# --- building the record --------------------------------------------------------------------


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
        confidence=_as_float(doc["confidence"]) if "confidence" in doc else None,
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
