"""Ground-truth labels as values: the text a reviewer writes and the DTOs repositories return.

A label is a trigger ("when ...") and a directive ("do ...") kept apart, so nobody has to rely
on the first-comma heuristic the 0.3.1 metric uses to split ``expected_rule`` (§7). A label
with an empty trigger and directive means "no rule expected" (exported as ``""``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from core.hashing import hash_json

GroundTruthSource = str  # "adjudicated" | "label" | "imported" | "none"


def _clean(text: str | None) -> str:
    return " ".join((text or "").split())


def strip_when(trigger: str) -> str:
    """``"when X"`` -> ``"X"``: the sentence adds its own "when"."""
    body = trigger.strip()
    return body[5:].lstrip() if body.lower().startswith("when ") else body


@dataclass(frozen=True)
class LabelText:
    """What a reviewer writes. ``variants`` are acceptable alternative rule sentences."""

    trigger: str
    directive: str
    variants: tuple[str, ...] = ()
    note: str | None = None

    def normalised(self) -> LabelText:
        """Whitespace collapsed, empty variants dropped; what is stored and hashed."""
        note = (self.note or "").strip() or None
        variants = tuple(v for v in (_clean(v) for v in self.variants) if v)
        return LabelText(_clean(self.trigger), _clean(self.directive), variants, note)

    @property
    def is_empty(self) -> bool:
        """No rule expected for this trajectory."""
        return not self.trigger.strip() and not self.directive.strip()

    def sentence(self) -> str:
        """The one-sentence ``expected_rule``: ``"when <trigger>, <directive>"`` ("" when empty)."""
        text = self.normalised()
        if text.is_empty:
            return ""
        trigger = strip_when(text.trigger)
        if not text.directive:
            return f"when {trigger}"
        if not trigger:
            return text.directive
        return f"when {trigger}, {text.directive}"

    def content_hash(self) -> str:
        return hash_json(self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        text = self.normalised()
        return {"trigger": text.trigger, "directive": text.directive, "variants": list(text.variants),
                "note": text.note}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LabelText:
        return cls(
            trigger=str(data.get("trigger") or ""), directive=str(data.get("directive") or ""),
            variants=tuple(str(v) for v in data.get("variants") or ()), note=data.get("note"),
        ).normalised()


def label_warnings(text: LabelText) -> list[str]:
    """Problems the reviewer should see while typing (none of them blocks saving)."""
    warnings: list[str] = []
    norm = text.normalised()
    if "," in strip_when(norm.trigger):
        warnings.append(
            "the trigger contains a comma: cauterule 0.3.1 splits expected_rule at the first comma, "
            "so the exported sentence would be split inside the trigger"
        )
    if norm.directive and not norm.trigger:
        warnings.append("a directive without a trigger: the exported sentence has no 'when' part")
    if norm.trigger and not norm.directive:
        warnings.append("no directive: directive_f1 will be 0 for every candidate")
    return warnings


_WORD = re.compile(r"[^\W_]{2,}")


def accidental_label(text: LabelText) -> str | None:
    """Why a non-empty label looks like a stray key rather than a rule, else None.

    A label with no word of two letters or digits ("?", "j", ",.") is what a command key typed
    into the editor leaves behind; it must not count as ground truth unless the reviewer
    confirms it (the empty label, "no rule expected", is a deliberate choice and is not this).
    """
    norm = text.normalised()
    if norm.is_empty:
        return None
    if _WORD.search(f"{norm.trigger} {norm.directive}") is None:
        shown = f"{norm.trigger} {norm.directive}".strip()
        return f"the label {shown!r} is a single character or punctuation only"
    return None


@dataclass(frozen=True)
class TrajectoryKey:
    """A trajectory's identity across stores: where it lives and what it said."""

    corpus: str
    file: str
    line: int
    trajectory_id: str
    record_hash: str

    def to_dict(self) -> dict[str, Any]:
        return {"corpus": self.corpus, "file": self.file, "line": self.line,
                "trajectory_id": self.trajectory_id, "content_hash": self.record_hash}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrajectoryKey:
        return cls(str(data["corpus"]), str(data["file"]), int(data["line"]), str(data["trajectory_id"]),
                   str(data["content_hash"]))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Label:
    id: int
    trajectory_pk: int | None  # None: the record is gone from this store (label kept)
    key: TrajectoryKey
    reviewer: str
    text: LabelText
    origin: str  # "local" or "import:<file name>"
    created_at: str
    updated_at: str
    stale: bool = False  # the record changed since the label was last saved

    @property
    def sentence(self) -> str:
        return self.text.sentence()


@dataclass(frozen=True)
class SaveResult:
    label: Label
    changed: bool  # False: same text as stored, nothing written (autosave-friendly)


@dataclass(frozen=True)
class LabelHistoryEntry:
    id: int
    label_id: int
    actor: str
    action: str  # save | reconfirm | import
    at: str
    before: LabelText | None
    after: LabelText
    reason: str | None


@dataclass(frozen=True)
class Adjudication:
    id: int
    trajectory_pk: int | None
    key: TrajectoryKey
    lead: str
    chosen_reviewer: str | None  # whose label was chosen, None for a label the lead wrote
    text: LabelText
    reason: str
    origin: str
    created_at: str


@dataclass(frozen=True)
class GroundTruth:
    """The label a trajectory is measured against, and where it came from."""

    trajectory_pk: int
    source: GroundTruthSource
    text: LabelText | None
    sentence: str | None  # None: no ground truth at all (unmeasured, never 0)
    reviewer: str | None = None  # the labeller, or the lead for an adjudication
    conflicting: bool = False  # reviewers' labels differ and nobody adjudicated yet

    @property
    def measurable(self) -> bool:
        return bool(self.sentence)


@dataclass(frozen=True)
class LabelQueueRow:
    """One row of the labelling list."""

    trajectory_pk: int
    trajectory_id: str
    corpus: str
    file: str
    line: int
    domain: str | None
    success: bool
    failure_class: str | None
    imported_rule: str | None
    my_label: str | None  # this reviewer's sentence, None when missing
    labels: int  # labels by anyone
    adjudicated: bool


@dataclass(frozen=True)
class LabelFilter:
    corpus: str | None = None
    domain: str | None = None
    status: str = "all"  # all | missing | labelled | no_ground_truth
    text: str = ""
