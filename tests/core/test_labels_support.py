"""Fixtures and builders shared by the label and agreement tests (this module holds no tests)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from core.replay.types import PairOutcome, PoolInfo, RuleResult
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store, open_store
from core.store.replay_repo import ReplayRepository
from core.store.rule_repo import NewRule, RuleRepository, RuleText

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


def open_labels_store(path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    return open_store(path)


@pytest.fixture()
def labels_store(store_location: Path | str) -> Iterator[Store]:
    # Runs on both back ends (SQLite file, PostgreSQL database): see tests/conftest.py.
    store = open_store(store_location)
    yield store
    store.close()


def import_demo(store: Store) -> None:
    from core.importing import import_paths

    import_paths(store, [DEMO])


def pk_of(store: Store, trajectory_id: str) -> int:
    rows = [t for t in CorpusRepository(store).list_trajectories(limit=10_000) if t.trajectory_id == trajectory_id]
    assert len(rows) == 1, trajectory_id
    return rows[0].id


class Builder:
    """Trajectories, rules and replay results written directly (no matcher involved)."""

    def __init__(self, store: Store, corpus: str = "c", file: str = "a.jsonl") -> None:
        self.store = store
        self.corpora = CorpusRepository(store)
        self.corpus_id = self.corpora.ensure_corpus(corpus, "extraction", "folder")
        self.file_id = self.corpora.upsert_file(self.corpus_id, file, "trajectories", "h", 1)
        self.pks: dict[str, int] = {}
        self._line = max((r.line for r in self.corpora.records_of_file(self.file_id)), default=0)

    def trajectories(self, *ids: str, success: bool = False, expected_rule: str | None = None) -> list[int]:
        import json

        rows = []
        for tid in ids:
            self._line += 1
            record = {"trajectory_id": tid, "timestamp": "2026-01-01T00:00:00Z", "task": f"task {tid}",
                      "steps": [], "success": success}
            if expected_rule is not None:
                record["expected_rule"] = expected_rule
            rows.append(dict(corpus_id=self.corpus_id, line=self._line, end_line=self._line, trajectory_id=tid,
                             success=success, task=f"task {tid}", expected_rule=expected_rule,
                             raw_text=json.dumps(record), record_json=json.dumps(record), content_hash=f"h-{tid}"))
        self.corpora.apply_file_changes(self.file_id, rows, [], [])
        for t in self.corpora.list_trajectories(limit=10_000):
            self.pks[t.trajectory_id] = t.id
        return [self.pks[t] for t in ids]

    def rule(self, origin: str, trigger: str, directive: str = "do it", source: str | None = None,
             kind: str = "candidate") -> int:
        rule_id, _ = RuleRepository(self.store).upsert(
            NewRule(origin=origin, kind=kind, text=RuleText(trigger, directive), content_hash=origin,
                    source_trajectory=source, source_trajectory_pk=self.pks.get(source or "")),
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
            rule_results.append(RuleResult(
                rule_key=key, verdict=verdict, reason="pass", threshold=0.6,  # type: ignore[arg-type]
                prevented=keys["prevented"], broken=keys["broken"], near_miss=keys["near_miss"], missed=keys["missed"],
                precision=None, precision_ci=None, recall=0.5, recall_ci=None, recall_pool=pool, precision_pool=pool,
                outcomes=outcomes, attribution=None,
            ))
        repo.save_results(run_id, rule_results, version_by_key)
        repo.finish_run(run_id, status, len(results), 0.1)
        return run_id


def small_run(store: Store, status: str = "complete", config_hash: str = "cfg") -> int:
    """3 rules (pass / fail / inconclusive), 8 evidence pairs: 11 things to judge."""
    b = Builder(store)
    b.pks = {t.trajectory_id: t.id for t in b.corpora.list_trajectories(limit=10_000)}
    if not b.pks:  # a second run over the same store reuses its trajectories and rules
        b.trajectories("F1", "F2", "F3", "F4", "F5", "F6")
        b.trajectories("S1", "S2", "N1", success=True)
    r1 = b.rule("R1", "when a")
    r2 = b.rule("R2", "when b")
    r3 = b.rule("R3", "when c")
    return b.run([
        (r1, "pass", {"prevented": ["F1", "F2"], "near_miss": ["N1"]}),
        (r2, "fail", {"prevented": ["F3"], "broken": ["S1", "S2"]}),
        (r3, "inconclusive", {"missed": ["F4", "F5"]}),
    ], status=status, config_hash=config_hash)
