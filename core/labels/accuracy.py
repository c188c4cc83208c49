"""Extraction accuracy per corpus with the labels as ground truth (reference §7).

For every trajectory of the corpus that has ground truth (adjudicated label, else the
reviewer's label, else the imported ``expected_rule``; see ``LabelRepository.ground_truths``)
and at least one extracted candidate, the chosen candidate is scored against it. Trajectories
without ground truth, or whose ground truth is "no rule expected", or without a candidate are
*excluded and counted*, never scored 0. With n = 0 every metric is ``None``.

Which candidate: with a replay run, the replay-selected best (pass before inconclusive before
fail, then higher recall, then the lower rule id), as the reference does; without one, the
first extracted rule (lowest id).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.domain.labels import GroundTruth, LabelText
from core.labels.feedback import EXTRACTED_KINDS, score_against
from core.metrics.extraction import EmbedFn, ExtractionAccuracy, ExtractionScore, aggregate, parse_expected_rule
from core.metrics.registry import MEAN_METRICS
from core.store.dto import RuleInfo
from core.store.engine import Store
from core.store.label_repo import LabelRepository
from core.store.replay_repo import ReplayRepository
from core.store.rule_repo import RuleRepository

_VERDICT_RANK = {"pass": 0, "inconclusive": 1, "fail": 2}


@dataclass(frozen=True)
class AccuracyRow:
    trajectory_pk: int
    source: str  # ground-truth source
    sentence: str
    rule_id: int
    origin: str
    score: ExtractionScore


@dataclass(frozen=True)
class CorpusAccuracy:
    corpus: str
    reviewer: str | None
    accuracy: ExtractionAccuracy  # semantic_f1 is None without an embedding model
    semantic_state: str  # "on" | "unavailable"
    agreement_basis: str  # "semantic" | "lexical"
    sources: dict[str, int]  # ground-truth source -> trajectories measured
    no_ground_truth: int
    no_rule_expected: int
    no_candidate: int
    conflicting: int  # trajectories whose reviewers disagree and were not adjudicated
    rows: tuple[AccuracyRow, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus, "reviewer": self.reviewer, **self.accuracy.to_dict(),
            "semantic_state": self.semantic_state, "agreement_basis": self.agreement_basis,
            "sources": dict(self.sources), "no_ground_truth": self.no_ground_truth,
            "no_rule_expected": self.no_rule_expected, "no_candidate": self.no_candidate,
            "conflicting": self.conflicting,
        }


def _ground_truth_text(truth: GroundTruth) -> LabelText:
    if truth.text is not None:
        return truth.text
    trigger, directive = parse_expected_rule(truth.sentence or "")
    return LabelText(trigger, directive)


def choose_candidates(store: Store, run_id: int | None) -> dict[int, RuleInfo]:
    """Source trajectory pk -> the candidate whose extraction is measured."""
    rules = [r for r in RuleRepository(store).list_rules(kinds=EXTRACTED_KINDS) if r.source_trajectory_pk is not None]
    rank: dict[int, tuple[int, float, int]] = {}
    if run_id is not None:
        for result in ReplayRepository(store).results(run_id):
            rank[result.rule_id] = (_VERDICT_RANK.get(result.verdict, 3), -(result.recall or 0.0), result.rule_id)
    chosen: dict[int, RuleInfo] = {}
    for rule in sorted(rules, key=lambda r: rank.get(r.id, (4, 0.0, r.id))):
        assert rule.source_trajectory_pk is not None
        chosen.setdefault(rule.source_trajectory_pk, rule)
    return chosen


def corpus_accuracy(
    store: Store, corpus: str, reviewer: str | None = None, run_id: int | None = None,
    embed: EmbedFn | None = None, trajectory_pks: Sequence[int] | None = None,
) -> CorpusAccuracy:
    truths = LabelRepository(store).ground_truths(corpus, reviewer)
    if trajectory_pks is not None:
        wanted = set(trajectory_pks)
        truths = {pk: t for pk, t in truths.items() if pk in wanted}
    candidates = choose_candidates(store, run_id)
    rows: list[AccuracyRow] = []
    sources: Counter[str] = Counter()
    no_truth = no_rule = no_candidate = 0
    for pk, truth in sorted(truths.items()):
        if truth.sentence is None:
            no_truth += 1
            continue
        if not truth.sentence.strip():
            no_rule += 1
            continue
        rule = candidates.get(pk)
        if rule is None:
            no_candidate += 1
            continue
        score, _ = score_against(rule.latest.trigger, rule.latest.directive, _ground_truth_text(truth), embed)
        rows.append(AccuracyRow(pk, truth.source, truth.sentence, rule.id, rule.origin, score))
        sources[truth.source] += 1
    accuracy = aggregate([r.score for r in rows], excluded=no_truth + no_rule + no_candidate)
    if embed is None:  # the registry's null rule: a mean that needs the model is unmeasured without one
        unmeasured: dict[str, Any] = {m.key: None for m in MEAN_METRICS if m.needs_model}
        accuracy = replace(accuracy, **unmeasured)
    return CorpusAccuracy(
        corpus=corpus, reviewer=reviewer, accuracy=accuracy,
        semantic_state="on" if embed is not None else "unavailable",
        agreement_basis="semantic" if embed is not None else "lexical", sources=dict(sources),
        no_ground_truth=no_truth, no_rule_expected=no_rule, no_candidate=no_candidate,
        conflicting=sum(1 for t in truths.values() if t.conflicting), rows=tuple(rows),
    )
