"""AgreementRepository.blind_sessions_with_rule: which blind sessions hold a rule (the Review
tab hides such a rule's evidence while the reviewer's session is unfinished). Both back ends."""

from __future__ import annotations

from test_labels_support import import_demo, labels_store  # noqa: F401 (fixture)

from core.agreement.session import create_session
from core.replay.profiles import profile_by_name
from core.replaying import materialise_expected_rules, run_replay
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store


def test_only_blind_sessions_holding_the_rule_are_named(labels_store: Store) -> None:  # noqa: F811
    store = labels_store
    import_demo(store)
    materialise_expected_rules(store)
    run_id = run_replay(store, profile_by_name("reference-0.3.1")).run_id
    blind = create_session(store, run_id, "lead", size=6, seed=3)
    unblinded = create_session(store, run_id, "lead", size=6, seed=3, blind=False)
    repo = AgreementRepository(store)
    origin = repo.items_with_answers(blind.id)[0].rule_origin
    assert repo.blind_sessions_with_rule(origin) == [blind.id]  # the unblinded one is not hiding anything
    assert unblinded.id not in repo.blind_sessions_with_rule(origin)
    assert repo.blind_sessions_with_rule("no/such/rule.yaml") == []
