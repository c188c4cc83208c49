"""Ground truths, named by source: which (rule, trajectory) pairs a rule should claim to prevent.

Every truth says what it is built from (``field``), its caveat, and which rules and trajectories
it covers. A truth with no data is ``empty`` and every figure on it is null (never 0).

* ``failure_class_proxy`` (c): a rule whose source failure has class C should prevent the other
  failures of class C and nothing else. A PROXY: classes are coarse and hand-assigned, two
  classes can share a fix, and a rule can rightly generalise beyond its class.
* ``expected_rule`` (b): the labelled lesson. A rule whose source carries ``expected_rule`` E
  should prevent the other failures labelled with the same lesson (the trigger half of E,
  normalised) and nothing else. Labels are sparse: most failures carry none, and two
  wordings of one lesson count as different lessons.
* ``reviewers`` (a): reviewers' blind firing and scope judgements from agreement sessions. A
  judged failure is a positive when the reviewers' majority answer is "prevents" and no
  majority says "out of scope"; only judged pairs count.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from core.matching.text import normalize
from core.replay.types import ReplayRule, ReplayTrajectory

PROXY_CAVEAT = ("a proxy, not a label: failure classes are coarse and hand-assigned, two classes can share a fix "
                "and a good rule can rightly reach beyond its class")
EXPECTED_CAVEAT = ("sparse: only failures that carry an expected_rule count, and two wordings of one lesson "
                   "are two lessons")
REVIEWER_CAVEAT = "only the pairs reviewers judged count; a tie between reviewers leaves the pair out"


@dataclass(frozen=True)
class Truth:
    """``universe[rule_key]``: the trajectory keys judged for the rule (its source excluded);
    ``positives[rule_key]``: those it should claim to prevent. ``label_of``: the label each
    judged trajectory carries (what the shuffled floor permutes); ``rule_label``: the rule's."""

    name: str
    field: str  # the record field (or data) the truth is built from
    caveat: str
    universe: Mapping[str, frozenset[int]]
    positives: Mapping[str, frozenset[int]]
    label_of: Mapping[int, str] = dc_field(default_factory=dict)
    rule_label: Mapping[str, str] = dc_field(default_factory=dict)
    proxy: bool = False

    @property
    def empty(self) -> bool:
        return not any(self.universe.values())

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(k for k, u in self.universe.items() if u)

    def shuffled(self, seed: int) -> Truth:
        """The same truth with the labels permuted across the judged trajectories (seeded):
        what a setting scores when the labels carry no information."""
        if not self.label_of:  # pair-level labels (reviewers): permute them across the judged pairs
            pairs = [(r, t) for r in sorted(self.universe) for t in sorted(self.universe[r])]
            flags = [t in self.positives.get(r, ()) for r, t in pairs]
            random.Random(seed).shuffle(flags)
            shuffled: dict[str, set[int]] = {r: set() for r in self.universe}
            for (r, t), flag in zip(pairs, flags):
                if flag:
                    shuffled[r].add(t)
            return Truth(self.name, self.field, self.caveat, self.universe,
                         {r: frozenset(v) for r, v in shuffled.items()}, {}, self.rule_label, self.proxy)
        keys = sorted(self.label_of)
        labels = [self.label_of[k] for k in keys]
        random.Random(seed).shuffle(labels)
        permuted = dict(zip(keys, labels))
        with_label: dict[str, set[int]] = defaultdict(set)
        for key, label in permuted.items():
            with_label[label].add(key)
        frozen = {label: frozenset(keys) for label, keys in with_label.items()}
        # The judged trajectories are labelled ones, so "t's permuted label is the rule's" is a set
        # intersection (C speed: 10^3 rules x 10^4 judged trajectories at scale).
        positives = {r: u & frozen.get(self.rule_label.get(r, ""), frozenset()) for r, u in self.universe.items()}
        return Truth(self.name, self.field, self.caveat, self.universe, positives, permuted, self.rule_label,
                     self.proxy)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "built_from": self.field, "proxy": self.proxy, "caveat": self.caveat,
                "rules": len(self.rules), "pairs": sum(len(u) for u in self.universe.values()),
                "positives": sum(len(p) for p in self.positives.values()), "empty": self.empty}


def _source(rule: ReplayRule, by_key: Mapping[int, ReplayTrajectory],
            by_id: Mapping[str, ReplayTrajectory]) -> ReplayTrajectory | None:
    if rule.source_key is not None and rule.source_key in by_key:
        return by_key[rule.source_key]
    if rule.source_trajectory_id is not None:
        return by_id.get(rule.source_trajectory_id)
    return None


