"""A store with at least one row in every table, written through the services (no test in here)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
from sqlalchemy import func, select, text

from core.agreement.assignments import assign
from core.agreement.session import commit_judgement, create_session, next_item
from core.decisions import waive
from core.domain.labels import LabelText
from core.labels.service import adjudicate as adjudicate_label
from core.labels.service import save_label
from core.promotion import approve
from core.replay.profiles import WORKBENCH
from core.replay.types import PairOutcome, PoolInfo, RuleResult
from core.replaying import load_trajectories
from core.store.corpus_repo import CorpusRepository
from core.store.dto import ImportIssue
from core.store.embedding_repo import EmbeddingCacheRepository
from core.store.engine import Store
from core.store.import_repo import ImportReportRepository
from core.store.profile_repo import ProfileRepository
from core.store.replay_repo import ReplayRepository
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import NewRule, RuleRepository, RuleText
from core.store.side_cache_repo import keep_side
from core.team.store_copy import store_tables


class Builder:
    """Trajectories, rules and a replay run written through the repositories (no matcher involved)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.corpora = CorpusRepository(store)
        self.corpus_id = self.corpora.ensure_corpus("c", "extraction", "folder")
        self.file_id = self.corpora.upsert_file(self.corpus_id, "c/a.jsonl", "trajectories", "h", 1)
        self.pks: dict[str, int] = {}
        self._line = 0

    def trajectories(self, *ids: str, success: bool = False) -> None:
        rows = []
        for tid in ids:
            self._line += 1
            record = json.dumps({"trajectory_id": tid, "task": f"task {tid}", "steps": [], "success": success})
            rows.append(dict(corpus_id=self.corpus_id, line=self._line, end_line=self._line, trajectory_id=tid,
                             success=success, task=f"task {tid}", domain="git", raw_text=record,
                             record_json=record, content_hash=f"h-{tid}"))
        self.corpora.apply_file_changes(self.file_id, rows, [], [])
        self.pks = {t.trajectory_id: t.id for t in self.corpora.list_trajectories(limit=10_000)}

    def rule(self, origin: str, trigger: str, directive: str, source: str | None = None) -> int:
        rule_id, _ = RuleRepository(self.store).upsert(NewRule(
            origin=origin, kind="candidate", text=RuleText(trigger, directive, confidence=0.8), content_hash=origin,
            source_trajectory=source, source_trajectory_pk=self.pks.get(source or "")))
        return rule_id

    def run(self, results: Sequence[tuple[int, str, dict[str, Sequence[str]]]]) -> int:
        repo = ReplayRepository(self.store)
        run_id = repo.start_run("workbench", {"threshold": 0.6}, "cfg", "corpus", None, "off", None)
        versions, rule_results = {}, []
        for rule_id, verdict, buckets in results:
            info = RuleRepository(self.store).get(rule_id)
            assert info is not None
            versions[f"k{rule_id}"] = info.latest.id
            keys = {b: tuple(self.pks[t] for t in buckets.get(b, ())) for b in ("prevented", "broken", "near_miss", "missed")}
            pool = PoolInfo("all", len(self.pks), 1, False)
            rule_results.append(RuleResult(
                rule_key=f"k{rule_id}", verdict=verdict, reason="pass", threshold=0.6,  # type: ignore[arg-type]
                prevented=keys["prevented"], broken=keys["broken"], near_miss=keys["near_miss"], missed=keys["missed"],
                precision=2 / 3, precision_ci=(0.2, 0.9), recall=0.5, recall_ci=None, recall_pool=pool,
                precision_pool=pool, attribution=None,
                outcomes=tuple(PairOutcome(self.pks[t], b, 0.9, 0.8, 0.7, None, "haystack", None, 0.6, 0.3)  # type: ignore[arg-type]
                               for b, tids in buckets.items() for t in tids)))
        repo.save_results(run_id, rule_results, versions)
        repo.finish_run(run_id, "complete", len(results), 0.1)
        return run_id


def fill_every_table(store: Store) -> None:
    b = Builder(store)
    b.trajectories("F-1", "F-2", "F-3")
    b.trajectories("S-1", success=True)
    rule = b.rule("c/r1.yaml", "when git push is rejected", "pull --rebase then push", source="F-1")
    other = b.rule("c/r2.yaml", "when a test flakes", "rerun it once")
    run = b.run([(rule, "pass", {"prevented": ["F-1", "F-2"], "broken": ["S-1"], "missed": ["F-3"]}),
                 (other, "fail", {"broken": ["S-1"]})])
    reviews = ReviewRepository(store)
    result = next(r.id for r in ReplayRepository(store).results(run) if r.rule_id == rule)
    reviews.record_view("ana", result, b.pks["S-1"])
    waive(store, "ana", result, b.pks["S-1"], "only quotes the error text")
    reviews.mark("ana", result, b.pks["F-1"], "prevented", "right", blinded=True)
    approve(store, rule, run, "ana", "prevents both push failures")  # decision, promotion, id_counter, audit
    save_label(store, b.pks["F-1"], "ana", LabelText("when push is rejected", "pull first", ("rebase first",), "a note"))
    save_label(store, b.pks["F-1"], "ana", LabelText("when push is rejected", "pull --rebase first"))  # history
    save_label(store, b.pks["F-1"], "bo", LabelText("when the push fails", "pull first"))
    adjudicate_label(store, b.pks["F-1"], "lead", LabelText("when push is rejected", "pull first"), "ana's is clearer", "ana")
    session = create_session(store, run, "lead", size=4, seed=1)
    item = next_item(store, session.id, "ana")
    assert item is not None
    commit_judgement(store, item.item_id, "ana", "cant_tell")
    assign(store, session.id, ["ana", "bo"], per_item=1, assigned_by="lead")  # agreement_assignment
    EmbeddingCacheRepository(store).put_many("model-x", {"h1": np.arange(4, dtype=np.float32) / 3})
    imports = ImportReportRepository(store)
    report = imports.start(["/corpus"])
    imports.add_issues(report, [ImportIssue("c", "c/a.jsonl", 3, "steps", "not a list")])
    imports.finish(report, {"imported": 4})
    with store.session() as session:
        session.execute(text("INSERT INTO setting (key, value_json) VALUES ('ui', '{\"theme\": \"dark\"}')"))
    running = ReplayRepository(store).start_run("workbench", {"threshold": 0.5}, "cfg2", "corpus", None, "off", None)
    assert running  # left running: its owner row is copied too
    with store.session() as session:
        # A replay_pool row (the derived "missed" rows of a run that stored only what differs).
        session.execute(text(
            "INSERT INTO replay_pool (result_id, domain, exclude_pk, exclude_tid, max_pk, zero_view, zero_cosine, "
            "zero_margin) VALUES (:r, NULL, NULL, 'F-1', :m, 'haystack', 0.25, 0.125)"),
            {"r": result, "m": max(b.pks.values())})
    keep_side(store, load_trajectories(store))  # a replay_side_cache row (the trajectory side of the set)
    # A stored profile, adopted (replay_profile, profile_adoption; issue 26).
    ProfileRepository(store).add("team", WORKBENCH.with_(threshold=0.7), "lead", lab_report={"settings": []},
                                 lab_setting="workbench sem thr=0.70", split={"group_by": "failure_class"})


def empty_tables(store: Store) -> list[str]:
    with store.read_session() as session:
        return [t.name for t in store_tables()
                if session.execute(select(func.count()).select_from(t)).scalar_one() == 0]
