"""Blind means blind (issue 24 item 12), the core side: which rules the window hides for a
reviewer, and an early reveal recorded so the judgements made after it are reported apart.
Both back ends."""

from __future__ import annotations

from test_labels_support import import_demo, labels_store  # noqa: F401 (fixture)

from core.agreement.early_reveal import REVEAL_ACTION, hidden_rules, judgements_seen_first, record_early_reveal
from core.agreement.results import session_result
from core.agreement.session import commit_judgement, create_session, next_item
from core.replay.profiles import profile_by_name
from core.replaying import materialise_expected_rules, run_replay
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store


def _session(store: Store, blind: bool = True) -> tuple[int, set[str]]:
    import_demo(store)
    materialise_expected_rules(store)
    run_id = run_replay(store, profile_by_name("reference-0.3.1")).run_id
    session = create_session(store, run_id, "lead", size=4, seed=5, blind=blind)
    origins = {i.rule_origin for i in AgreementRepository(store).items_with_answers(session.id)}
    return session.id, origins


def _judge_next(store: Store, session_id: int, reviewer: str) -> str:
    item = next_item(store, session_id, reviewer)
    assert item is not None
    commit_judgement(store, item.item_id, reviewer, item.choices[-1])
    return item.rule_origin


def _raw_reveals(store: Store) -> int:
    from sqlalchemy import text

    with store.read_session() as session:
        return int(session.execute(text("SELECT count(*) FROM audit_event WHERE action = :a"),
                                   {"a": REVEAL_ACTION}).scalar_one())


def test_an_unfinished_blind_session_hides_its_rules_until_it_is_finished(labels_store: Store) -> None:  # noqa: F811
    store = labels_store
    session_id, origins = _session(store)
    hidden = hidden_rules(store, "ana")
    assert set(hidden) == origins and all(h.id == session_id for h in hidden.values())
    assert "0/4" in next(iter(hidden.values())).words
    for _ in range(4):
        _judge_next(store, session_id, "ana")
    assert hidden_rules(store, "ana") == {}  # finished: nothing hidden any more
    assert set(hidden_rules(store, "bo")) == origins  # bo has not judged: still hidden for bo
    assert hidden_rules(store, None) == {}


def test_an_unblinded_session_hides_nothing(labels_store: Store) -> None:  # noqa: F811
    _session(labels_store, blind=False)
    assert hidden_rules(labels_store, "ana") == {}


def test_judgements_after_an_early_reveal_are_counted_apart(labels_store: Store) -> None:  # noqa: F811
    store = labels_store
    session_id, _ = _session(store)
    _judge_next(store, session_id, "ana")  # judged blind
    item = next_item(store, session_id, "ana")
    assert item is not None
    assert record_early_reveal(store, "ana", item.rule_origin) == 1
    assert _raw_reveals(store) == 1
    commit_judgement(store, item.item_id, "ana", item.choices[-1])  # judged with the evidence seen
    seen = judgements_seen_first(store, session_id)
    assert (item.item_id, "ana") in seen
    assert len(seen) == 1  # the judgement made before the reveal stays blind, even of the same rule
    result = session_result(store, session_id, "ana")
    assert result.seen_first == 1 and result.without_seen_first is not None
    body = result.to_dict()["seen_evidence_first"]
    assert body["judgements"] == 1 and "Show evidence anyway" in body["note"]
    assert body["without_them"]["judgements"] == 1


def test_a_session_without_reveals_reports_none_apart(labels_store: Store) -> None:  # noqa: F811
    store = labels_store
    session_id, _ = _session(store)
    _judge_next(store, session_id, "ana")
    result = session_result(store, session_id, "ana")
    assert result.seen_first == 0 and result.to_dict()["seen_evidence_first"] == {
        "judgements": 0, "note": None, "without_them": None}


def test_a_reveal_of_a_rule_in_no_unfinished_session_records_nothing(labels_store: Store) -> None:  # noqa: F811
    store = labels_store
    _session(store)
    assert record_early_reveal(store, "ana", "no/such/rule.yaml") == 0
    assert _raw_reveals(store) == 0
