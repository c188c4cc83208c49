"""Issue 17 acceptance: a simulated reviewer on the shared corpus plus the demo corpus.

The reviewer answers firing exactly as replay's buckets, and scope by "the trajectory is in
the rule's source domain, or the rule names that domain". Asked the two questions, firing
agreement is 1.0 and the gate passes, while scope agreement < 1.0 shows how much of replay's
recall denominator is out of scope for the domain-less rules (the demo candidates). The same
reviewer asked today's single question on a sample where those rules' `missed` items
dominate disagrees on every out-of-scope miss and fails the gate.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.agreement.results import agreement_gate_for_run, compare, session_result
from core.agreement.sampling import stratified_sample
from core.agreement.session import commit_judgement, create_session
from core.domain.agreement import QUESTION_FIRING_SCOPE, QUESTION_SINGLE, PopulationItem, SessionInfo
from core.importing import import_paths
from core.replay.profiles import WORKBENCH
from core.replaying import materialise_expected_rules, run_replay
from core.store.agreement_judging import insert_session_in
from core.store.agreement_population import as_firing
from core.store.agreement_repo import AgreementRepository
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store, open_store
from core.store.replay_repo import ReplayRepository
from core.store.rule_repo import RuleRepository

pytestmark = [pytest.mark.external, pytest.mark.slow]

REVIEWER = "simulated"
_TOKENS = re.compile(r"[^a-z0-9]+")


@pytest.fixture(scope="module")
def store(shared_corpus: Path, demo_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Store:
    path = tmp_path_factory.mktemp("two-questions") / "s.sqlite"
    opened = open_store(path)
    import_paths(opened, [shared_corpus, demo_corpus])
    materialise_expected_rules(opened)
    run_replay(opened, WORKBENCH.with_(semantic=False), scope="test")
    yield opened
    opened.close()


class SimulatedReviewer:
    """Knows each rule's source domain and each trajectory's domain; nothing else."""

    def __init__(self, store: Store) -> None:
        self.rules = {(r.origin, r.latest.version): r for r in RuleRepository(store).list_rules()}
        self.rules_by_origin = {r.origin: r for r in RuleRepository(store).list_rules()}
        self.domains = {t.id: (t.domain or "").lower() for t in CorpusRepository(store).get_trajectories()}

    def in_scope(self, origin: str, trajectory_pk: int) -> bool:
        rule = self.rules_by_origin[origin]
        domain = self.domains.get(trajectory_pk, "")
        if not domain:
            return False
        if rule.domain and rule.domain.lower() == domain:
            return True
        words = set(_TOKENS.split(f"{rule.latest.trigger} {rule.latest.directive}".lower()))
        return domain in words

    def firing(self, bucket_answer: str) -> str:
        return bucket_answer  # exactly replay's bucket, as its firing answer

    def single_question(self, origin: str, trajectory_pk: int, bucket: str) -> str:
        """Today's one question: a miss outside the rule's domain is "no effect (unrelated)"."""
        if bucket == "missed" and not self.in_scope(origin, trajectory_pk):
            return "no_effect"
        return bucket


def _run_id(store: Store) -> int:
    run = ReplayRepository(store).latest_complete_run()
    assert run is not None
    return run.id


def _judge_two_questions(store: Store, session_id: int, reviewer: SimulatedReviewer) -> None:
    for item in AgreementRepository(store).items_with_answers(session_id):
        scope = None
        if item.scope_replay is not None:
            assert item.trajectory_pk is not None
            scope = "in_scope" if reviewer.in_scope(item.rule_origin, item.trajectory_pk) else "out_of_scope"
        answer = item.replay_answer if item.kind == "verdict" else reviewer.firing(item.replay_answer)
        commit_judgement(store, item.id, REVIEWER, answer, scope=scope)


def _missed_dominated_sample(store: Store, run_id: int) -> list[PopulationItem]:
    """Evidence of the domain-less rules (recall pool = the whole store), where `missed` dominates."""
    population = [i for i in AgreementRepository(store).population(run_id)
                  if i.kind == "evidence" and i.rule_pool != "domain"]
    items, _strata = stratified_sample(population, 120, seed=17)
    return items


def test_two_questions_pass_where_the_single_question_fails(store: Store) -> None:
    run_id, reviewer = _run_id(store), SimulatedReviewer(store)
    sample = _missed_dominated_sample(store, run_id)
    missed = sum(1 for i in sample if i.replay_answer == "missed")
    assert missed > len(sample) / 2, "the sample must be dominated by missed items"
    repo = AgreementRepository(store)
    strata = {"evidence:sample": {"population": len(sample), "sampled": len(sample)}}
    common = {"created_by": "lead", "seed": 17, "assumed_p": 0.8, "target_half_width": None, "blind": True,
              "allocation": "proportional", "min_per_stratum": 2, "gate": 0.8, "strata": strata, "run_id": run_id,
              "run_identity": repo.run_identity(run_id), "created_at": "2026-01-01T00:00:00Z"}

    def insert(items: list[PopulationItem], question: str, name: str) -> SessionInfo:
        # Hand-picked items (a missed-dominated sample), written with the store's plain insert.
        with store.session() as session:
            return insert_session_in(session, items=items, question=question, name=name, **common)

    old = insert(sample, QUESTION_SINGLE, "single question")
    for item in repo.items_with_answers(old.id):
        assert item.trajectory_pk is not None
        commit_judgement(store, item.id, REVIEWER,
                         reviewer.single_question(item.rule_origin, item.trajectory_pk, item.replay_answer))
    single = session_result(store, old.id).comparison

    new = insert([as_firing(i) for i in sample], QUESTION_FIRING_SCOPE, "two questions")
    _judge_two_questions(store, new.id, reviewer)
    result = session_result(store, new.id)
    firing = result.comparison

    print(f"\nsingle question: agreement {single.agreement.label()} gate={single.gate.state}"
          f"\ntwo questions:   firing {firing.agreement.label()} gate={firing.gate.state}; "
          f"scope {result.scope.agreement.label()} (domain-less rules: {result.scope.domain_less.label()})")
    assert firing.agreement.value == 1.0 and firing.gate.state == "pass"
    assert result.scope.domain_less.value is not None and result.scope.domain_less.value < 1.0
    assert single.agreement.value is not None and single.agreement.value < firing.agreement.value
    assert single.gate.state == "fail"
    assert session_result(store, old.id).to_dict()["old_question"] is True


def test_a_full_session_passes_the_gate_and_reports_scope_and_corrected_recall(store: Store) -> None:
    run_id, reviewer = _run_id(store), SimulatedReviewer(store)
    session = create_session(store, run_id, "lead", size=80, seed=5)
    _judge_two_questions(store, session.id, reviewer)
    result = session_result(store, session.id)
    kinds = {k.kind for k in result.comparison.per_kind}
    assert kinds <= {"verdict", "firing"} and result.comparison.agreement.value == 1.0
    state, details = agreement_gate_for_run(store, run_id)
    recall = result.scoped_recall
    assert recall.estimate is not None and recall.ci is not None and recall.replay_recall is not None
    print(f"\nfull session: firing+verdict {result.comparison.agreement.label()} gate={state}; "
          f"scope {result.scope.agreement.label()}; replay recall {recall.replay_recall:.3f}, scope-corrected "
          f"{recall.estimate:.3f} [{recall.ci[0]:.3f}, {recall.ci[1]:.3f}] ({recall.label})")
    assert state == "pass"
    assert result.scope.agreement.value is not None and result.scope.agreement.value < 1.0
    assert recall.estimate is not None and recall.ci is not None and recall.ci[0] <= recall.estimate <= recall.ci[1]
    assert recall.label == f"estimated from {recall.judged} judged items"


def test_old_single_question_judgements_never_feed_the_gate(store: Store) -> None:
    run_id = _run_id(store)
    details = agreement_gate_for_run(store, run_id)[1]
    every = [j for s in AgreementRepository(store).sessions(run_id) if s.blind
             for j in AgreementRepository(store).judgements(s.id)]
    used = [j for j in every if j.kind in ("verdict", "firing")]
    assert details["judgements"] == len(used)
    assert details["old_question_judgements_not_used"] == sum(1 for j in every if j.kind == "evidence")
    assert compare(used).agreement.to_dict() == details["agreement"]
