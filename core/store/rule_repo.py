"""Rules and their versions. A rule's text never changes in place: edits add a version."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import col, select

from core.store.dto import RuleInfo, RuleVersionInfo
from core.store.duplicate_key import duplicate_key_hash
from core.store.engine import Store
from core.store.row_versions import bump_rule, rule_version
from core.store.tables import CorpusRow, RuleRow, RuleVersionRow, TrajectoryRow
from core.timeutil import utc_now


@dataclass(frozen=True)
class RuleText:
    trigger: str
    directive: str
    context: tuple[str, ...] = ()
    signature: str | None = None
    because: str | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class NewRule:
    origin: str
    kind: str  # standing | candidate | expected_rule | user
    text: RuleText
    content_hash: str
    corpus_id: int | None = None
    file_id: int | None = None
    rule_ref: str | None = None
    status: str | None = None
    source_trajectory: str | None = None
    source_trajectory_pk: int | None = None
    domain: str | None = None
    raw_text: str | None = None
    data_json: str | None = None


class RuleRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    def upsert(self, rule: NewRule, author: str = "import") -> tuple[int, str]:
        """Insert a rule or, if its origin is known and its content changed, add a version.

        Returns (rule id, "imported" | "updated" | "unchanged").
        """
        with self._store.session() as session:
            row = session.exec(select(RuleRow).where(RuleRow.origin == rule.origin)).first()
            if row is not None and row.content_hash == rule.content_hash:
                assert row.id is not None
                return row.id, "unchanged"
            state = "updated" if row is not None else "imported"
            if row is None:
                row = RuleRow(
                    corpus_id=rule.corpus_id, file_id=rule.file_id, origin=rule.origin, kind=rule.kind,
                    rule_ref=rule.rule_ref, status=rule.status, source_trajectory=rule.source_trajectory,
                    source_trajectory_pk=rule.source_trajectory_pk, domain=rule.domain,
                    raw_text=rule.raw_text, data_json=rule.data_json, content_hash=rule.content_hash,
                    created_at=utc_now(),
                )
                session.add(row)
                session.flush()
            else:
                row.rule_ref, row.status, row.raw_text, row.data_json = (
                    rule.rule_ref, rule.status, rule.raw_text, rule.data_json,
                )
                row.source_trajectory, row.source_trajectory_pk, row.domain = (
                    rule.source_trajectory, rule.source_trajectory_pk, rule.domain,
                )
                row.content_hash = rule.content_hash
            assert row.id is not None
            latest = _latest_version_row(session, row.id)
            if latest is None or _text_of(latest) != rule.text:
                _add_version(session, row.id, rule.text, author, note=f"{state} from {rule.origin}")
            return row.id, state

    def origin_owner(self, origin: str) -> tuple[int | None, str | None] | None:
        """(corpus id, corpus name) of the rule with this origin, or None if there is none."""
        with self._store.read_session() as session:
            row = session.execute(
                select(RuleRow.corpus_id, CorpusRow.name)
                .outerjoin(CorpusRow, col(CorpusRow.id) == col(RuleRow.corpus_id))
                .where(RuleRow.origin == origin)
            ).first()
            return None if row is None else (row[0], row[1])

    def add_version(self, rule_id: int, text: RuleText, author: str, note: str | None = None,
                    expected_version: int | None = None) -> RuleVersionInfo:
        """A new version of the rule's text; with ``expected_version`` only if nobody changed the rule since."""
        with self._store.session() as session:
            version = _add_version(session, rule_id, text, author, note, expected_version)
            return _version_info(version)

    def row_version(self, rule_id: int) -> int:
        """The rule's row version: what a later decision or edit names as ``expected_version``."""
        with self._store.read_session() as session:
            return rule_version(session, rule_id)

    def get(self, rule_id: int) -> RuleInfo | None:
        rules = self.list_rules(ids=[rule_id])
        return rules[0] if rules else None

    def list_rules(self, ids: Sequence[int] | None = None, kinds: Sequence[str] | None = None) -> list[RuleInfo]:
        with self._store.read_session() as session:
            latest = (
                select(RuleVersionRow.rule_id, func.max(RuleVersionRow.version).label("v"))
                .group_by(col(RuleVersionRow.rule_id))
                .subquery()
            )
            query = (
                select(RuleRow, RuleVersionRow, CorpusRow.name)
                .join(latest, col(latest.c.rule_id) == col(RuleRow.id))
                .join(
                    RuleVersionRow,
                    (col(RuleVersionRow.rule_id) == col(RuleRow.id)) & (col(RuleVersionRow.version) == latest.c.v),
                )
                .outerjoin(CorpusRow, col(CorpusRow.id) == col(RuleRow.corpus_id))
            )
            if ids is not None:
                query = query.where(col(RuleRow.id).in_(list(ids)))
            if kinds is not None:
                query = query.where(col(RuleRow.kind).in_(list(kinds)))
            rows = session.execute(query.order_by(col(RuleRow.id))).all()
            return [_rule_info(r[0], r[1], r[2]) for r in rows]

    def corpora(self) -> list[str]:
        """Corpora that hold rules (the "replay a corpus" choices)."""
        with self._store.read_session() as session:
            rows = session.execute(
                select(CorpusRow.name).join(RuleRow, col(RuleRow.corpus_id) == col(CorpusRow.id))
                .distinct().order_by(col(CorpusRow.name))
            ).all()
            return [str(r[0]) for r in rows]

    def ids_in_corpus(self, corpus: str) -> list[int]:
        with self._store.read_session() as session:
            rows = session.execute(
                select(RuleRow.id).join(CorpusRow, col(CorpusRow.id) == col(RuleRow.corpus_id))
                .where(CorpusRow.name == corpus).order_by(col(RuleRow.id))
            ).all()
            return [int(r[0]) for r in rows]

    def versions(self, rule_id: int) -> list[RuleVersionInfo]:
        with self._store.read_session() as session:
            rows = session.exec(
                select(RuleVersionRow).where(RuleVersionRow.rule_id == rule_id).order_by(col(RuleVersionRow.version))
            ).all()
            return [_version_info(r) for r in rows]

    def get_version(self, version_id: int) -> RuleVersionInfo | None:
        with self._store.read_session() as session:
            row = session.get(RuleVersionRow, version_id)
            return _version_info(row) if row else None

    def resolve_trajectory(self, trajectory_id: str, corpus_id: int | None) -> tuple[int | None, str | None]:
        """Find a rule's source trajectory: same corpus first (ids repeat across corpora)."""
        with self._store.read_session() as session:
            query = select(TrajectoryRow.id, TrajectoryRow.domain, TrajectoryRow.corpus_id).where(
                TrajectoryRow.trajectory_id == trajectory_id
            )
            rows = session.execute(query.order_by(col(TrajectoryRow.id))).all()
            if not rows:
                return None, None
            same = [r for r in rows if r[2] == corpus_id]
            chosen = same[0] if same else rows[0]
            return int(chosen[0]), chosen[1]


