"""The role of a corpus: what a record in it is supposed to produce.

Ground truth is each record's ``expected_outcome`` (reference doc §3.1); the folder name is
the fallback for unannotated corpora. Folder rules follow the reference doc §3.2, which fixes
two known mismatches of the 0.3.1 name-based classifier: ``counterexample`` and ``staleness``
hold ``should_reject`` records and are rejection corpora here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Final

EXTRACTION: Final = "extraction"
SILENCE: Final = "silence"
REJECTION: Final = "rejection"
REFERENCE: Final = "reference"
ROLES: Final = (EXTRACTION, SILENCE, REJECTION, REFERENCE)

_ROLE_BY_OUTCOME: Final = {
    "should_extract": EXTRACTION,
    "should_silence": SILENCE,
    "should_reject": REJECTION,
}

# Folder patterns as path-segment sequences; "*" matches any one segment.
_FOLDER_PATTERNS: Final[tuple[tuple[tuple[str, ...], str], ...]] = (
    (("failures", "negative"), SILENCE),
    (("failures", "positive"), EXTRACTION),
    (("adversarial", "*"), REJECTION),
    (("raw", "*"), EXTRACTION),
    (("real-world", "bugsinpy"), EXTRACTION),
    (("nearmiss",), REJECTION),
    (("adversarial",), REJECTION),
    (("counterexample",), REJECTION),
    (("staleness",), REJECTION),
    (("successes",), SILENCE),
    (("golden",), EXTRACTION),
    (("corrections",), EXTRACTION),
    (("raw",), EXTRACTION),
    (("reference-expansion",), EXTRACTION),
    (("paraphrase-diversity",), EXTRACTION),
    (("synthetic",), EXTRACTION),
    (("domains",), EXTRACTION),
    (("adapters",), EXTRACTION),
    (("lifecycle",), EXTRACTION),
    (("packs",), EXTRACTION),
    (("mcp",), EXTRACTION),
    (("otel",), EXTRACTION),
    (("lifecycle_infra",), EXTRACTION),
    (("browser",), EXTRACTION),
    (("bugsinpy",), EXTRACTION),
    # Pool-only corpora: named explicitly so a parent folder name cannot claim them.
    (("noisy",), REFERENCE),
    (("golden_replay",), REFERENCE),
    (("ci_reference",), REFERENCE),
    (("cost",), REFERENCE),
)


def role_for_outcome(expected_outcome: str | None) -> str | None:
    """should_extract → extraction, should_silence → silence, should_reject → rejection."""
    if not isinstance(expected_outcome, str):
        return None
    return _ROLE_BY_OUTCOME.get(expected_outcome)


def role_for_folder(corpus_name: str) -> str:
    """Role from the corpus folder path; unknown folders are reference-pool only.

    The deepest matching folder decides, so ``golden/sub`` is golden and
    ``curated/failures/negative`` is silence rather than something ``curated`` implies.
    At one depth the longer pattern wins (``failures/negative`` before ``negative``).
    """
    parts = [p for p in corpus_name.lower().replace("\\", "/").split("/") if p and p != "."]
    for end in range(len(parts), 0, -1):
        for pattern, role in _FOLDER_PATTERNS:  # longer patterns are listed first
            start = end - len(pattern)
            if start >= 0 and all(want in ("*", got) for want, got in zip(pattern, parts[start:end])):
                return role
    return REFERENCE


def infer_corpus_role(corpus_name: str, outcomes: Iterable[str | None]) -> tuple[str, str]:
    """Return ``(role, source)``: source ``"expected_outcome"`` when the annotated records
    have a unique most common role, else ``"folder"`` (no annotations, or a tie)."""
    counts = Counter(role for role in map(role_for_outcome, outcomes) if role is not None)
    ranked = counts.most_common(2)
    if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
        return ranked[0][0], "expected_outcome"
    return role_for_folder(corpus_name), "folder"
