"""Blind agreement sessions: create from a replay run, judge item by item, resume any time.

The judging loop a screen runs::

    item = next_item(store, session_id, "ana")          # no replay answer in a blind session
    reveal = commit_judgement(store, item.item_id, "ana", "pass")   # committed, THEN revealed
    reveal.replay_answer, reveal.agrees, reveal.progress

Everything is in the store, so closing the app mid-session loses nothing: ``next_item``
simply continues with the first item the reviewer has not judged.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from core.agreement.blind import BlindView, blind_view
from core.agreement.sampling import stratified_sample
from core.agreement.sizing import DEFAULT_ASSUMED_P, DEFAULT_HALF_WIDTH, SizePlan, plan_size
from core.domain.agreement import DEFAULT_GATE, QUESTION_FIRING_SCOPE, BlindItem, Progress, Reveal, SessionInfo
from core.store.agreement_population import as_firing
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store


class RunNotUsable(ValueError):
    """The run is missing or not complete (a cancelled run's evidence is partial)."""


@dataclass(frozen=True)
class SessionPreview:
    """What the creation dialog shows before anything is written."""

    run_id: int
    plan: SizePlan
    strata: dict[str, dict[str, int]]  # stratum -> {"population": N, "sampled": n}


def _check_run(repo: AgreementRepository, run_id: int) -> None:
    identity = repo.run_identity(run_id)
    if identity is None:
        raise RunNotUsable(f"no replay run #{run_id}")
    if identity["status"] != "complete":
        raise RunNotUsable(f"replay run #{run_id} is {identity['status']}, not complete: its evidence is partial")


def preview_session(
    store: Store, run_id: int, *, size: int | None = None, target_half_width: float | None = DEFAULT_HALF_WIDTH,
    assumed_p: float = DEFAULT_ASSUMED_P, allocation: str = "proportional", min_per_stratum: int = 2,
    rule_kinds: Sequence[str] | None = None, by_corpus: bool = False, seed: int = 0,
) -> SessionPreview:
    repo = AgreementRepository(store)
    _check_run(repo, run_id)
    population = [as_firing(i) for i in repo.population(run_id, rule_kinds, by_corpus)]
    plan = plan_size(len(population), target_half_width, size, assumed_p)
    _items, strata = stratified_sample(population, plan.size, seed, allocation, min_per_stratum)
    return SessionPreview(run_id, plan, strata)


def create_session(
    store: Store, run_id: int, created_by: str, *, size: int | None = None,
    target_half_width: float | None = DEFAULT_HALF_WIDTH, assumed_p: float = DEFAULT_ASSUMED_P,
    seed: int | None = None, allocation: str = "proportional", min_per_stratum: int = 2, blind: bool = True,
    gate: float = DEFAULT_GATE, rule_kinds: Sequence[str] | None = None, by_corpus: bool = False,
    name: str | None = None,
) -> SessionInfo:
    """Sample a stratified, seeded session from a complete run and save it (one transaction).

    The size is ``size`` when given, else the n whose expected Wilson half-width at
    ``assumed_p`` is ``target_half_width``; either way capped by what the run offers. The seed
    is stored, so the same run, seed and settings always give the same items in the same order.
    """
    if not 0.0 < gate <= 1.0:
        raise ValueError(f"the gate must be in (0, 1], got {gate}")
    if not created_by.strip():
        raise ValueError("a session needs its creator's name")
    repo = AgreementRepository(store)
    _check_run(repo, run_id)
    # Evidence is asked as the two questions (firing, then scope on failures): schema step 7.
    population = [as_firing(i) for i in repo.population(run_id, rule_kinds, by_corpus)]
    if not population:
        raise RunNotUsable(f"replay run #{run_id} has nothing to judge")
    plan = plan_size(len(population), target_half_width, size, assumed_p)
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    items, strata = stratified_sample(population, plan.size, seed, allocation, min_per_stratum)
    return repo.create_session(
        items=items, created_by=created_by.strip(), seed=seed, assumed_p=assumed_p,
        target_half_width=plan.target_half_width, blind=blind, allocation=allocation,
        min_per_stratum=min_per_stratum, gate=gate, strata=strata, run_id=run_id, name=name,
        question=QUESTION_FIRING_SCOPE,
    )


def _session_id(store: Store, session: int | str | SessionInfo) -> int:
    if isinstance(session, SessionInfo):
        return session.id
    return AgreementRepository(store).session(session).id


def next_item(store: Store, session: int | str | SessionInfo, reviewer: str) -> BlindItem | None:
    """The reviewer's next unjudged item (blind: no replay answer); None when finished."""
    return AgreementRepository(store).next_item(_session_id(store, session), reviewer)


def commit_judgement(
    store: Store, session_item: int, reviewer: str, answer: str, *, rubric: dict[str, bool] | None = None,
    note: str | None = None, scope: str | None = None,
) -> Reveal:
    """Commit one judgement (its own transaction, final), then reveal replay's answer.

    ``answer`` is the firing answer (or the verdict); ``scope`` answers the scope question,
    required exactly when the item asks it (``BlindItem.scope_choices``).
    """
    return AgreementRepository(store).commit(session_item, reviewer, answer, rubric, note, scope=scope)


def reveal(store: Store, session_item: int, reviewer: str) -> Reveal:
    """Replay's answer for an item the reviewer has already judged (raises ``NotYetCommitted``)."""
    return AgreementRepository(store).reveal(session_item, reviewer)


def progress(store: Store, session: int | str | SessionInfo, reviewer: str) -> Progress:
    return AgreementRepository(store).progress(_session_id(store, session), reviewer)


def list_sessions(store: Store, run_id: int | None = None) -> list[SessionInfo]:
    return AgreementRepository(store).sessions(run_id)


def judging_view(store: Store, item: BlindItem) -> BlindView:
    """Every string the judging screen shows for ``item`` before the commit (blind by construction)."""
    from core.store.corpus_repo import CorpusRepository

    detail = CorpusRepository(store).get_trajectory(item.trajectory_pk) if item.trajectory_pk is not None else None
    return blind_view(item, None if detail is None else detail.record, None if detail is None else detail.success)
