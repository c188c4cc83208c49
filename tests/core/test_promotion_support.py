"""Fixtures and builders shared by the promotion tests (this module holds no tests).

``promotion_store`` opens a store (its schema includes the promotion tables).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from core.replay.types import PairOutcome, PoolInfo, RuleResult
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store, open_store
from core.store.replay_repo import ReplayRepository
from core.store.rule_repo import NewRule, RuleRepository, RuleText

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture()
def promotion_store(store_location: Path | str) -> Iterator[Store]:
    # Runs on both back ends (SQLite file, PostgreSQL database): see tests/conftest.py.
    store = open_store(store_location)
    yield store
    store.close()


@pytest.fixture()
def demo_copy(tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target)
    return target


class Builder:
    """Builds trajectories, rules and replay results directly (no matcher involved)."""

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
            rows.append(dict(corpus_id=self.corpus_id, line=self._line, end_line=self._line, trajectory_id=tid,
                             success=success, task="t", raw_text="{}", record_json="{}", content_hash=tid))
        self.corpora.apply_file_changes(self.file_id, rows, [], [])
        for t in self.corpora.list_trajectories(limit=10_000):
            self.pks[t.trajectory_id] = t.id

    def rule(self, origin: str, trigger: str, directive: str, kind: str = "candidate", **more: object) -> int:
        rule_id, _ = RuleRepository(self.store).upsert(
            NewRule(origin=origin, kind=kind, text=RuleText(trigger, directive, confidence=0.8),
                    content_hash=origin, source_trajectory="S-SRC", **more)  # type: ignore[arg-type]
        )
        return rule_id

    def run(self, results: Sequence[tuple[int, str, dict[str, Sequence[str]]]], status: str = "complete",
            config_hash: str = "cfg", corpus_hash: str = "corpus") -> int:
        """results: (rule id, verdict, {bucket: [trajectory ids]})."""
        repo = ReplayRepository(self.store)
        run_id = repo.start_run("workbench", {"threshold": 0.6}, config_hash, corpus_hash, None, "off", None)
        version_by_key = {}
        rule_results = []
        for rule_id, verdict, buckets in results:
            info = RuleRepository(self.store).get(rule_id)
            assert info is not None
            key = f"k{rule_id}"
            version_by_key[key] = info.latest.id
            outcomes = tuple(
                PairOutcome(self.pks[tid], bucket, 0.9, 0.9, 0.9, None, "haystack", None, 0.6, 0.3)  # type: ignore[arg-type]
                for bucket, tids in buckets.items() for tid in tids
            )
            pool = PoolInfo("all", len(self.pks), 1, False)
            keys = {b: tuple(self.pks[t] for t in buckets.get(b, ())) for b in ("prevented", "broken", "near_miss", "missed")}
            n_prev, n_broken = len(keys["prevented"]), len(keys["broken"])
            rule_results.append(RuleResult(
                rule_key=key, verdict=verdict, reason="pass" if verdict == "pass" else "blocked_by_broken",  # type: ignore[arg-type]
                threshold=0.6, prevented=keys["prevented"], broken=keys["broken"], near_miss=keys["near_miss"],
                missed=keys["missed"], precision=(n_prev / (n_prev + n_broken)) if n_prev + n_broken else None,
                precision_ci=None, recall=0.5, recall_ci=None, recall_pool=pool, precision_pool=pool,
                outcomes=outcomes, attribution=None,
            ))
        repo.save_results(run_id, rule_results, version_by_key)
        repo.finish_run(run_id, status, len(results), 0.1)
        return run_id

    def result_id(self, run_id: int, rule_id: int) -> int:
        return next(r.id for r in ReplayRepository(self.store).results(run_id) if r.rule_id == rule_id)
