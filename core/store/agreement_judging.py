"""The SQL of the agreement write path, run inside the caller's transaction (no policy here).

The agreement service (``core.agreement.session``) opens one write session and passes it to
these functions: it reads the item, the assignment and any earlier judgement, checks its rules
(``core.agreement.session`` owns them: who may judge what, valid answers, blindness, judgements
are final), then writes with :func:`insert_judgement_in` / :func:`insert_session_in`. Each
writer adds its audit event in the same session, so a row is never saved without its trail.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import text as sql
from sqlmodel import Session, col, select

from core.domain.agreement import BlindItem, ItemRecord, PopulationItem, Progress, SessionInfo
from core.store.agreement_population import scope_replay_of
from core.store.outcome_reads import result_block
from core.store.review_repo import append_audit
from core.store.tables_labels import (
    AgreementAssignmentRow,
    AgreementItemRow,
    AgreementJudgementRow,
    AgreementSessionRow,
)


def session_info(row: AgreementSessionRow) -> SessionInfo:
    return SessionInfo(
        id=row.id or 0, uid=row.uid, name=row.name, run_id=row.run_id, run_profile=row.run_profile,
        run_config_hash=row.run_config_hash, run_corpus_hash=row.run_corpus_hash, seed=row.seed,
        target_half_width=row.target_half_width, assumed_p=row.assumed_p, size=row.size, blind=bool(row.blind),
        allocation=row.allocation, min_per_stratum=row.min_per_stratum, gate=row.gate,
        strata=json.loads(row.strata_json), created_by=row.created_by, origin=row.origin, created_at=row.created_at,
        question=row.question,
    )


def item_record(row: AgreementItemRow) -> ItemRecord:
    return ItemRecord(
        id=row.id or 0, session_id=row.session_id, ordinal=row.ordinal, kind=row.kind, result_id=row.result_id,
        rule_origin=row.rule_origin, rule_version=row.rule_version, trigger=row.trigger, directive=row.directive,
        trajectory_pk=row.trajectory_pk,
        trajectory_key=None if row.trajectory_key_json is None else json.loads(row.trajectory_key_json),
        stratum=row.stratum, replay_answer=row.replay_answer, scope_replay=row.scope_replay, rule_pool=row.rule_pool,
    )


# -- reads inside a transaction ------------------------------------------------------------------
def run_identity_in(session: Session, run_id: int) -> dict[str, Any] | None:
    row = session.execute(
        sql("SELECT id, profile, config_hash, corpus_hash, status FROM replay_run WHERE id = :run"), {"run": run_id}
    ).mappings().first()
    return None if row is None else dict(row)


def session_info_in(session: Session, session_id: int) -> SessionInfo | None:
    row = session.get(AgreementSessionRow, session_id)
    return None if row is None else session_info(row)


def item_in(session: Session, item_id: int) -> ItemRecord | None:
    row = session.get(AgreementItemRow, item_id)
    return None if row is None else item_record(row)


def is_assigned_in(session: Session, session_id: int) -> bool:
    """Whether a lead assigned this session's items (revision 0004_assignments)."""
    parent = session.get(AgreementSessionRow, session_id)
    return parent is not None and parent.assigned_per_item is not None


def assigned_to_in(session: Session, session_id: int, ordinal: int, reviewer: str) -> bool:
    return bool(session.execute(sql(
        "SELECT count(*) FROM agreement_assignment WHERE session_id = :s AND ordinal = :o AND reviewer = :r"),
        {"s": session_id, "o": ordinal, "r": reviewer}).scalar_one())


def committed_in(session: Session, item_id: int, reviewer: str) -> tuple[str, str, str | None] | None:
    """The reviewer's judgement of an item as (answer, committed_at, scope); None if not judged."""
    row = session.exec(select(AgreementJudgementRow).where(
        AgreementJudgementRow.item_id == item_id, AgreementJudgementRow.reviewer == reviewer)).first()
    return None if row is None else (row.answer, row.committed_at, row.scope)


def next_unjudged_in(session: Session, session_id: int, reviewer: str) -> ItemRecord | None:
    """The first item (by ordinal) the reviewer has not judged: of their own items once assigned."""
    query = (
        select(AgreementItemRow)
        .where(AgreementItemRow.session_id == session_id)
        .where(~col(AgreementItemRow.id).in_(
            select(AgreementJudgementRow.item_id).where(AgreementJudgementRow.reviewer == reviewer)))
    )
    if is_assigned_in(session, session_id):
        query = query.where(col(AgreementItemRow.ordinal).in_(
            select(AgreementAssignmentRow.ordinal).where(AgreementAssignmentRow.session_id == session_id)
            .where(AgreementAssignmentRow.reviewer == reviewer)))
    row = session.exec(query.order_by(col(AgreementItemRow.ordinal))).first()
    return None if row is None else item_record(row)


def firing_evidence_in(session: Session, result_id: int) -> tuple[int, ...]:
    """The trajectories replay says a rule fires on (a verdict item's evidence), without buckets."""
    block = result_block(session, result_id, ("prevented", "broken", "near_miss"))
    return tuple(sorted(set(block.pk.tolist())))


