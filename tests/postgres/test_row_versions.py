"""Row versions: the second writer of a decision, a rule edit or an adjudication is told who did what."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from every_kind import Builder
from sqlalchemy import text

from core.decisions.service import DecisionRequest, decide
from core.domain.labels import LabelText
from core.labels.service import adjudicate as adjudicate_label
from core.store.engine import Store, open_store
from core.store.label_repo import LabelRepository
from core.store.row_versions import ConcurrentChangeError
from core.store.rule_repo import RuleRepository, RuleText


@pytest.fixture()
def store(store_location: Path | str) -> Iterator[Store]:
    opened = open_store(store_location)  # on each back end
    yield opened
    opened.close()


@pytest.fixture()
def rule(store: Store) -> tuple[Builder, int]:
    b = Builder(store)
    b.trajectories("F-1", "F-2")
    return b, b.rule("c/r1.yaml", "when git push is rejected", "pull --rebase then push")


def _decisions(store: Store) -> list[tuple[str, str]]:
    with store.read_session() as session:
        return [(str(r[0]), str(r[1])) for r in session.execute(text("SELECT reviewer, action FROM decision ORDER BY id"))]


def test_a_decision_on_a_rule_someone_just_decided_is_refused_naming_them(store: Store, rule: tuple[Builder, int]) -> None:
    _, rule_id = rule
    seen = RuleRepository(store).row_version(rule_id)  # both reviewers open the rule
    decide(store, DecisionRequest("reject", "ana", rule_id, reason="fires on every push", expected_version=seen))
    with pytest.raises(ConcurrentChangeError, match=r"ana reject \(fires on every push\)") as raised:
        decide(store, DecisionRequest("defer", "bo", rule_id, reason="need more runs", expected_version=seen))
    assert raised.value.by == "ana" and raised.value.found == seen + 1
    assert _decisions(store) == [("ana", "reject")]  # bo's decision was not written


def test_deciding_again_on_the_new_version_goes_through(store: Store, rule: tuple[Builder, int]) -> None:
    _, rule_id = rule
    seen = RuleRepository(store).row_version(rule_id)
    decide(store, DecisionRequest("reject", "ana", rule_id, reason="too broad", expected_version=seen))
    fresh = RuleRepository(store).row_version(rule_id)  # bo looks again and chooses
    decide(store, DecisionRequest("defer", "bo", rule_id, reason="wait for the next run", expected_version=fresh))
    assert _decisions(store) == [("ana", "reject"), ("bo", "defer")]


def test_editing_a_rule_someone_else_just_edited_is_refused(store: Store, rule: tuple[Builder, int]) -> None:
    _, rule_id = rule
    rules = RuleRepository(store)
    seen = rules.row_version(rule_id)
    rules.add_version(rule_id, RuleText("when git push is rejected as non-fast-forward", "pull --rebase"), "ana",
                      expected_version=seen)
    with pytest.raises(ConcurrentChangeError, match=r"ana edited the rule \(version 2\)"):
        rules.add_version(rule_id, RuleText("when a push fails", "retry"), "bo", expected_version=seen)
    info = rules.get(rule_id)
    assert info is not None and info.latest.version == 2 and info.latest.author == "ana"


def test_a_second_leads_adjudication_is_refused_naming_the_first(store: Store, rule: tuple[Builder, int]) -> None:
    b, _ = rule
    labels = LabelRepository(store)
    pk = b.pks["F-1"]
    adjudicate_label(store, pk, "lena", LabelText("when push is rejected", "pull first"), "clearest", expected_current=0)
    with pytest.raises(ConcurrentChangeError, match=r'lena ruled "when push is rejected" -> "pull first"'):
        adjudicate_label(store, pk, "lars", LabelText("when the remote refuses", "fetch"), "mine", expected_current=0)
    in_force = labels.adjudications(pk)
    assert [a.lead for a in in_force] == ["lena"]
    adjudicate_label(store, pk, "lars", LabelText("when the remote refuses", "fetch"), "after reading lena's",
                      expected_current=in_force[0].id)  # having seen it, lars may overrule
    assert len(labels.adjudications(pk)) == 2


def test_writes_that_name_no_version_still_count_as_changes(store: Store, rule: tuple[Builder, int]) -> None:
    _, rule_id = rule
    rules = RuleRepository(store)
    seen = rules.row_version(rule_id)
    decide(store, DecisionRequest("defer", "cli-user", rule_id, reason="later"))  # the CLI names no version
    with pytest.raises(ConcurrentChangeError):
        decide(store, DecisionRequest("reject", "ana", rule_id, reason="no", expected_version=seen))


# -- what the screens hold: the version read with the row, and the version after their own write --------
def test_a_decision_returns_the_version_its_screen_holds_next(store: Store, rule: tuple[Builder, int]) -> None:
    _, rule_id = rule
    seen = RuleRepository(store).row_version(rule_id)
    outcome = decide(store, DecisionRequest("defer", "ana", rule_id, expected_version=seen))
    assert outcome.row_version == seen + 1 == RuleRepository(store).row_version(rule_id)
    # ana's own next decision names the version her own write left: no conflict with herself
    decide(store, DecisionRequest("reject", "ana", rule_id, reason="too broad", expected_version=outcome.row_version))
    assert _decisions(store) == [("ana", "defer"), ("ana", "reject")]


def test_a_review_row_and_a_promotion_queue_item_carry_the_rules_version(store: Store, rule: tuple[Builder, int]) -> None:
    from core.promotion.queue import promotion_queue
    from core.store.result_repo import ResultRepository
    from core.store.workspace_query import WorkspaceScope

    b, rule_id = rule
    b.run([(rule_id, "pass", {"prevented": ["F-1"]})])
    decide(store, DecisionRequest("defer", "cli-user", rule_id))  # the version moves on
    version = RuleRepository(store).row_version(rule_id)
    row = ResultRepository(store).rule_row(WorkspaceScope(), rule_id)
    assert row is not None and row.row_version == version > 0
    item = next(i for i in promotion_queue(store).items if i.rule_id == rule_id)
    assert item.row_version == version


def test_a_whatif_edit_after_another_reviewers_decision_is_refused(store: Store, rule: tuple[Builder, int]) -> None:
    from core.decisions import save_whatif_edit

    _, rule_id = rule
    seen = RuleRepository(store).row_version(rule_id)
    decide(store, DecisionRequest("reject", "bo", rule_id, reason="fires on every push"))
    with pytest.raises(ConcurrentChangeError, match=r"bo reject \(fires on every push\)"):
        save_whatif_edit(store, rule_id, "when a push is refused", "pull first", "ana", expected_version=seen)
    info = RuleRepository(store).get(rule_id)
    assert info is not None and info.latest.version == 1  # nothing saved
    edit = save_whatif_edit(store, rule_id, "when a push is refused", "pull first", "ana",
                            expected_version=RuleRepository(store).row_version(rule_id))
    assert edit.changed and edit.row_version == RuleRepository(store).row_version(rule_id)


def test_the_adjudication_service_passes_the_ruling_the_lead_saw(store: Store, rule: tuple[Builder, int]) -> None:
    from core.agreement.team import adjudicate
    from core.store.row_versions import adjudication_in_force

    b, _ = rule
    pk = b.pks["F-1"]
    seen = adjudication_in_force(store, pk)
    assert seen == 0
    first = adjudicate(store, "lena", pk, LabelText("when push is rejected", "pull first"), "clearest",
                       expected_current=seen)
    assert adjudication_in_force(store, pk) == first.id
    with pytest.raises(ConcurrentChangeError, match="lena ruled"):
        adjudicate(store, "lars", pk, LabelText("when the remote refuses", "fetch"), "mine", expected_current=seen)
