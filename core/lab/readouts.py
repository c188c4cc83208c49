"""Read-outs of one setting's decisions against one truth, on one part of the split.

Each figure is a ``Figure``: its value, k and n, its Wilson 95% interval and its shuffled-labels
floor (the same figure with the truth's labels permuted, mean over ``FLOOR_SEEDS``
permutations). A figure with n = 0 is null with a null interval, never 0.

* precision / recall / F1 of ``prevented``: micro-averaged over the part's rules. A claim is
  ``t in result.prevented`` for a trajectory the truth judges. F1 = 2TP / (2TP + FP + FN); F1 is
  not a binomial proportion, so its band is the Wilson interval of TP out of TP + (FP + FN) / 2
  (rounded up): an approximation, said so in the report.
* false-break rate on successes: (rule, success) pairs filed ``broken`` / all such pairs
  (the rule's source excluded). Every break counts as false: a rule written for a failure is not
  about a success.
* false-accept rate on rejection corpora (``nearmiss``, ``adversarial``): pairs the rule
  claims (prevented or broken) on a trajectory of those corpora that the truth does not make
  a positive / all such pairs.
* net positive: share of the part's rules whose true claims exceed their false claims plus
  their breaks.
For the two rates that do not read the truth's labels, the floor is the rate on trajectories
drawn at random: the setting's claim rate over every pair (what permuting which trajectories
are successes, or which belong to a rejection corpus, gives on average).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.lab.truths import Truth
from core.replay.types import ReplayRule, ReplayTrajectory, RuleResult
from core.stats.wilson import wilson_interval

FLOOR_SEEDS = tuple(range(10))
REJECTION_CORPORA = ("nearmiss", "adversarial")


@dataclass(frozen=True)
class Figure:
    value: float | None
    k: int
    n: int
    ci: tuple[float, float] | None
    floor: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "k": self.k, "n": self.n, "ci": list(self.ci) if self.ci else None,
                "floor": self.floor}


def _rate(k: int, n: int, floor: float | None) -> Figure:
    return Figure(k / n if n else None, k, n, wilson_interval(k, n), floor)


@dataclass(frozen=True)
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    net_rules: int = 0
    rules: int = 0


def _counts(results: Mapping[str, RuleResult], truth: Truth, rules: Collection[str],
            broken_of: Mapping[str, frozenset[int]]) -> Counts:
    tp = fp = fn = net = n = 0
    for key in rules:
        universe = truth.universe.get(key)
        result = results.get(key)
        if not universe or result is None:
            continue
        positives = truth.positives.get(key, frozenset())
        claimed = universe.intersection(result.prevented)
        hit = len(claimed & positives)
        tp, fp, fn = tp + hit, fp + len(claimed) - hit, fn + len(positives) - hit
        n += 1
        if hit > (len(claimed) - hit) + len(broken_of.get(key, ())):
            net += 1
    return Counts(tp, fp, fn, net, n)


def _f1(c: Counts) -> float | None:
    denominator = 2 * c.tp + c.fp + c.fn
    return 2 * c.tp / denominator if denominator else None


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


@dataclass(frozen=True)
class ReadOut:
    truth: str
    part: str
    rules: int
    precision: Figure
    recall: Figure
    f1: Figure
    false_break: Figure
    false_accept: Figure
    net_positive: Figure

    def to_dict(self) -> dict[str, Any]:
        return {"truth": self.truth, "part": self.part, "rules": self.rules,
                **{name: getattr(self, name).to_dict() for name in
                   ("precision", "recall", "f1", "false_break", "false_accept", "net_positive")}}


class Reader:
    """Per-trajectory facts read once per run (successes, rejection corpora, sources)."""

    def __init__(self, rules: Sequence[ReplayRule], trajectories: Sequence[ReplayTrajectory]) -> None:
        by_id: dict[str, set[int]] = {}
        for t in trajectories:
            by_id.setdefault(t.trajectory_id, set()).add(t.key)
        # The rule's source, by store key and by trajectory id (duplicate ids are copies).
        self.sources = {r.key: frozenset(by_id.get(r.source_trajectory_id or "", set())
                                         | ({r.source_key} if r.source_key is not None else set()))
                        for r in rules}
        self.successes = frozenset(t.key for t in trajectories if t.success)
        self.rejection = frozenset(t.key for t in trajectories
                                   if any(seg in REJECTION_CORPORA for seg in t.corpus.lower().split("/")))
        self.keys = frozenset(t.key for t in trajectories)
        self._permuted: dict[int, tuple[Truth, list[Truth]]] = {}

    def _shuffled(self, truth: Truth) -> list[Truth]:
        """The truth's permutations, made once per truth (they do not depend on a setting)."""
        found = self._permuted.get(id(truth))
        if found is None or found[0] is not truth:
            found = (truth, [truth.shuffled(seed) for seed in FLOOR_SEEDS])
            self._permuted[id(truth)] = found
        return found[1]

    def read(self, results: Sequence[RuleResult], truth: Truth, rules: Collection[str], part: str) -> ReadOut:
        by_key = {r.rule_key: r for r in results}
        rules = [k for k in rules if truth.universe.get(k) and k in by_key]
        broken_of = {k: frozenset(by_key[k].broken) for k in rules}
        counts = _counts(by_key, truth, rules, broken_of)
        floors = [_counts(by_key, shuffled, rules, broken_of) for shuffled in self._shuffled(truth)]

        def over(fn: Any) -> float | None:
            return _mean([fn(c) for c in floors])

        precision = _rate(counts.tp, counts.tp + counts.fp,
                          over(lambda c: c.tp / (c.tp + c.fp) if c.tp + c.fp else None))
        recall = _rate(counts.tp, counts.tp + counts.fn, over(lambda c: c.tp / (c.tp + c.fn) if c.tp + c.fn else None))
        f1_n = math.ceil(counts.tp + (counts.fp + counts.fn) / 2)
        f1 = Figure(_f1(counts), counts.tp, f1_n, wilson_interval(counts.tp, f1_n), over(_f1))
        net = _rate(counts.net_rules, counts.rules, over(lambda c: c.net_rules / c.rules if c.rules else None))

        broken = successes = accepted = rejection = claims = pairs = 0
        # Counted from the rule's claims and positives (small), never by copying a [T] set per rule.
        for key in rules:
            result = by_key[key]
            source = self.sources.get(key, frozenset())
            fired = set(result.prevented).union(result.broken)
            positives = truth.positives.get(key, frozenset())
            broken += sum(1 for k in result.broken if k in self.successes and k not in source)
            successes += len(self.successes) - len(source & self.successes)
            accepted += sum(1 for k in fired if k in self.rejection and k not in source and k not in positives)
            rejection += len(self.rejection) - len(source & self.rejection) - sum(
                1 for k in positives if k in self.rejection and k not in source)
            claims += sum(1 for k in fired if k not in source)
            pairs += len(self.keys) - len(source & self.keys)
        base = claims / pairs if pairs else None
        return ReadOut(truth.name, part, counts.rules, precision, recall, f1, _rate(broken, successes, base),
                       _rate(accepted, rejection, base), net)
