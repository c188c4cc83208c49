"""Field checks of a rule document (standing or candidate), mirroring what the 0.3.1
``StandingRule.from_dict`` / ``CandidateRule.from_dict`` accept; each yields ``FieldProblem``s."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from core.corpus.validation import FieldProblem, describe_value, is_nonblank_str

STATUSES: tuple[str, ...] = ("active", "retired", "superseded")
LAST_OUTCOMES: tuple[str, ...] = ("prevented", "broke", "neutral")
_RULE_ID = re.compile(r"^[A-Za-z0-9_-]+$")


def as_float(value: object) -> float | None:
    """``float(value)`` as the reference applies it; None when it raises."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None


def _as_int(value: object) -> int | None:
    try:
        return int(value)  # type: ignore[call-overload, no-any-return]
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
    number = as_float(doc["confidence"])
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
    number = as_float(doc[key])
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
        return list(value)  # type: ignore[call-overload, no-any-return]
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


def validate_candidate(doc: Mapping[str, Any]) -> Iterator[FieldProblem]:
    """The 0.3.1 ``CandidateRule`` rules, plus the flattened string shape."""
    yield from _validate_when(doc, flattened_ok=True)
    yield from _validate_do(doc, flattened_ok=True)
    yield from _confidence(doc)
    yield from _optional_nonblank(doc, "reasoning", "reasoning")
    yield from _counter(doc, "extraction_pass", "extraction_pass", 1)
    yield from _optional_nonblank(doc, "template", "template")


def validate_standing(doc: Mapping[str, Any]) -> Iterator[FieldProblem]:
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
