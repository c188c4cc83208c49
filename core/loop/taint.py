"""Source trust (reference §6.7, #727 / #779): is a candidate's source trajectory tainted?

Two answers, both kept:

* ``reference`` -- what ``cauterule.security.is_source_tainted`` (0.3.1) says: the
  ``injection_signal`` flag, or one of 16 instruction-override markers (NFKC, Cyrillic /
  Greek look-alikes folded to Latin, any whitespace between words) or a long base64-looking
  blob in a step's ``input`` + ``output``. Parity is tested on every shared-corpus record and
  on generated look-alike strings.
* ``tainted`` -- the Workbench's answer: the same scan over *every* text field (``task`` and
  step ``error`` too, where adversarial sets put their payloads, §12.2), with each hit named
  (field, marker) so a reviewer sees why.

Approving a tainted candidate needs a written justification (:func:`check_approval`); the
decision path calls it before it records an approval.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.corpus.validation import parse_strict_bool
from core.domain.errors import ApprovalRefused

MARKERS: tuple[str, ...] = (
    "ignore previous instructions", "ignore all previous", "ignore the above", "disregard previous",
    "disregard the above", "disregard all prior", "system prompt", "you are now", "developer mode",
    "jailbreak", "<|im_start|>", "<|system|>", "[inst]", "### instruction", "override your", "do not follow the",
)
ENCODED_BLOB = "encoded blob"

# Confusable letters folded to Latin after NFKC (the 0.3.1 set, #779): Cyrillic lower-case
# a e o p c y x i s j d q h w, Greek capitals A B E Z H I K M N O P T Y X.
_LOOKALIKES = {
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ѕ": "s", "ј": "j",
    "ԁ": "d", "ԛ": "q", "һ": "h", "ԝ": "w",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}
LOOKALIKES: dict[str, str] = dict(_LOOKALIKES)
_FOLD_TABLE = str.maketrans(_LOOKALIKES)
# Words of a marker may be separated by any run of whitespace (newlines, tabs, doubled spaces).
_MARKER_PATTERNS = tuple(
    (marker, re.compile(r"\s+".join(map(re.escape, marker.split())), re.IGNORECASE)) for marker in MARKERS
)
# 60+ base64 alphabet characters; a blob counts only with base64 punctuation (+, / or trailing
# =), so hex digests and git SHAs (ubiquitous in tool output) are not payloads.
_BLOB = re.compile(r"[A-Za-z0-9+/]{60,}={0,2}")


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_FOLD_TABLE)


def markers_in(text: str) -> list[str]:
    """Every marker found in ``text`` (after folding), plus ``encoded blob`` when one is present."""
    folded = fold(text)
    found = [marker for marker, pattern in _MARKER_PATTERNS if pattern.search(folded)]
    if any("+" in m.group(0) or "/" in m.group(0) or m.group(0).endswith("=") for m in _BLOB.finditer(text)):
        found.append(ENCODED_BLOB)
    return found


@dataclass(frozen=True)
class TaintHit:
    field: str  # task, steps[2].output, injection_signal, ...
    marker: str

    def label(self) -> str:
        return f"{self.field}: {self.marker}"


@dataclass(frozen=True)
class TaintReport:
    reference: bool  # what 0.3.1's is_source_tainted says
    hits: tuple[TaintHit, ...]  # every text field scanned

    @property
    def tainted(self) -> bool:
        return self.reference or bool(self.hits)

    def summary(self) -> str:
        return "; ".join(h.label() for h in self.hits) or ("tainted (reference scan)" if self.reference else "clean")

    def to_dict(self) -> dict[str, Any]:
        return {"tainted": self.tainted, "reference_tainted": self.reference,
                "hits": [{"field": h.field, "marker": h.marker} for h in self.hits]}


def _steps(record: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    raw = record.get("steps")
    return [(i, s) for i, s in enumerate(raw if isinstance(raw, list) else []) if isinstance(s, Mapping)]


def _text(value: Any) -> str:
    return "" if value is None else (value if isinstance(value, str) else str(value))


def reference_tainted(record: Mapping[str, Any]) -> bool:
    """0.3.1's answer: the flag, or a marker / blob in some step's ``input`` + newline + ``output``."""
    if parse_strict_bool(record.get("injection_signal", False)):
        return True
    for _i, step in _steps(record):
        # The reference joins the two fields, so a marker split across them still counts.
        text = f"{step.get('input') or ''}\n{step.get('output') or ''}"
        if text.strip() and markers_in(text):
            return True
    return False


def scan_record(record: Mapping[str, Any]) -> TaintReport:
    hits: list[TaintHit] = []
    if parse_strict_bool(record.get("injection_signal", False)):
        hits.append(TaintHit("injection_signal", "flag set in the record"))
    fields: list[tuple[str, str]] = [("task", _text(record.get("task")))]
    for i, step in _steps(record):
        fields += [(f"steps[{i}].{name}", _text(step.get(name))) for name in ("input", "output", "error")]
    for name, text in fields:
        hits += [TaintHit(name, m) for m in markers_in(text)] if text.strip() else []
    return TaintReport(reference_tainted(record), tuple(hits))


# -- approval hook ------------------------------------------------------------------------------
class TaintJustificationRequired(ApprovalRefused):
    """Approving a candidate whose source is tainted needs a written justification (an
    ApprovalRefused, so every approval path already shows it as a refusal)."""


MIN_JUSTIFICATION = 10  # characters; "ok" is not a justification


def check_approval(report: TaintReport | None, justification: str | None) -> str | None:
    """Raise unless an approval may proceed. Returns the justification to record (None when clean).

    The decision path must call this before recording an approval, and count the approval
    as a tainted approval (audit action ``approve_tainted``) when it returns text."""
    if report is None or not report.tainted:
        return None
    text = (justification or "").strip()
    if len(text) < MIN_JUSTIFICATION:
        raise TaintJustificationRequired(
            f"approval refused: the source trajectory is tainted ({report.summary()}); approving needs a written justification "
            f"of at least {MIN_JUSTIFICATION} characters"
        )
    return text
