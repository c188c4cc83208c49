"""Agreement sessions, their items and the reviewers' committed judgements: all the SQL.

Blindness is enforced here, not left to the screen: ``next_item`` returns an
item without replay's answer (or its stratum) in a blind session, and ``reveal`` refuses until
the reviewer has committed. A judgement is one committed transaction (with its audit event),
and it is final: the table is append-only and holds one row per (item, reviewer).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import text as sql
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from core.domain.agreement import (
    CANT_TELL,
    QUESTION_FIRING_SCOPE,
    SCOPE_ANSWERS,
    BlindItem,
    ItemRecord,
    Judgement,
    PopulationItem,
    Progress,
    Reveal,
    SessionInfo,
    answers_for,
)
from core.domain.errors import AlreadyCommitted, NotYetCommitted, UnknownSession
from core.store.agreement_population import population, scope_replay_of
from core.store.engine import Store
from core.store.review_repo import append_audit
from core.store.tables_labels import AgreementItemRow, AgreementJudgementRow, AgreementSessionRow
from core.timeutil import utc_now


def _session_info(row: AgreementSessionRow) -> SessionInfo:
    return SessionInfo(
        id=row.id or 0, uid=row.uid, name=row.name, run_id=row.run_id, run_profile=row.run_profile,
        run_config_hash=row.run_config_hash, run_corpus_hash=row.run_corpus_hash, seed=row.seed,
        target_half_width=row.target_half_width, assumed_p=row.assumed_p, size=row.size, blind=bool(row.blind),
        allocation=row.allocation, min_per_stratum=row.min_per_stratum, gate=row.gate,
        strata=json.loads(row.strata_json), created_by=row.created_by, origin=row.origin, created_at=row.created_at,
        question=row.question,
    )


def _item_record(row: AgreementItemRow) -> ItemRecord:
    return ItemRecord(
        id=row.id or 0, session_id=row.session_id, ordinal=row.ordinal, kind=row.kind, result_id=row.result_id,
        rule_origin=row.rule_origin, rule_version=row.rule_version, trigger=row.trigger, directive=row.directive,
        trajectory_pk=row.trajectory_pk,
        trajectory_key=None if row.trajectory_key_json is None else json.loads(row.trajectory_key_json),
        stratum=row.stratum, replay_answer=row.replay_answer, scope_replay=row.scope_replay, rule_pool=row.rule_pool,
    )


class AgreementRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    # -- what a run offers ------------------------------------------------------------------
    def population(self, run_id: int, rule_kinds: Sequence[str] | None = None, by_corpus: bool = False) -> list[PopulationItem]:
        """Every rule verdict and every non-trivial evidence pair of a run, with its stratum."""
        return population(self._store, run_id, rule_kinds, by_corpus)

    def run_identity(self, run_id: int) -> dict[str, Any] | None:
        with self._store.read_session() as session:
            row = session.execute(
                sql("SELECT id, profile, config_hash, corpus_hash, status FROM replay_run WHERE id = :run"), {"run": run_id}
            ).mappings().first()
            return None if row is None else dict(row)

    # -- sessions ---------------------------------------------------------------------------
    def create_session(
        self, *, items: Sequence[PopulationItem], created_by: str, seed: int, assumed_p: float,
        target_half_width: float | None, blind: bool, allocation: str, min_per_stratum: int, gate: float,
        strata: dict[str, dict[str, int]], run_id: int | None, name: str | None = None, uid: str | None = None,
        origin: str = "local", created_at: str | None = None, question: str = QUESTION_FIRING_SCOPE,
    ) -> SessionInfo:
        """Write the session and all its items in one transaction."""
        identity = self.run_identity(run_id) if run_id is not None else None
        with self._store.session() as session:
            row = AgreementSessionRow(
                uid=uid or uuid.uuid4().hex, name=name, run_id=run_id,
                run_profile=identity["profile"] if identity else None,
                run_config_hash=identity["config_hash"] if identity else None,
                run_corpus_hash=identity["corpus_hash"] if identity else None, seed=seed,
                target_half_width=target_half_width, assumed_p=assumed_p, size=len(items), blind=blind,
                allocation=allocation, min_per_stratum=min_per_stratum, gate=gate,
                strata_json=json.dumps(strata, sort_keys=True), created_by=created_by, origin=origin,
                created_at=created_at or utc_now(), question=question,
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
            return _session_info(row)

    def sessions(self, run_id: int | None = None) -> list[SessionInfo]:
        with self._store.read_session() as session:
            query = select(AgreementSessionRow).order_by(col(AgreementSessionRow.id))
            if run_id is not None:
                query = query.where(AgreementSessionRow.run_id == run_id)
            return [_session_info(r) for r in session.exec(query).all()]

    def sessions_like_run(self, config_hash: str, corpus_hash: str) -> list[SessionInfo]:
        """Sessions made on any run with the same configuration and corpus (same replay answers)."""
        with self._store.read_session() as session:
            rows = session.exec(
                select(AgreementSessionRow).where(
                    AgreementSessionRow.run_config_hash == config_hash, AgreementSessionRow.run_corpus_hash == corpus_hash
                ).order_by(col(AgreementSessionRow.id))
            ).all()
            return [_session_info(r) for r in rows]

    def session(self, ref: int | str) -> SessionInfo:
        """A session by id, or by uid (or a unique uid prefix)."""
        with self._store.read_session() as session:
            row = None
            if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
                row = session.get(AgreementSessionRow, int(ref))
            if row is None and isinstance(ref, str):
                rows = session.exec(select(AgreementSessionRow).where(col(AgreementSessionRow.uid).startswith(ref))).all()
                row = rows[0] if len(rows) == 1 else None
            if row is None:
                raise UnknownSession(f"no agreement session {ref!r} in {self._store.path}")
            return _session_info(row)

    # -- items ------------------------------------------------------------------------------
    def items_with_answers(self, session_id: int) -> list[ItemRecord]:
        """Items WITH replay's answers: for results and exports, never for the judging screen."""
        with self._store.read_session() as session:
            rows = session.exec(
                select(AgreementItemRow).where(AgreementItemRow.session_id == session_id).order_by(col(AgreementItemRow.ordinal))
            ).all()
            return [_item_record(r) for r in rows]

    def item_id(self, session_id: int, ordinal: int) -> int | None:
        with self._store.read_session() as session:
            row = session.exec(
                select(AgreementItemRow.id).where(AgreementItemRow.session_id == session_id, AgreementItemRow.ordinal == ordinal)
            ).first()
            return None if row is None else int(row)

    def next_item(self, session_id: int, reviewer: str) -> BlindItem | None:
        """The first item (by ordinal) this reviewer has not judged; None when they are done."""
        with self._store.read_session() as session:
            row = session.exec(
                select(AgreementItemRow)
                .where(AgreementItemRow.session_id == session_id)
                .where(
                    ~col(AgreementItemRow.id).in_(
                        select(AgreementJudgementRow.item_id).where(AgreementJudgementRow.reviewer == reviewer)
                    )
                )
                .order_by(col(AgreementItemRow.ordinal))
            ).first()
            return None if row is None else self._blind(session, row)

    @staticmethod
    def _blind(session: Session, row: AgreementItemRow) -> BlindItem:
        parent = session.get(AgreementSessionRow, row.session_id)
        assert parent is not None
        evidence: tuple[int, ...] = ()
        if row.kind == "verdict" and row.result_id is not None:
            evidence = tuple(
                int(r[0]) for r in session.execute(
                    sql("SELECT DISTINCT trajectory_pk FROM replay_outcome WHERE result_id = :res "
                        "AND bucket IN ('prevented', 'broken', 'near_miss') ORDER BY trajectory_pk"),
                    {"res": row.result_id},
                ).all()
            )
        return BlindItem(
            item_id=row.id or 0, session_id=row.session_id, ordinal=row.ordinal, kind=row.kind,
            result_id=row.result_id, rule_origin=row.rule_origin, rule_version=row.rule_version, trigger=row.trigger,
            directive=row.directive, trajectory_pk=row.trajectory_pk, choices=answers_for(row.kind),
            evidence_pks=evidence, replay_answer=None if parent.blind else row.replay_answer,
            scope_choices=SCOPE_ANSWERS if row.scope_replay is not None else (), session_size=parent.size,
        )

    # -- judgements -------------------------------------------------------------------------
    def commit(
        self, item_id: int, reviewer: str, answer: str, rubric: dict[str, bool] | None = None,
        note: str | None = None, origin: str = "local", committed_at: str | None = None, scope: str | None = None,
    ) -> Reveal:
        reviewer = reviewer.strip()
        if not reviewer:
            raise ValueError("a judgement needs a reviewer")
        with self._store.session() as session:
            item = session.get(AgreementItemRow, item_id)
            if item is None:
                raise LookupError(f"no agreement item #{item_id}")
            if answer not in answers_for(item.kind):
                raise ValueError(f"{answer!r} is not an answer for a {item.kind} item; choose from {answers_for(item.kind)}")
            if item.scope_replay is None and scope is not None:
                raise ValueError(f"item #{item_id} does not ask the scope question (its trajectory is not a failure)")
            if scope is not None and scope not in SCOPE_ANSWERS:
                raise ValueError(f"{scope!r} is not a scope answer; choose from {SCOPE_ANSWERS}")
            if rubric is not None:
                unknown = set(rubric) - {"trigger_specific", "directive_actionable", "safe_to_promote"}
                if unknown:
                    raise ValueError(f"unknown rubric questions: {sorted(unknown)}")
            existing = session.exec(
                select(AgreementJudgementRow).where(
                    AgreementJudgementRow.item_id == item_id, AgreementJudgementRow.reviewer == reviewer
                )
            ).first()
            if existing is not None:
                raise AlreadyCommitted(f"{reviewer} already judged item #{item_id} ({existing.answer}); judgements are final")
            now = committed_at or utc_now()
            session.add(AgreementJudgementRow(
                item_id=item_id, reviewer=reviewer, answer=answer,
                rubric_json=None if rubric is None else json.dumps(rubric, sort_keys=True), note=note, origin=origin,
                committed_at=now, scope=scope,
            ))
            try:
                session.flush()
            except IntegrityError as error:  # a concurrent commit of the same judgement
                raise AlreadyCommitted(f"{reviewer} already judged item #{item_id}") from error
            parent = session.get(AgreementSessionRow, item.session_id)
            assert parent is not None
            append_audit(session, reviewer, "agreement_judgement", "agreement_item", item_id, None,
                         after={"session": parent.uid, "ordinal": item.ordinal, "answer": answer, "scope": scope,
                                "origin": origin},
                         run_id=parent.run_id)
            progress = _progress(session, item.session_id, reviewer)
            return Reveal(item_id, reviewer, answer, item.replay_answer, _agrees(answer, item.replay_answer), now, progress,
                          scope, item.scope_replay, _revealed(session, item))

    def reveal(self, item_id: int, reviewer: str) -> Reveal:
        with self._store.read_session() as session:
            item = session.get(AgreementItemRow, item_id)
            if item is None:
                raise LookupError(f"no agreement item #{item_id}")
            row = session.exec(
                select(AgreementJudgementRow).where(
                    AgreementJudgementRow.item_id == item_id, AgreementJudgementRow.reviewer == reviewer
                )
            ).first()
            if row is None:
                raise NotYetCommitted(f"{reviewer} has not committed a judgement on item #{item_id}")
            return Reveal(item_id, reviewer, row.answer, item.replay_answer, _agrees(row.answer, item.replay_answer),
                          row.committed_at, _progress(session, item.session_id, reviewer), row.scope, item.scope_replay,
                          _revealed(session, item))

    def progress(self, session_id: int, reviewer: str) -> Progress:
        with self._store.read_session() as session:
            return _progress(session, session_id, reviewer)

    def judgements(self, session_id: int | None = None, reviewer: str | None = None) -> list[Judgement]:
        query = """SELECT j.*, i.session_id, i.ordinal, i.kind, i.stratum, i.replay_answer, i.scope_replay, i.rule_pool,
                          s.question
                   FROM agreement_judgement j JOIN agreement_item i ON i.id = j.item_id
                   JOIN agreement_session s ON s.id = i.session_id WHERE 1 = 1"""
        params: dict[str, Any] = {}
        if session_id is not None:
            query += " AND i.session_id = :session"
            params["session"] = session_id
        if reviewer is not None:
            query += " AND j.reviewer = :reviewer"
            params["reviewer"] = reviewer
        with self._store.read_session() as session:
            rows = session.execute(sql(query + " ORDER BY i.session_id, i.ordinal, j.reviewer"), params).mappings().all()
            return [
                Judgement(
                    item_id=r["item_id"], session_id=r["session_id"], ordinal=r["ordinal"], kind=r["kind"],
                    stratum=r["stratum"], reviewer=r["reviewer"], answer=r["answer"], replay_answer=r["replay_answer"],
                    rubric=None if r["rubric_json"] is None else json.loads(r["rubric_json"]), note=r["note"],
                    origin=r["origin"], committed_at=r["committed_at"], scope=r["scope"],
                    replay_scope=r["scope_replay"], rule_pool=r["rule_pool"], question=r["question"],
                )
                for r in rows
            ]

    def reviewers(self, session_id: int | None = None) -> list[str]:
        return sorted({j.reviewer for j in self.judgements(session_id)})

    def find_result(self, config_hash: str | None, corpus_hash: str | None, origin: str, version: int | None) -> int | None:
        """A local replay result for the same rule version on a run with the same configuration and corpus."""
        if config_hash is None or corpus_hash is None or version is None:
            return None
        with self._store.read_session() as session:
            row = session.execute(
                sql("""SELECT rr.id FROM replay_result rr JOIN replay_run run ON run.id = rr.run_id
                       JOIN rule_version rv ON rv.id = rr.rule_version_id JOIN rule r ON r.id = rv.rule_id
                       WHERE run.config_hash = :cfg AND run.corpus_hash = :corp AND r.origin = :origin
                         AND rv.version = :version ORDER BY rr.id DESC LIMIT 1"""),
                {"cfg": config_hash, "corp": corpus_hash, "origin": origin, "version": version},
            ).first()
            return None if row is None else int(row[0])


def _revealed(session: Session, item: AgreementItemRow) -> dict[str, Any]:
    """What the blind screen hid, shown only after the commit: where the trajectory comes from."""
    key = None if item.trajectory_key_json is None else json.loads(item.trajectory_key_json)
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


def _agrees(answer: str, replay_answer: str) -> bool | None:
    return None if answer == CANT_TELL else answer == replay_answer


def _progress(session: Session, session_id: int, reviewer: str) -> Progress:
    size = session.execute(
        sql("SELECT count(*) FROM agreement_item WHERE session_id = :s"), {"s": session_id}
    ).scalar_one()
    committed = session.execute(
        sql("SELECT count(*) FROM agreement_judgement j JOIN agreement_item i ON i.id = j.item_id "
            "WHERE i.session_id = :s AND j.reviewer = :r"),
        {"s": session_id, "r": reviewer},
    ).scalar_one()
    return Progress(int(committed), int(size))
