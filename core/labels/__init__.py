"""Ground-truth labelling: labels per reviewer, live feedback, accuracy per corpus, JSONL export.

The GUI's labelling screen uses these (all take a ``Store``; all return frozen DTOs; every
save is one committed transaction):

* ``LabelRepository(store)`` (``core.store.label_repo``): ``save``, ``get``, ``labels_for``,
  ``history``, ``queue`` / ``count_queue`` (filters: missing / labelled / no ground truth /
  domain / corpus / text), ``adjudicate``, ``ground_truth``.
* ``label_feedback(store, trajectory_pk, LabelText, embed)``: live similarity to candidates.
* ``corpus_accuracy(store, corpus, reviewer, run_id, embed)``: the per-corpus view.
* ``export_labels(store, corpus, out_dir, reviewer)``: JSONL with new ``expected_rule`` values.
"""

from __future__ import annotations

from typing import Any

from core.labels.model import (
    Adjudication,
    GroundTruth,
    Label,
    LabelFilter,
    LabelHistoryEntry,
    LabelQueueRow,
    LabelText,
    SaveResult,
    TrajectoryKey,
    label_warnings,
)

__all__ = [
    "Adjudication", "CandidateFeedback", "CorpusAccuracy", "GroundTruth", "Label", "LabelExportSummary",
    "LabelFeedback", "LabelFilter", "LabelHistoryEntry", "LabelQueueRow", "LabelText", "SaveResult",
    "TrajectoryKey", "corpus_accuracy", "export_labels", "label_feedback", "label_warnings",
]

# The store layer imports ``core.labels.model``; the modules below import the store, so they
# load on first use to keep the import graph acyclic.
_LAZY = {
    "CorpusAccuracy": "core.labels.accuracy", "corpus_accuracy": "core.labels.accuracy",
    "LabelExportSummary": "core.labels.export", "export_labels": "core.labels.export",
    "CandidateFeedback": "core.labels.feedback", "LabelFeedback": "core.labels.feedback",
    "label_feedback": "core.labels.feedback",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'core.labels' has no attribute {name!r}")
