"""Blind agreement sessions, the agreement service: create from a replay run, judge item by item.

The judging loop a screen runs::

    item = next_item(store, session_id, "ana")          # no replay answer in a blind session
    reveal = commit_judgement(store, item.item_id, "ana", "pass")   # committed, THEN revealed
    reveal.replay_answer, reveal.agrees, reveal.progress

Everything is in the store, so closing the app mid-session loses nothing: ``next_item``
simply continues with the first item the reviewer has not judged.

The agreement rules live here, and each is checked once, inside the write transaction that
acts on it (``core.store.agreement_judging`` is plain SQL run in that transaction):

* a session rests on a COMPLETE run with something to judge, has a creator and a gate in (0, 1];
* blindness: ``next_item`` gives no replay answer in a blind session, and ``reveal`` refuses
  (``NotYetCommitted``) until the reviewer has committed;
* once a lead assigned a session, a reviewer judges only their own items (``NotAssigned``;
  an imported judgement was made elsewhere and is not refused for it);
* the answer is one of the item's answers; the scope answer only where the scope question is
  asked; the rubric only names known questions;
* a judgement is final (``AlreadyCommitted``, also when two commits race: the table's unique key).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from core.agreement.blind import BlindView, blind_view
from core.agreement.sampling import stratified_sample
from core.agreement.sizing import DEFAULT_ASSUMED_P, DEFAULT_HALF_WIDTH, SizePlan, plan_size
from core.domain.agreement import (
    CANT_TELL,
    DEFAULT_GATE,
    QUESTION_FIRING_SCOPE,
    SCOPE_ANSWERS,
    BlindItem,
    ItemRecord,
    PopulationItem,
    Progress,
    Reveal,
    SessionInfo,
    answers_for,
)
from core.domain.errors import AlreadyCommitted, NotAssigned, NotYetCommitted, RunNotUsable
from core.domain.names import checked_name, checked_reason
from core.store.agreement_judging import (
    assigned_to_in,
    blind_item,
    committed_in,
    firing_evidence_in,
    insert_judgement_in,
    insert_session_in,
    is_assigned_in,
    item_in,
    next_unjudged_in,
    progress_in,
    revealed_in,
    run_identity_in,
    session_info_in,
)
from core.store.agreement_population import as_firing
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store
from core.timeutil import utc_now

RUBRIC_QUESTIONS = frozenset({"trigger_specific", "directive_actionable", "safe_to_promote"})


@dataclass(frozen=True)
class SessionPreview:
    """What the creation dialog shows before anything is written."""

    run_id: int
    plan: SizePlan
    strata: dict[str, dict[str, int]]  # stratum -> {"population": N, "sampled": n}


def _check_run(identity: dict[str, Any] | None, run_id: int) -> None:
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
    _check_run(repo.run_identity(run_id), run_id)  # a preview writes nothing: the same rule, on a read
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
    # Sampling reads the run's population first (outside the write lock: it is the long part);
    # the rules are checked below, in the transaction that writes the session.
    # Evidence is asked as the two questions (firing, then scope on failures): schema step 7.
    created_by = checked_name(created_by, "name of the session's creator")
    name = (checked_name(name, "session name") or None) if name is not None else None
    population = [as_firing(i) for i in AgreementRepository(store).population(run_id, rule_kinds, by_corpus)]
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    items: list[PopulationItem] = []
    strata: dict[str, dict[str, int]] = {}
    half_width = target_half_width if size is None else None
    if population:
        plan = plan_size(len(population), target_half_width, size, assumed_p)
        items, strata = stratified_sample(population, plan.size, seed, allocation, min_per_stratum)
        half_width = plan.target_half_width
    with store.session() as session:
        if not 0.0 < gate <= 1.0:
            raise ValueError(f"the gate must be in (0, 1], got {gate}")
        if not created_by.strip():
            raise ValueError("a session needs its creator's name")
        identity = run_identity_in(session, run_id)
        _check_run(identity, run_id)
        if not items:
            raise RunNotUsable(f"replay run #{run_id} has nothing to judge")
        return insert_session_in(
            session, items=items, created_by=created_by.strip(), seed=seed, assumed_p=assumed_p,
            target_half_width=half_width, blind=blind, allocation=allocation, min_per_stratum=min_per_stratum,
            gate=gate, strata=strata, run_id=run_id, run_identity=identity, created_at=utc_now(), name=name,
            question=QUESTION_FIRING_SCOPE,
        )


def _session_id(store: Store, session: int | str | SessionInfo) -> int:
    if isinstance(session, SessionInfo):
        return session.id
    return AgreementRepository(store).session(session).id


def next_item(store: Store, session: int | str | SessionInfo, reviewer: str) -> BlindItem | None:
    """The reviewer's next unjudged item (blind: no replay answer); None when finished."""
    session_id = _session_id(store, session)
    with store.read_session() as db:
        item = next_unjudged_in(db, session_id, reviewer)
        if item is None:
            return None
        parent = session_info_in(db, item.session_id)
        assert parent is not None
        evidence = firing_evidence_in(db, item.result_id) if item.kind == "verdict" and item.result_id is not None else ()
        # Blindness: replay's answer only in an unblinded session (its stratum never: it names it).
        return blind_item(item, parent, answers_for(item.kind), SCOPE_ANSWERS if item.scope_replay is not None else (),
                          evidence, None if parent.blind else item.replay_answer)


