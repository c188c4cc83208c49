"""Build replay inputs from plain data (records, rule mappings, expected_rule text).

No file access here: callers read files (``core.corpus`` or a test) and pass objects.
"""

from __future__ import annotations

from typing import Any

from core.replay.types import ReplayRule, ReplayTrajectory


def _str_or_none(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return text if text.strip() else None


def _success(value: Any) -> bool:
    """0.3.1's strict coercion; anything unrecognised counts as not-success."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        return value.strip().lower() in {"true", "1"}
    return False


def trajectory_from_record(key: int, record: dict[str, Any], corpus: str) -> ReplayTrajectory:
    tid = _str_or_none(record.get("trajectory_id")) or _str_or_none(record.get("id")) or f"#{key}"
    return ReplayTrajectory(
        key=key,
        trajectory_id=tid,
        corpus=corpus,
        domain=_str_or_none(record.get("domain")),
        success=_success(record.get("success")),
        failure_class=_str_or_none(record.get("failure_class")),
        record=record,
    )


def rule_from_mapping(
    key: str,
    mapping: dict[str, Any],
    source: ReplayTrajectory | None = None,
    origin: str = "rule",
) -> ReplayRule:
    """A standing/candidate rule mapping (``when``/``do``/``provenance``) as a ReplayRule."""
    when = mapping.get("when") or {}
    do = mapping.get("do") or {}
    context = tuple(str(c) for c in (when.get("context") or ()))
    provenance = mapping.get("provenance") or {}
    source_id = source.trajectory_id if source else _str_or_none(provenance.get("source_trajectory"))
    return ReplayRule(
        key=key,
        trigger=str(when.get("trigger", "")),
        context=context,
        signature=_str_or_none(when.get("signature")),
        directive=str(do.get("directive", "")),
        source_trajectory_id=source_id,
        source_key=source.key if source else None,
        domain=source.domain if source else None,
        corpus=source.corpus if source else None,
        origin=origin,
    )


def rule_from_expected(key: str, source: ReplayTrajectory) -> ReplayRule | None:
    """The record's ``expected_rule`` as a candidate (trigger = directive = the sentence)."""
    text = source.record.get("expected_rule")
    if not isinstance(text, str) or not text.strip():
        return None
    return ReplayRule(
        key=key,
        trigger=text,
        directive=text,
        source_trajectory_id=source.trajectory_id,
        source_key=source.key,
        domain=source.domain,
        corpus=source.corpus,
        origin="expected_rule",
    )
