"""Rule files written the way CauterRule 0.3.1 writes them when it changes one.

When the reference retires or supersedes a rule (``StoreManager.retire_rule`` /
``supersede_rule``) it loads the file into its rule model and dumps the model again: keys come
out in the model's field order, optional fields that are empty are dropped, numbers are
normalised, unknown keys are lost, and the index entry of that rule is refreshed. Publishing
does the same to the files it changes, so a store published by the Workbench looks exactly
like one the reference managed itself (checked against the installed reference in
tests/external/test_publish_interop.py). This module is a re-statement of that file format,
not a copy of the reference's code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import yaml

# The rule model's optional fields after ``hit_count``, in its order: written when set.
_OPTIONAL_TEXT = ("last_match",)
_AFTER_TAGS = ("taxonomy", "template", "pack", "retired_at", "retirement_reason", "superseded_by")
_COUNTS = ("prevented_count", "broke_count", "neutral_count")
_AFTER_COUNTS = ("last_outcome", "last_outcome_at")


def reference_time(iso: str) -> str:
    """A stored ISO time in the reference's own stamp format (``2026-12-03T10:15:00Z``)."""
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def normalized_rule(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` (a rule file's mapping) as the reference writes it back after loading it."""
    when = _mapping(data.get("when"))
    do = _mapping(data.get("do"))
    out: dict[str, Any] = {"id": data.get("id", ""), "when": _when(when), "do": _do(do),
                           "confidence": float(data.get("confidence", 0.0)),
                           "provenance": _provenance(_mapping(data.get("provenance"))),
                           "status": data.get("status"), "promoted_at": data.get("promoted_at", ""),
                           "hit_count": int(data.get("hit_count", 0))}
    for key in _OPTIONAL_TEXT:
        if data.get(key) is not None:
            out[key] = data[key]
    tags = data.get("tags") or []
    if tags:
        out["tags"] = list(tags)
    for key in _AFTER_TAGS:
        if data.get(key) is not None:
            out[key] = data[key]
    for key in _COUNTS:
        if int(data.get(key, 0)):
            out[key] = int(data[key])
    for key in _AFTER_COUNTS:
        if data.get(key) is not None:
            out[key] = data[key]
    trend = [int(v) for v in data.get("outcome_trend", []) or []]
    if trend:
        out["outcome_trend"] = trend
    if data.get("specificity") is not None:
        out["specificity"] = float(data["specificity"])
    inputs = data.get("specificity_inputs") or {}
    if inputs:
        out["specificity_inputs"] = dict(inputs)
    return out


def retired(data: Mapping[str, Any], at: str, reason: str) -> dict[str, Any]:
    """The file after ``retire_rule``: status, time and reason set, everything else kept."""
    changed = dict(data)
    changed.update(status="retired", retired_at=at, retirement_reason=reason)
    return normalized_rule(changed)


def superseded(data: Mapping[str, Any], at: str, successor: str) -> dict[str, Any]:
    """The file after ``supersede_rule``: the reference stamps ``retired_at`` too and keeps
    any earlier ``retirement_reason`` (it writes no reason of its own)."""
    changed = dict(data)
    changed.update(status="superseded", retired_at=at, superseded_by=successor)
    return normalized_rule(changed)


def index_entry(rule: Mapping[str, Any]) -> dict[str, Any]:
    """The rule's ``index.yaml`` entry, as ``IndexManager.update_entry`` makes it."""
    entry: dict[str, Any] = {
        "id": rule["id"],
        "status": rule["status"],
        "summary": f"when={rule['when']['trigger']!r} do={rule['do']['directive']!r}",
        "tags": list(rule.get("tags") or []),
        "hit_count": rule.get("hit_count", 0),
        "last_match": rule.get("last_match"),
        "pack": rule.get("pack"),
    }
    if rule.get("taxonomy") is not None:
        entry["taxonomy"] = rule["taxonomy"]
    return entry


def updated_index(index: Mapping[str, Any] | None, rules: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``index`` with one entry per rule in ``rules`` replaced in place or appended (upsert by id,
    non-mapping entries kept as they are), like repeated ``update_entry`` calls."""
    entries: list[Any] = list((index or {}).get("rules") or [])
    for rule in rules:
        entry = index_entry(rule)
        for position, existing in enumerate(entries):
            if isinstance(existing, dict) and existing.get("id") == rule["id"]:
                entries[position] = entry
                break
        else:
            entries.append(entry)
    result = dict(index or {})
    result["rules"] = entries
    return result


def dump(document: Any) -> str:
    """YAML as the reference dumps it (key order kept, Unicode kept)."""
    return str(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _when(when: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"trigger": when.get("trigger", "")}
    if when.get("context"):
        out["context"] = list(when["context"])
    if when.get("signature") is not None:
        out["signature"] = when["signature"]
    return out


def _do(do: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"directive": do.get("directive", "")}
    if do.get("because") is not None:
        out["because"] = do["because"]
    return out


def _provenance(prov: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"source_trajectory": prov.get("source_trajectory", ""),
                           "extracted_by": prov.get("extracted_by", ""),
                           "extract_timestamp": prov.get("extract_timestamp", ""),
                           "extraction_pass": int(prov.get("extraction_pass", 1))}
    if prov.get("draft_tournament_rank") is not None:
        out["draft_tournament_rank"] = prov["draft_tournament_rank"]
    evidence = prov.get("replay_evidence")
    if isinstance(evidence, Mapping):
        out["replay_evidence"] = {"failures_prevented": list(evidence.get("failures_prevented", [])),
                                  "successes_broken": list(evidence.get("successes_broken", [])),
                                  "precision": float(evidence.get("precision", 0.0)),
                                  "recall": float(evidence.get("recall", 0.0))}
    for key in ("promotion_commit", "promotion_mode"):
        if prov.get(key) is not None:
            out[key] = prov[key]
    return out
