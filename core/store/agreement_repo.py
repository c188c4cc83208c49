"""Agreement sessions, their items and the reviewers' committed judgements: the reads.

Plain reads, no policy. The rules (blindness: no replay answer before the commit; who may
judge which item; valid answers; judgements are final) are the agreement service's
(``core.agreement.session``), checked inside the one transaction that writes, through the
session-level SQL in ``core.store.agreement_judging``. The judgement table is append-only and
holds one row per (item, reviewer).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import text as sql
from sqlmodel import col, select

from core.domain.agreement import GATE_KINDS, ItemRecord, Judgement, PopulationItem, Progress, SessionInfo
from core.domain.errors import UnknownSession
from core.store.agreement_judging import item_record, progress_in, run_identity_in, session_info
from core.store.agreement_population import population
from core.store.engine import Store
from core.store.tables_labels import AgreementItemRow, AgreementSessionRow


class AgreementRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    # -- what a run offers ------------------------------------------------------------------
    def population(self, run_id: int, rule_kinds: Sequence[str] | None = None, by_corpus: bool = False) -> list[PopulationItem]:
        """Every rule verdict and every non-trivial evidence pair of a run, with its stratum."""
        return population(self._store, run_id, rule_kinds, by_corpus)

    def run_identity(self, run_id: int) -> dict[str, Any] | None:
        with self._store.read_session() as session:
            return run_identity_in(session, run_id)

    # -- sessions ---------------------------------------------------------------------------
    def sessions(self, run_id: int | None = None) -> list[SessionInfo]:
        with self._store.read_session() as session:
            query = select(AgreementSessionRow).order_by(col(AgreementSessionRow.id))
            if run_id is not None:
                query = query.where(AgreementSessionRow.run_id == run_id)
            return [session_info(r) for r in session.exec(query).all()]

    def sessions_like_run(self, config_hash: str, corpus_hash: str) -> list[SessionInfo]:
        """Sessions made on any run with the same configuration and corpus (same replay answers)."""
        with self._store.read_session() as session:
            rows = session.exec(
                select(AgreementSessionRow).where(
                    AgreementSessionRow.run_config_hash == config_hash, AgreementSessionRow.run_corpus_hash == corpus_hash
                ).order_by(col(AgreementSessionRow.id))
            ).all()
            return [session_info(r) for r in rows]

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
            return session_info(row)

    # -- items ------------------------------------------------------------------------------
    def items_with_answers(self, session_id: int) -> list[ItemRecord]:
        """Items WITH replay's answers: for results and exports, never for the judging screen."""
        with self._store.read_session() as session:
            rows = session.exec(
                select(AgreementItemRow).where(AgreementItemRow.session_id == session_id).order_by(col(AgreementItemRow.ordinal))
            ).all()
            return [item_record(r) for r in rows]

    def item_id(self, session_id: int, ordinal: int) -> int | None:
        with self._store.read_session() as session:
            row = session.exec(
                select(AgreementItemRow.id).where(AgreementItemRow.session_id == session_id, AgreementItemRow.ordinal == ordinal)
            ).first()
            return None if row is None else int(row)

    # -- judgements -------------------------------------------------------------------------
    def progress(self, session_id: int, reviewer: str) -> Progress:
        with self._store.read_session() as session:
            return progress_in(session, session_id, reviewer)

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

    def judgements_per_rule(self, session_ids: Sequence[int]) -> dict[int, int]:
        """Committed judgements of gate items (firing, verdict) per rule, in these sessions: which
        rules' own items a human judged (an item from a like run counts for the same rule)."""
        if not session_ids:
            return {}
        ids = ", ".join(str(int(i)) for i in session_ids)  # ints from the store, never input
        kinds = ", ".join(f"'{k}'" for k in GATE_KINDS)  # constants of this code
        with self._store.read_session() as session:
            rows = session.execute(sql(
                f"""SELECT rv.rule_id, count(*) FROM agreement_judgement j
                    JOIN agreement_item i ON i.id = j.item_id JOIN replay_result rr ON rr.id = i.result_id
                    JOIN rule_version rv ON rv.id = rr.rule_version_id
                    WHERE i.session_id IN ({ids}) AND i.kind IN ({kinds}) GROUP BY rv.rule_id""")).all()
            return {int(r[0]): int(r[1]) for r in rows}

    def reviewers(self, session_id: int | None = None) -> list[str]:
        return sorted({j.reviewer for j in self.judgements(session_id)})

    def blind_sessions_with_rule(self, origin: str) -> list[int]:
        """Ids of the blind sessions with an item of this rule (by origin), oldest first."""
        with self._store.read_session() as session:
            rows = session.exec(
                select(AgreementSessionRow.id).join(AgreementItemRow, col(AgreementItemRow.session_id) == AgreementSessionRow.id)
                .where(col(AgreementSessionRow.blind), AgreementItemRow.rule_origin == origin)
                .distinct().order_by(col(AgreementSessionRow.id))
            ).all()
            return [int(r) for r in rows if r is not None]

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

