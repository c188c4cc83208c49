"""What-if drafts (issue 24 item 8): unsaved rule text replayed with the run's engine, inputs and
profile, writing nothing; the same answer the text gets once it is saved and replayed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event, inspect, text

from core.decisions import WhatIfRefused, save_whatif_edit
from core.decisions.whatif_draft import DraftSummary, draft_buckets, replay_draft
from core.importing import import_paths
from core.replay.profiles import WORKBENCH
from core.replaying import materialise_expected_rules, run_replay
from core.store.engine import Store, open_store
from core.store.replay_repo import ReplayRepository
from core.store.result_repo import ResultRepository
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import RuleRepository

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"
LEXICAL = WORKBENCH.with_(semantic=False)
# Words of the demo corpus, so drafts fire on some trajectories and miss others.
WORDS = ("git", "push", "rejected", "docker", "build", "fails", "terraform", "apply", "pod", "memory", "pull",
         "rebase", "lock", "token", "expired", "image", "the", "when", "owls")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    store = open_store(tmp_path_factory.mktemp("draft") / "s.sqlite")
    import_paths(store, [DEMO])
    materialise_expected_rules(store)
    run_replay(store, LEXICAL)
    yield store
    store.close()


def _rule_with_result(store: Store, rule_id: int | None = None) -> tuple[int, int]:
    """A rule and its newest result."""
    run = ReplayRepository(store).runs()[0]
    results = ReplayRepository(store).results(run.id)
    chosen = next(r for r in results if rule_id is None or r.rule_id == rule_id)
    return chosen.rule_id, chosen.id


def _untouched_rule(store: Store) -> tuple[int, int]:
    """A rule that prevents something and was never edited (other tests edit one), with its result."""
    first = min(ReplayRepository(store).runs(), key=lambda r: r.id)
    rules = RuleRepository(store)
    chosen = max((r for r in ReplayRepository(store).results(first.id) if len(rules.versions(r.rule_id)) == 1),
                 key=lambda r: (r.prevented_n, -r.rule_id))
    assert chosen.prevented_n >= 1
    return chosen.rule_id, chosen.id


def _newest_result(store: Store, rule_id: int) -> int:
    """The rule's result in the newest run that replayed it (earlier examples replay it again)."""
    for run in sorted(ReplayRepository(store).runs(), key=lambda r: r.id, reverse=True):
        for result in ReplayRepository(store).results(run.id):
            if result.rule_id == rule_id:
                return result.id
    raise AssertionError(f"rule {rule_id} has no result")


def _outcome_rows(outcomes: Any) -> set[tuple[Any, ...]]:
    return {(int(o.trajectory_pk if hasattr(o, "trajectory_pk") else o.trajectory_key), o.bucket, o.score,
             o.cosine, o.view, o.floor, o.threshold, o.margin) for o in outcomes}


def _row_counts(store: Store) -> dict[str, int]:
    tables = inspect(store.engine).get_table_names()
    with store.read_session() as session:
        return {t: int(session.execute(text(f'SELECT count(*) FROM "{t}"')).scalar_one()) for t in tables}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(trigger=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join),
       directive=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join))
def test_a_draft_equals_the_replay_of_the_same_text_once_saved(replayed: Store, trigger: str, directive: str) -> None:
    store = replayed
    rule_id, _ = _rule_with_result(store)
    before_id = _newest_result(store, rule_id)
    draft = replay_draft(store, rule_id, trigger, directive, LEXICAL, before_result_id=before_id)

    edit = save_whatif_edit(store, rule_id, trigger, directive, "ana")
    summary = run_replay(store, LEXICAL, rule_ids=[rule_id])
    (saved,) = summary.results
    for field in ("verdict", "reason", "threshold", "prevented", "broken", "near_miss", "missed", "precision",
                  "precision_ci", "recall", "recall_ci", "recall_pool", "precision_pool", "attribution",
                  "computed_verdict", "prefilter"):
        assert getattr(draft.result, field) == getattr(saved, field), field
    after_id = next(r.id for r in ReplayRepository(store).results(summary.run_id) if r.rule_id == rule_id)
    assert _outcome_rows(draft.result.outcomes) == _outcome_rows(ReplayRepository(store).outcomes(after_id))
    assert list(draft.moves) == ResultRepository(store).bucket_moves(before_id, after_id)
    assert draft.base_version == edit.version - (1 if edit.changed else 0)


def test_a_draft_leaves_every_table_as_it_was_and_opens_no_write(replayed: Store) -> None:
    store = replayed
    rule_id, before_id = _untouched_rule(store)
    counts = _row_counts(store)
    writes: list[bool] = []

    def on_begin(connection: Any) -> None:
        writes.append(not connection.get_execution_options().get("workbench_read_only", False))

    event.listen(store.engine, "begin", on_begin)
    try:
        draft = replay_draft(store, rule_id, "when the owls sing at night", "listen", LEXICAL,
                             before_result_id=before_id)
    finally:
        event.remove(store.engine, "begin", on_begin)
    assert draft.moves  # it did change something: the test is not vacuous
    assert _row_counts(store) == counts
    assert not any(writes)


def test_apply_after_a_draft_writes_exactly_one_version_and_one_audit_event(replayed: Store) -> None:
    store = replayed
    rule_id, before_id = _rule_with_result(store)
    versions = len(RuleRepository(store).versions(rule_id))
    events = len(ReviewRepository(store).rule_audit(rule_id))
    replay_draft(store, rule_id, "when a lock is held", "wait for it", LEXICAL, before_result_id=before_id)
    assert len(RuleRepository(store).versions(rule_id)) == versions  # the draft wrote nothing
    save_whatif_edit(store, rule_id, "when a lock is held", "wait for it", "ana")
    assert len(RuleRepository(store).versions(rule_id)) == versions + 1
    assert [e.action for e in ReviewRepository(store).rule_audit(rule_id)][events:] == ["edit_rule"]


@pytest.mark.parametrize(("trigger", "directive", "why"), [
    ("  ", "do b", "the trigger is empty"),
    ("when a", " ", "the directive is empty"),
])
def test_a_blank_draft_is_refused_by_name(replayed: Store, trigger: str, directive: str, why: str) -> None:
    rule_id, _ = _rule_with_result(replayed)
    with pytest.raises(WhatIfRefused, match=why):
        replay_draft(replayed, rule_id, trigger, directive, LEXICAL)


def test_a_draft_of_an_unknown_rule_is_refused_with_its_id(replayed: Store) -> None:
    with pytest.raises(WhatIfRefused, match="rule 99999 does not exist"):
        replay_draft(replayed, 99999, "when a", "do b", LEXICAL)


def test_the_summary_crosses_the_pipe_unchanged(replayed: Store) -> None:
    rule_id, before_id = _untouched_rule(replayed)
    draft = replay_draft(replayed, rule_id, "when the owls sing", "listen", LEXICAL, before_result_id=before_id)
    summary = draft.summary(replayed)
    assert DraftSummary.from_json(summary.to_json()) == summary
    assert summary.before_verdict is not None and summary.counts["prevented"] == len(draft.result.prevented)
    assert summary.before_run is not None and "semantic off" in summary.before_run  # what it is compared with
    assert {m.trajectory_pk for m in summary.moves} <= set(draft_buckets(draft.result)) | {
        m.trajectory_pk for m in summary.moves if m.after == "no_effect"}


def test_a_summary_that_is_not_one_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="a what-if draft summary could not be read"):
        DraftSummary.from_json('{"rule_id": 1}')