def _label_truth(
    name: str, built_from: str, caveat: str, rules: Sequence[ReplayRule], trajectories: Sequence[ReplayTrajectory],
    label: Any, proxy: bool,
) -> Truth:
    """Rules whose source has a label; universe: every OTHER labelled failure (not the source by
    key nor by id); positives: those with the source's label."""
    by_key = {t.key: t for t in trajectories}
    by_id: dict[str, ReplayTrajectory] = {}
    for t in trajectories:
        by_id.setdefault(t.trajectory_id, t)
    label_of = {t.key: lab for t in trajectories if not t.success and (lab := label(t))}
    labelled = frozenset(label_of)
    keys_of_id: dict[str, set[int]] = defaultdict(set)
    keys_of_label: dict[str, set[int]] = defaultdict(set)
    for key, lab in label_of.items():
        keys_of_id[by_key[key].trajectory_id].add(key)
        keys_of_label[lab].add(key)
    universe: dict[str, frozenset[int]] = {}
    positives: dict[str, frozenset[int]] = {}
    rule_label: dict[str, str] = {}
    for rule in rules:
        source = _source(rule, by_key, by_id)
        own = label(source) if source is not None else None
        if source is None or not own:
            continue
        judged = labelled - keys_of_id.get(source.trajectory_id, set()) - {source.key}
        universe[rule.key] = judged
        positives[rule.key] = judged & keys_of_label[own]
        rule_label[rule.key] = own
    return Truth(name, built_from, caveat, universe, positives, label_of, rule_label, proxy)


def failure_class_proxy(rules: Sequence[ReplayRule], trajectories: Sequence[ReplayTrajectory]) -> Truth:
    return _label_truth("failure_class_proxy", "failure_class", PROXY_CAVEAT, rules, trajectories,
                        lambda t: (t.failure_class or "").strip().lower() or None, proxy=True)


def expected_rule_lesson(record: Mapping[str, Any]) -> str | None:
    """The trigger half of a record's ``expected_rule`` (0.3.1's parse: a leading "when " is
    dropped, the sentence is cut at its first comma), normalised; None when there is none."""
    text = record.get("expected_rule")
    if not isinstance(text, str) or not text.strip():
        return None
    sentence = text.strip()
    if sentence.lower().startswith("when "):
        sentence = sentence[5:]
    return normalize(sentence.split(",", 1)[0]) or None


def expected_rule_truth(rules: Sequence[ReplayRule], trajectories: Sequence[ReplayTrajectory]) -> Truth:
    return _label_truth("expected_rule", "expected_rule", EXPECTED_CAVEAT, rules, trajectories,
                        lambda t: expected_rule_lesson(t.record), proxy=False)


@dataclass(frozen=True)
class ReviewerJudgement:
    """One reviewer's committed answer on an evidence item (core/agreement's firing question)."""

    rule_key: str
    trajectory_key: int
    firing: str  # prevents | breaks | near_miss | does_not_fire | cant_tell
    scope: str | None  # in_scope | out_of_scope | cant_tell | None (not asked)


def reviewer_truth(judgements: Iterable[ReviewerJudgement], trajectories: Sequence[ReplayTrajectory]) -> Truth:
    """Majority of the decisive answers per failure pair; a tie leaves the pair out."""
    failures = {t.key for t in trajectories if not t.success}
    firing: dict[tuple[str, int], Counter[str]] = defaultdict(Counter)
    scope: dict[tuple[str, int], Counter[str]] = defaultdict(Counter)
    for j in judgements:
        if j.trajectory_key not in failures:
            continue
        if j.firing != "cant_tell":
            firing[(j.rule_key, j.trajectory_key)][j.firing] += 1
        if j.scope in ("in_scope", "out_of_scope"):
            scope[(j.rule_key, j.trajectory_key)][j.scope] += 1
    universe: dict[str, set[int]] = defaultdict(set)
    positives: dict[str, set[int]] = defaultdict(set)
    for pair, counts in firing.items():
        top = counts.most_common(2)
        if len(top) > 1 and top[0][1] == top[1][1]:
            continue
        rule_key, traj = pair
        universe[rule_key].add(traj)
        out = scope.get(pair, Counter())
        if top[0][0] == "prevents" and out["out_of_scope"] <= out["in_scope"]:
            positives[rule_key].add(traj)
    return Truth("reviewers", "agreement judgements (firing, scope)", REVIEWER_CAVEAT,
                 {k: frozenset(v) for k, v in universe.items()},
                 {k: frozenset(positives.get(k, ())) for k in universe})
