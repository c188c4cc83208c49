"""Timestamps: UTC, ISO-8601, second precision is not enough for ordering audit events."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")
