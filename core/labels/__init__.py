"""Ground-truth labelling: labels per reviewer, live feedback, accuracy per corpus, JSONL export.

The GUI's labelling screen uses these (all take a ``Store``; all return frozen DTOs; every
write is one committed transaction, its rules checked inside it):

* the label service (``core.labels.service``): ``save_label``, ``adjudicate``, and the merge's
  ``import_label`` / ``import_adjudication``. Nothing else writes labels or rulings.
* reads: ``LabelRepository(store)`` (``core.store.label_repo``): ``get``, ``labels_for``,
  ``history``, ``queue`` / ``count_queue`` (filters: missing / labelled / no ground truth /
  domain / corpus / text), ``ground_truth``.
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
from core.labels.service import adjudicate, import_adjudication, import_label, save_label

__all__ = [
    "Adjudication", "CandidateFeedback", "CorpusAccuracy", "GroundTruth", "Label", "LabelExportSummary",
    "LabelFeedback", "LabelFilter", "LabelHistoryEntry", "LabelQueueRow", "LabelText", "SaveResult",
    "TrajectoryKey", "adjudicate", "corpus_accuracy", "export_labels", "import_adjudication", "import_label",
    "label_feedback", "label_warnings", "save_label",
]