def commit_judgement(
    store: Store, session_item: int, reviewer: str, answer: str, *, rubric: dict[str, bool] | None = None,
    note: str | None = None, scope: str | None = None, origin: str = "local", committed_at: str | None = None,
) -> Reveal:
    """Commit one judgement (its own transaction, final), then reveal replay's answer.

    ``answer`` is the firing answer (or the verdict); ``scope`` answers the scope question,
    asked only where the item asks it (``BlindItem.scope_choices``). ``origin`` and
    ``committed_at`` are an imported judgement's (``core.agreement.merge``).
    """
    reviewer = checked_name(reviewer)
    note = checked_reason(note, "note")
    if not reviewer:
        raise ValueError("a judgement needs a reviewer")
    with store.session() as db:
        item = item_in(db, session_item)
        if item is None:
            raise LookupError(f"no agreement item #{session_item}")
        if origin == "local" and is_assigned_in(db, item.session_id) and not assigned_to_in(
                db, item.session_id, item.ordinal, reviewer):
            raise NotAssigned(f"item {item.ordinal} of session #{item.session_id} is not assigned to {reviewer}")
        if answer not in answers_for(item.kind):
            raise ValueError(f"{answer!r} is not an answer for a {item.kind} item; choose from {answers_for(item.kind)}")
        if item.scope_replay is None and scope is not None:
            raise ValueError(f"item #{session_item} does not ask the scope question (its trajectory is not a failure)")
        if scope is not None and scope not in SCOPE_ANSWERS:
            raise ValueError(f"{scope!r} is not a scope answer; choose from {SCOPE_ANSWERS}")
        unknown = set(rubric or {}) - RUBRIC_QUESTIONS
        if unknown:
            raise ValueError(f"unknown rubric questions: {sorted(unknown)}")
        existing = committed_in(db, session_item, reviewer)
        if existing is not None:
            raise AlreadyCommitted(f"{reviewer} already judged item #{session_item} ({existing[0]}); judgements are final")
        now = committed_at or utc_now()
        try:
            insert_judgement_in(db, item, reviewer, answer, rubric, note, origin, now, scope)
        except IntegrityError as error:  # a concurrent commit of the same judgement
            raise AlreadyCommitted(f"{reviewer} already judged item #{session_item}") from error
        return _reveal(db, item, reviewer, answer, now, scope)


def reveal(store: Store, session_item: int, reviewer: str) -> Reveal:
    """Replay's answer for an item the reviewer has already judged (raises ``NotYetCommitted``)."""
    with store.read_session() as db:
        item = item_in(db, session_item)
        if item is None:
            raise LookupError(f"no agreement item #{session_item}")
        committed = committed_in(db, session_item, reviewer)
        if committed is None:
            raise NotYetCommitted(f"{reviewer} has not committed a judgement on item #{session_item}")
        answer, at, scope = committed
        return _reveal(db, item, reviewer, answer, at, scope)


def _reveal(db: Session, item: ItemRecord, reviewer: str, answer: str, at: str, scope: str | None) -> Reveal:
    agrees = None if answer == CANT_TELL else answer == item.replay_answer
    return Reveal(item.id, reviewer, answer, item.replay_answer, agrees, at, progress_in(db, item.session_id, reviewer),
                  scope, item.scope_replay, revealed_in(db, item))


def progress(store: Store, session: int | str | SessionInfo, reviewer: str) -> Progress:
    return AgreementRepository(store).progress(_session_id(store, session), reviewer)


def list_sessions(store: Store, run_id: int | None = None) -> list[SessionInfo]:
    return AgreementRepository(store).sessions(run_id)


def judging_view(store: Store, item: BlindItem) -> BlindView:
    """Every string the judging screen shows for ``item`` before the commit (blind by construction)."""
    from core.store.corpus_repo import CorpusRepository

    detail = CorpusRepository(store).get_trajectory(item.trajectory_pk) if item.trajectory_pk is not None else None
    return blind_view(item, None if detail is None else detail.record, None if detail is None else detail.success)
