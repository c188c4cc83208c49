"""What the agreement screen asks the store, as plain functions a DB job can run (no Qt).

The judging functions return the core's ``BlindItem`` (no replay answer, no stratum in a blind
session) and, separately, the ``Reveal`` that ``commit_judgement`` gives back only after the
judgement is committed. Nothing on this path reads ``items_with_answers``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.agreement.blind import BlindView, trajectory_text
from core.agreement.session import commit_judgement, judging_view, list_sessions, next_item, preview_session, progress
from core.domain.agreement import BlindItem, Progress, Reveal, SessionInfo
from core.store.agreement_repo import AgreementRepository
from core.store.corpus_repo import CorpusRepository
from core.store.dto import TrajectoryDetail
from core.store.engine import Store
from core.store.replay_repo import ReplayRepository, RunInfo


@dataclass(frozen=True)
class Choices:
    runs: tuple[RunInfo, ...]  # complete runs, newest first
    sessions: tuple[SessionInfo, ...]
    progress: dict[int, Progress]  # session id -> this reviewer's progress


@dataclass(frozen=True)
class JudgeItem:
    """One blind item and what the reviewer needs to judge it (never replay's answer when blind)."""

    session: SessionInfo
    item: BlindItem | None  # None: the reviewer has judged every item
    progress: Progress
    detail: TrajectoryDetail | None  # the evidence item's trajectory (never shown before the commit)
    evidence: tuple[tuple[int, str], ...]  # verdict items: (pk, "") where the rule fires; ids are not shown
    view: BlindView | None = None  # every string the judging screen shows before the commit

def choices(store: Store, reviewer: str) -> Choices:
    runs = tuple(r for r in reversed(ReplayRepository(store).runs()) if r.status == "complete")
    sessions = tuple(list_sessions(store))
    done = {s.id: progress(store, s.id, reviewer) for s in sessions} if reviewer else {}
    return Choices(runs, sessions, done)


def preview(store: Store, run_id: int, size: int, seed: int, allocation: str) -> Any:
    return preview_session(store, run_id, size=size, target_half_width=None, seed=seed, allocation=allocation)


def judge_item(store: Store, session: SessionInfo, reviewer: str) -> JudgeItem:
    item = next_item(store, session.id, reviewer)
    done = progress(store, session.id, reviewer)
    detail = None
    evidence: tuple[tuple[int, str], ...] = ()
    corpora = CorpusRepository(store)
    if item is not None and item.trajectory_pk is not None:
        detail = corpora.get_trajectory(item.trajectory_pk)
    if item is not None and item.evidence_pks:
        evidence = tuple((pk, "") for pk in item.evidence_pks)
    view = None if item is None else judging_view(store, item)
    return JudgeItem(session, item, done, detail, evidence, view)


def commit(store: Store, item_id: int, reviewer: str, answer: str, scope: str | None = None) -> Reveal:
    return commit_judgement(store, item_id, reviewer, answer, scope=scope)


def trajectory(store: Store, pk: int) -> TrajectoryDetail | None:
    return CorpusRepository(store).get_trajectory(pk)


def blind_trajectory(store: Store, pk: int) -> str:
    """A trajectory as the blind judging screen may show it (no id, path, tags, expected_*)."""
    detail = CorpusRepository(store).get_trajectory(pk)
    return "" if detail is None else trajectory_text(detail.record, detail.success)


@dataclass(frozen=True)
class TeamView:
    judgements: Any  # InterRaterResult
    labels: Any  # LabelAgreementResult


def team_view(store: Store, session: int | None) -> TeamView:
    from core.agreement.team import judgement_agreement, label_agreement

    return TeamView(judgement_agreement(store, session), label_agreement(store))


def export_work(store: Store, reviewer: str, path: Path) -> dict[str, int]:
    from core.agreement.merge import export_reviewer

    return export_reviewer(store, reviewer, path)


def import_work(store: Store, path: Path, importer: str) -> Any:
    from core.agreement.merge import import_file

    return import_file(store, path, importer)


def unfinished_blind_session(store: Store, reviewer: str | None, origin: str) -> str | None:
    """The reviewer's unfinished BLIND session that holds a rule (by its origin), as words, or
    None. While it is unfinished the Review tab hides that rule's evidence board (its buckets
    are replay's answers): judging after seeing them would not be blind (issue 24 item 12)."""
    if not reviewer:
        return None
    for session_id in AgreementRepository(store).blind_sessions_with_rule(origin):
        done = progress(store, session_id, reviewer)
        if not done.done:
            info = next(s for s in list_sessions(store) if s.id == session_id)
            name = info.name or f"#{info.id}"
            return f"“{name}” (you: {done.committed}/{done.size} judged)"
    return None