def _latest_version_row(session: object, rule_id: int) -> RuleVersionRow | None:
    return session.exec(  # type: ignore[attr-defined, no-any-return]
        select(RuleVersionRow).where(RuleVersionRow.rule_id == rule_id).order_by(col(RuleVersionRow.version).desc())
    ).first()


def _add_version(session: object, rule_id: int, text: RuleText, author: str, note: str | None,
                 expected_version: int | None = None) -> RuleVersionRow:
    latest = _latest_version_row(session, rule_id)
    if latest is not None:  # an edit (not the first version) changes the rule's state
        bump_rule(session, rule_id, expected_version)  # type: ignore[arg-type]
    row = RuleVersionRow(
        rule_id=rule_id, version=(latest.version + 1) if latest else 1, trigger=text.trigger,
        context_json=json.dumps(list(text.context), ensure_ascii=False), signature=text.signature,
        directive=text.directive, because=text.because, confidence=text.confidence, author=author,
        note=note, created_at=utc_now(), dup_key=duplicate_key_hash(text.trigger, text.directive),
    )
    session.add(row)  # type: ignore[attr-defined]
    session.flush()  # type: ignore[attr-defined]
    return row


def _text_of(row: RuleVersionRow) -> RuleText:
    return RuleText(
        trigger=row.trigger, directive=row.directive, context=tuple(json.loads(row.context_json)),
        signature=row.signature, because=row.because, confidence=row.confidence,
    )


def _version_info(row: RuleVersionRow) -> RuleVersionInfo:
    return RuleVersionInfo(
        id=row.id or 0, rule_id=row.rule_id, version=row.version, trigger=row.trigger,
        context=tuple(json.loads(row.context_json)), signature=row.signature, directive=row.directive,
        because=row.because, confidence=row.confidence, author=row.author, note=row.note,
        created_at=row.created_at,
    )


def _rule_info(rule: RuleRow, version: RuleVersionRow, corpus: str | None) -> RuleInfo:
    return RuleInfo(
        id=rule.id or 0, origin=rule.origin, kind=rule.kind, corpus=corpus, rule_ref=rule.rule_ref,
        status=rule.status, source_trajectory=rule.source_trajectory,
        source_trajectory_pk=rule.source_trajectory_pk, domain=rule.domain, latest=_version_info(version),
    )
