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

from core.domain.labels import (
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
from core.labels.accuracy import CorpusAccuracy, corpus_accuracy
from core.labels.export import LabelExportSummary, export_labels
from core.labels.feedback import CandidateFeedback, LabelFeedback, label_feedback

__all__ = [
    "Adjudication", "CandidateFeedback", "CorpusAccuracy", "GroundTruth", "Label", "LabelExportSummary",
    "LabelFeedback", "LabelFilter", "LabelHistoryEntry", "LabelQueueRow", "LabelText", "SaveResult",
    "TrajectoryKey", "corpus_accuracy", "export_labels", "label_feedback", "label_warnings",
]
