"""Frozen data transfer objects returned by repositories.

They cross thread boundaries safely (immutable, no session attached), which is why the GUI
and jobs only ever see these, never ORM rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CorpusInfo:
    id: int
    name: str
    role: str
    role_source: str
    trajectories: int
    rules: int


@dataclass(frozen=True)
class TrajectorySummary:
    """One row of the trajectory table: enough to list and filter, not the steps."""

    id: int
    trajectory_id: str
    corpus: str
    domain: str | None
    success: bool
    failure_class: str | None
    has_expected_rule: bool


@dataclass(frozen=True)
class TrajectoryDetail:
    id: int
    trajectory_id: str
    corpus: str
    file: str
    line: int
    domain: str | None
    success: bool
    failure_class: str | None
    failure_point: str | None
    task: str
    expected_outcome: str | None
    expected_rule: str | None
    role: str | None
    raw_text: str
    record_json: str

    @property
    def record(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.record_json)
        return value


@dataclass(frozen=True)
class RuleVersionInfo:
    id: int
    rule_id: int
    version: int
    trigger: str
    context: tuple[str, ...]
    signature: str | None
    directive: str
    because: str | None
    confidence: float | None
    author: str
    note: str | None
    created_at: str


@dataclass(frozen=True)
class RuleInfo:
    id: int
    origin: str
    kind: str
    corpus: str | None
    rule_ref: str | None
    status: str | None
    source_trajectory: str | None
    source_trajectory_pk: int | None
    domain: str | None
    latest: RuleVersionInfo


@dataclass(frozen=True)
class ImportIssue:
    corpus: str | None
    file: str
    line: int | None
    field: str | None
    reason: str


@dataclass(frozen=True)
class CorpusImportCounts:
    corpus: str
    role: str
    role_source: str
    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: int = 0
    removed: int = 0
    rules_imported: int = 0


@dataclass(frozen=True)
class ImportSummary:
    report_id: int
    corpora: tuple[CorpusImportCounts, ...]
    issues: tuple[ImportIssue, ...]
    rules_imported: int
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def imported(self) -> int:
        return sum(c.imported for c in self.corpora)

    @property
    def rejected(self) -> int:
        return len(self.issues)

    def to_json(self) -> dict[str, Any]:
        return {
            "report_id": self.report_id,
            "corpora": {
                c.corpus: {
                    "role": c.role,
                    "role_source": c.role_source,
                    "imported": c.imported,
                    "updated": c.updated,
                    "unchanged": c.unchanged,
                    "rejected": c.rejected,
                    "removed": c.removed,
                    "rules_imported": c.rules_imported,
                }
                for c in self.corpora
            },
            "rejections": [
                {"corpus": i.corpus, "file": i.file, "line": i.line, "field": i.field, "reason": i.reason}
                for i in self.issues
            ],
            "rules_imported": self.rules_imported,
            "notes": list(self.notes),
        }
