"""Blind means blind in the rest of the window too: which rules are hidden, and early reveals.

While a reviewer has an unfinished BLIND session, the window hides replay's answers (buckets,
verdict, counts) of every rule with an item in that session: the Review tab's evidence board,
the rules table's row and the strip beside the board (issue 24 item 12). ``hidden_rules``
says which rules, per reviewer.

The reviewer may choose "Show evidence anyway" for a rule. That choice is recorded
(``record_early_reveal``: one ``reveal_blind_evidence`` audit event per unfinished blind
session of theirs that holds the rule, target the session's uid, the rule's origin in
``after``), so every judgement of that rule the reviewer commits afterwards is known to have
been made with replay's answer seen (``judgements_seen_first``); session results report them
apart, with their count (``core.agreement.results``). No schema change: the audit event's
time and the judgement's ``committed_at`` order them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import text

from core.domain.names import checked_name
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store
from core.store.review_repo import append_audit

REVEAL_ACTION = "reveal_blind_evidence"


@dataclass(frozen=True)
class HiddenSession:
    """An unfinished blind session of the reviewer (what the window says when it hides a rule)."""

    id: int
    uid: str
    name: str
    committed: int
    size: int

    @property
    def words(self) -> str:
        return f"“{self.name}” (you: {self.committed}/{self.size} judged)"


def hidden_rules(store: Store, reviewer: str | None) -> dict[str, HiddenSession]:
    """Rule origin -> the reviewer's oldest unfinished blind session with an item of that rule.

    Rules the reviewer revealed early are still listed (the window keeps what was revealed);
    a session is finished for the reviewer as ``progress`` says (every item, or every item
    assigned to them, judged)."""
    if not reviewer:
        return {}
    repo = AgreementRepository(store)
    hidden: dict[str, HiddenSession] = {}
    for info in sorted(repo.sessions(), key=lambda s: s.id):
        if not info.blind:
            continue
        done = repo.progress(info.id, reviewer)
        if done.done:
            continue
        entry = HiddenSession(info.id, info.uid, info.name or f"#{info.id}", done.committed, done.size)
        for origin in _origins(store, info.id):
            hidden.setdefault(origin, entry)
    return hidden


def _origins(store: Store, session_id: int) -> list[str]:
    with store.read_session() as session:
        rows = session.execute(text("SELECT DISTINCT rule_origin FROM agreement_item WHERE session_id = :id "
                                    "AND rule_origin IS NOT NULL"), {"id": session_id}).all()
    return [str(r[0]) for r in rows]


def record_early_reveal(store: Store, reviewer: str, origin: str) -> int:
    """The reviewer chose to see ``origin``'s replay answers before finishing their blind
    session(s) holding it: one audit event per such session, in one transaction. Returns how
    many were recorded (0: the rule is in no unfinished blind session of theirs)."""
    reviewer = checked_name(reviewer, "reviewer name")
    repo = AgreementRepository(store)
    uids = [info.uid for info in sorted(repo.sessions(), key=lambda s: s.id)
            if info.blind and not repo.progress(info.id, reviewer).done and origin in _origins(store, info.id)]
    if not uids:
        return 0
    with store.session() as session:
        for uid in uids:
            append_audit(session, reviewer, REVEAL_ACTION, "agreement_session", uid,
                         "replay's evidence of a rule in this blind session shown before the session was finished",
                         after={"rule_origin": origin})
    return len(uids)


def judgements_seen_first(store: Store, session_id: int, reviewer: str | None = None) -> set[tuple[int, str]]:
    """(item id, reviewer) of the session's judgements committed after that reviewer revealed
    the item's rule early (``record_early_reveal``): judged with replay's answer seen."""
    with store.read_session() as session:
        uid = session.execute(text("SELECT uid FROM agreement_session WHERE id = :id"), {"id": session_id}).scalar()
        if uid is None:
            return set()
        reveals = session.execute(text(
            "SELECT actor, at, after_json FROM audit_event WHERE action = :action AND target_kind = 'agreement_session' "
            "AND target_id = :uid"), {"action": REVEAL_ACTION, "uid": str(uid)}).all()
        if not reveals:
            return set()
        judged = session.execute(text(
            """SELECT j.item_id, j.reviewer, j.committed_at, i.rule_origin FROM agreement_judgement j
               JOIN agreement_item i ON i.id = j.item_id WHERE i.session_id = :id"""), {"id": session_id}).all()
    first: dict[tuple[str, str], str] = {}  # (reviewer, origin) -> earliest reveal
    for actor, at, after in reveals:
        origin = str(json.loads(after or "{}").get("rule_origin", ""))
        key = (str(actor), origin)
        first[key] = min(first.get(key, str(at)), str(at))
    return {(int(item), str(who)) for item, who, committed_at, origin in judged
            if (reviewer is None or who == reviewer)
            and (revealed := first.get((str(who), str(origin)))) is not None and revealed <= str(committed_at)}
