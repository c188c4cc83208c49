"""Issue 17 acceptance: judging items built from every folder of the shared corpus show,
before the commit, no role or bucket word, no corpus path, file name or trajectory id, and no
``expected_outcome``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.agreement.blind import answer_text
from core.agreement.session import commit_judgement, judging_view, next_item
from core.domain.agreement import QUESTION_FIRING_SCOPE, PopulationItem
from core.importing import import_paths
from core.store.agreement_judging import insert_session_in
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store, open_store

pytestmark = [pytest.mark.external]

# Named independently of core.agreement.blind's own list, so the test can catch what it misses.
FORBIDDEN = re.compile(
    r"nearmiss|near-miss|near_miss|\bNM-|should_|counterexample|counter-example|golden|adversarial|staleness|"
    r"prevented|broken|missed|no_effect|no effect|expected_outcome|expected_rule",
    re.IGNORECASE,
)
FIRING_CHOICES = tuple((a, answer_text(a)) for a in ("prevents", "breaks", "near_miss", "does_not_fire", "cant_tell"))
RULE = ("when a command fails with an error", "read the error and fix its cause before retrying")


@pytest.fixture(scope="module")
def store(shared_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Store:
    opened = open_store(tmp_path_factory.mktemp("blind-leaks") / "s.sqlite")
    import_paths(opened, [shared_corpus])
    yield opened
    opened.close()


def _session_over_every_trajectory(store: Store) -> tuple[int, dict[int, object]]:
    details = {d.id: d for d in CorpusRepository(store).get_trajectories()}
    items = [
        PopulationItem(kind="firing", result_id=None, rule_origin=f"{d.corpus}/{d.file}", rule_version=1,
                       trigger=RULE[0], directive=RULE[1], trajectory_pk=d.id,
                       trajectory_key={"corpus": d.corpus, "file": d.file, "line": d.line,
                                       "trajectory_id": d.trajectory_id, "content_hash": ""},
                       corpus=d.corpus, replay_answer="does_not_fire", stratum=f"evidence:missed@{d.corpus}",
                       failure=not d.success, rule_pool="all")
        for d in details.values()
    ]
    with store.session() as session:  # a session over hand-made items: the store's plain insert
        info = insert_session_in(
            session, items=items, created_by="lead", seed=1, assumed_p=0.8, target_half_width=None, blind=True,
            allocation="proportional", min_per_stratum=2, gate=0.8, strata={}, run_id=None, run_identity=None,
            created_at="2026-01-01T00:00:00Z", question=QUESTION_FIRING_SCOPE)
    return info.id, details  # type: ignore[return-value]


def test_nothing_shown_before_the_commit_names_a_role_bucket_path_or_id(store: Store) -> None:
    session_id, details = _session_over_every_trajectory(store)
    folders = {d.corpus for d in details.values()}  # type: ignore[attr-defined]
    assert len(folders) >= 20, folders  # every folder of the shared corpus is in the session
    seen_folders: set[str] = set()
    leaks: list[str] = []
    while (item := next_item(store, session_id, "ana")) is not None:
        detail = details[item.trajectory_pk]  # type: ignore[index]
        seen_folders.add(detail.corpus)  # type: ignore[attr-defined]
        view = judging_view(store, item)
        # The answer choices are one fixed vocabulary for every firing item (one of them is the
        # firing answer "near-miss"): they carry nothing about this item, so they are checked
        # for being identical, and every other string for leaks.
        assert view.choices == FIRING_CHOICES
        hidden = [detail.corpus, detail.file, Path(detail.file).name, detail.trajectory_id]  # type: ignore[attr-defined]
        if detail.expected_outcome:  # type: ignore[attr-defined]
            hidden.append(detail.expected_outcome)  # type: ignore[attr-defined]
        for text in [s for s in view.strings() if s not in {label for _a, label in view.choices}]:
            if match := FORBIDDEN.search(text):
                leaks.append(f"{detail.trajectory_id}: {match.group(0)!r} in {text[:80]!r}")  # type: ignore[attr-defined]
            leaks.extend(f"{detail.trajectory_id}: {h!r} shown" for h in hidden if h and h in text)  # type: ignore[attr-defined]
        assert item.replay_answer is None and not hasattr(item, "trajectory_id") and not hasattr(item, "corpus")
        reveal = commit_judgement(store, item.item_id, "ana", "cant_tell")
        assert reveal.revealed is not None and reveal.revealed["trajectory_id"] == detail.trajectory_id  # type: ignore[attr-defined]
    assert seen_folders == folders
    assert not leaks, "\n".join(leaks[:20])