def blind_item(item: ItemRecord, parent: SessionInfo, choices: tuple[str, ...], scope_choices: tuple[str, ...],
               evidence: tuple[int, ...], replay_answer: str | None) -> BlindItem:
    return BlindItem(
        item_id=item.id, session_id=item.session_id, ordinal=item.ordinal, kind=item.kind, result_id=item.result_id,
        rule_origin=item.rule_origin, rule_version=item.rule_version, trigger=item.trigger, directive=item.directive,
        trajectory_pk=item.trajectory_pk, choices=choices, evidence_pks=evidence, replay_answer=replay_answer,
        scope_choices=scope_choices, session_size=parent.size,
    )


def revealed_in(session: Session, item: ItemRecord) -> dict[str, Any]:
    """What the blind screen hid: where the trajectory comes from and what it expected."""
    key = item.trajectory_key
    found: dict[str, Any] = {"rule": item.rule_origin, "stratum": item.stratum}
    if key is not None:
        found.update(trajectory_id=key.get("trajectory_id"), corpus=key.get("corpus"), file=key.get("file"),
                     line=key.get("line"))
    if item.trajectory_pk is not None:
        row = session.execute(sql("SELECT expected_outcome, expected_rule FROM trajectory WHERE id = :pk"),
                              {"pk": item.trajectory_pk}).first()
        if row is not None:
            found.update(expected_outcome=row[0], expected_rule=row[1])
    return found


def progress_in(session: Session, session_id: int, reviewer: str) -> Progress:
    if is_assigned_in(session, session_id):  # the reviewer's share: the items assigned to them
        size = session.execute(
            sql("SELECT count(*) FROM agreement_assignment WHERE session_id = :s AND reviewer = :r"),
            {"s": session_id, "r": reviewer},
        ).scalar_one()
    else:
        size = session.execute(
            sql("SELECT count(*) FROM agreement_item WHERE session_id = :s"), {"s": session_id}
        ).scalar_one()
    committed = session.execute(
        sql("SELECT count(*) FROM agreement_judgement j JOIN agreement_item i ON i.id = j.item_id "
            "WHERE i.session_id = :s AND j.reviewer = :r"),
        {"s": session_id, "r": reviewer},
    ).scalar_one()
    return Progress(int(committed), int(size))


# -- writes ------------------------------------------------------------------------------------
def insert_session_in(
    session: Session, *, items: Sequence[PopulationItem], created_by: str, seed: int, assumed_p: float,
    target_half_width: float | None, blind: bool, allocation: str, min_per_stratum: int, gate: float,
    strata: dict[str, dict[str, int]], run_id: int | None, run_identity: dict[str, Any] | None, created_at: str,
    question: str, name: str | None = None, uid: str | None = None, origin: str = "local",
) -> SessionInfo:
    """The session, all its items and its audit event. ``run_identity``: the profile, config and
    corpus hashes of the run it samples (or, imported, of the run it was sampled from)."""
    identity = run_identity or {}
    row = AgreementSessionRow(
        uid=uid or uuid.uuid4().hex, name=name, run_id=run_id, run_profile=identity.get("profile"),
        run_config_hash=identity.get("config_hash"), run_corpus_hash=identity.get("corpus_hash"), seed=seed,
        target_half_width=target_half_width, assumed_p=assumed_p, size=len(items), blind=blind,
        allocation=allocation, min_per_stratum=min_per_stratum, gate=gate,
        strata_json=json.dumps(strata, sort_keys=True), created_by=created_by, origin=origin,
        created_at=created_at, question=question,
    )
    session.add(row)
    session.flush()
    assert row.id is not None
    for ordinal, item in enumerate(items, start=1):
        session.add(AgreementItemRow(
            session_id=row.id, ordinal=ordinal, kind=item.kind, result_id=item.result_id,
            rule_origin=item.rule_origin, rule_version=item.rule_version, trigger=item.trigger,
            directive=item.directive, trajectory_pk=item.trajectory_pk,
            trajectory_key_json=None if item.trajectory_key is None else json.dumps(item.trajectory_key, sort_keys=True),
            stratum=item.stratum, replay_answer=item.replay_answer,
            scope_replay=scope_replay_of(item), rule_pool=item.rule_pool,
        ))
    append_audit(session, created_by, "agreement_session_create", "agreement_session", row.uid, None,
                 after={"run_id": run_id, "size": len(items), "seed": seed, "blind": blind, "strata": strata},
                 run_id=run_id)
    session.flush()
    return session_info(row)


def insert_judgement_in(
    session: Session, item: ItemRecord, reviewer: str, answer: str, rubric: dict[str, bool] | None,
    note: str | None, origin: str, committed_at: str, scope: str | None,
) -> None:
    """The judgement row and its audit event. A second row for the same (item, reviewer) raises
    the database's ``IntegrityError`` at the flush (the table's unique key)."""
    session.add(AgreementJudgementRow(
        item_id=item.id, reviewer=reviewer, answer=answer,
        rubric_json=None if rubric is None else json.dumps(rubric, sort_keys=True), note=note, origin=origin,
        committed_at=committed_at, scope=scope,
    ))
    session.flush()
    parent = session.get(AgreementSessionRow, item.session_id)
    assert parent is not None
    append_audit(session, reviewer, "agreement_judgement", "agreement_item", item.id, None,
                 after={"session": parent.uid, "ordinal": item.ordinal, "answer": answer, "scope": scope,
                        "origin": origin},
                 run_id=parent.run_id)
