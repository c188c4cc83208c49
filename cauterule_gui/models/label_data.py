"""What the labelling screen asks the store, as plain functions a DB job can run.

Nothing here touches Qt: each function takes the ``Store`` and returns frozen values (the
core's DTOs), so the panel can run it on the job runner's DB pool and show the result on the
GUI thread. Writes go through the label service, ``core.labels.service.save_label`` (one
committed transaction each, its rules checked inside it).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.domain.labels import GroundTruth, Label, LabelFilter, LabelHistoryEntry, LabelQueueRow, LabelText, SaveResult
from core.labels import service as label_service
from core.labels.feedback import extracted_rules
from core.store.corpus_repo import CorpusRepository
from core.store.dto import RuleInfo, TrajectoryDetail
from core.store.engine import Store
from core.store.label_repo import LabelRepository
from core.store.replay_repo import ReplayRepository

QUEUE_PAGE = 200


@dataclass(frozen=True)
class QueuePage:
    offset: int
    rows: tuple[LabelQueueRow, ...]
    total: int | None  # counted on the first page only


@dataclass(frozen=True)
class FilterChoices:
    corpora: tuple[str, ...]  # corpora that hold trajectories
    domains: tuple[str, ...]
    latest_run: int | None  # the newest complete replay run (chooses the measured candidate)


@dataclass(frozen=True)
class LabellingContext:
    """Everything shown for one trajectory while it is being labelled."""

    detail: TrajectoryDetail
    mine: Label | None
    history: tuple[LabelHistoryEntry, ...]
    others: tuple[Label, ...]  # other reviewers' labels (each reviewer keeps their own)
    candidates: tuple[RuleInfo, ...]  # rules extracted from this trajectory
    ground_truth: GroundTruth


@dataclass(frozen=True)
class SavedLabel:
    trajectory_pk: int
    text: LabelText  # what was submitted (the panel compares it with the editor)
    result: SaveResult
    history: tuple[LabelHistoryEntry, ...]


def filter_choices(store: Store) -> FilterChoices:
    corpora = CorpusRepository(store)
    run = ReplayRepository(store).latest_complete_run()
    return FilterChoices(
        corpora=tuple(c.name for c in corpora.list_corpora() if c.trajectories > 0),
        domains=tuple(corpora.domains()), latest_run=None if run is None else run.id,
    )


def queue_page(store: Store, reviewer: str, flt: LabelFilter, offset: int, limit: int = QUEUE_PAGE) -> QueuePage:
    repo = LabelRepository(store)
    total = repo.count_queue(reviewer, flt) if offset == 0 else None
    return QueuePage(offset, tuple(repo.queue(reviewer, flt, offset=offset, limit=limit)), total)


def labelling_context(store: Store, trajectory_pk: int, reviewer: str) -> LabellingContext:
    corpora = CorpusRepository(store)
    detail = corpora.get_trajectory(trajectory_pk)
    if detail is None:
        raise LookupError(f"trajectory #{trajectory_pk} is no longer in this store")
    repo = LabelRepository(store)
    labels = repo.labels_for(trajectory_pk)
    mine = next((lb for lb in labels if lb.reviewer == reviewer), None)
    history = tuple(repo.history(mine.id)) if mine is not None else ()
    return LabellingContext(
        detail=detail, mine=mine, history=history, others=tuple(lb for lb in labels if lb.reviewer != reviewer),
        candidates=tuple(extracted_rules(store, trajectory_pk)), ground_truth=repo.ground_truth(trajectory_pk),
    )


def save_label(store: Store, trajectory_pk: int, reviewer: str, text: LabelText) -> SavedLabel:
    result = label_service.save_label(store, trajectory_pk, reviewer, text)
    return SavedLabel(trajectory_pk, text, result, tuple(LabelRepository(store).history(result.label.id)))
