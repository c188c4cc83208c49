"""The lab's read-outs are sums of per-rule counts taken with array operations over a setting's
claims (issue 26, sweep speed). They must equal the figures of the plain per-rule loop they
replaced, kept here as the oracle: counts, floors (shuffled labels) and both rates."""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from test_replay_pruning import TopicEmbed, _replay_inputs

from core.lab.claims import ClaimDecider
from core.lab.readouts import FLOOR_SEEDS, Figure, Reader, ReadOut, _f1, _mean, _rate
from core.lab.readouts import Counts as C
from core.lab.scores import ScoredPairs
from core.lab.settings import Setting
from core.lab.truths import Truth, expected_rule_truth, failure_class_proxy
from core.replay.types import RuleResult
from core.stats.wilson import wilson_interval


def _old_shuffled(truth: Truth, seed: int) -> Truth:
    keys = sorted(truth.label_of)
    labels = [truth.label_of[k] for k in keys]
    random.Random(seed).shuffle(labels)
    permuted = dict(zip(keys, labels))
    positives = {r: frozenset(t for t in u if permuted.get(t) == truth.rule_label.get(r))
                 for r, u in truth.universe.items()}
    return Truth(truth.name, truth.field, truth.caveat, truth.universe, positives, permuted, truth.rule_label)


def _oracle(reader: Reader, results: Sequence[RuleResult], truth: Truth, rules: Collection[str], part: str) -> ReadOut:
    """The per-rule loop of the first lab round (core/lab/readouts.py before the sweep-speed work)."""
    by_key = {r.rule_key: r for r in results}
    rules = [k for k in rules if truth.universe.get(k) and k in by_key]
    broken_of = {k: frozenset(by_key[k].broken) for k in rules}

    def counts(t: Truth) -> C:
        tp = fp = fn = net = n = 0
        for key in rules:
            positives = t.positives.get(key, frozenset())
            claimed = t.universe[key].intersection(by_key[key].prevented)
            hit = len(claimed & positives)
            tp, fp, fn = tp + hit, fp + len(claimed) - hit, fn + len(positives) - hit
            n += 1
            net += hit > (len(claimed) - hit) + len(broken_of[key])
        return C(tp, fp, fn, net, n)

    c = counts(truth)
    floors = [counts(_old_shuffled(truth, seed)) for seed in FLOOR_SEEDS]

    def over(fn):  # type: ignore[no-untyped-def]
        return _mean([fn(x) for x in floors])

    precision = _rate(c.tp, c.tp + c.fp, over(lambda x: x.tp / (x.tp + x.fp) if x.tp + x.fp else None))
    recall = _rate(c.tp, c.tp + c.fn, over(lambda x: x.tp / (x.tp + x.fn) if x.tp + x.fn else None))
    f1_n = math.ceil(c.tp + (c.fp + c.fn) / 2)
    f1 = Figure(_f1(c), c.tp, f1_n, wilson_interval(c.tp, f1_n), over(_f1))
    net = _rate(c.net_rules, c.rules, over(lambda x: x.net_rules / x.rules if x.rules else None))
    broken = successes = accepted = rejection = claims = pairs = 0
    for key in rules:
        result = by_key[key]
        source = reader.sources.get(key, frozenset())
        fired = set(result.prevented).union(result.broken)
        positives = truth.positives.get(key, frozenset())
        broken += sum(1 for k in result.broken if k in reader.successes and k not in source)
        successes += len(reader.successes) - len(source & reader.successes)
        accepted += sum(1 for k in fired if k in reader.rejection and k not in source and k not in positives)
        rejection += len(reader.rejection) - len(source & reader.rejection) - sum(
            1 for k in positives if k in reader.rejection and k not in source)
        claims += sum(1 for k in fired if k not in source)
        pairs += len(reader.keys) - len(source & reader.keys)
    base = claims / pairs if pairs else None
    return ReadOut(truth.name, part, c.rules, precision, recall, f1, _rate(broken, successes, base),
                   _rate(accepted, rejection, base), net)


def _inputs(seed: int):  # type: ignore[no-untyped-def]
    rules, trajectories = _replay_inputs(seed)
    # Unique keys (the store's), some rejection-corpus records, expected_rule labels on failures.
    out = []
    for t in trajectories:
        corpus = "public/nearmiss" if t.key % 5 == 0 else t.corpus
        record = dict(t.record)
        if not t.success and t.key % 2:
            record["expected_rule"] = random.Random(t.key).choice(["when git push fails, pull", "when tests fail, fix"])
        out.append(type(t)(t.key, t.trajectory_id, corpus, t.domain, t.success, t.failure_class, record))
    return rules, out


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), threshold=st.sampled_from([None, 0.3, 0.5]), semantic=st.booleans(),
       scope=st.sampled_from(["same_as_recall", "all"]))
def test_vectorised_read_outs_equal_the_per_rule_loop(seed: int, threshold: float | None, semantic: bool,
                                                      scope: str) -> None:
    rules, trajectories = _inputs(seed)
    scored = ScoredPairs.build(rules, trajectories, embed=TopicEmbed())
    profile = Setting(threshold=threshold, semantic=semantic, precision_scope=scope).profile()
    results = scored.decide(profile)
    claims = ClaimDecider(scored).decide(profile)
    reader = Reader(rules, trajectories)
    for truth in (failure_class_proxy(rules, trajectories), expected_rule_truth(rules, trajectories)):
        half = list(truth.rules)[::2]
        for part, keys in (("all", truth.rules), ("half", half)):
            expected = _oracle(reader, results, truth, keys, part)
            assert reader.read(claims, truth, keys, part) == expected
            assert reader.read(results, truth, keys, part) == expected


def test_the_shuffled_truth_is_the_per_trajectory_permutation() -> None:
    rules, trajectories = _inputs(11)
    truth = failure_class_proxy(rules, trajectories)
    assert any(truth.positives.values())
    for seed in FLOOR_SEEDS[:3]:
        assert dict(truth.shuffled(seed).positives) == dict(_old_shuffled(truth, seed).positives)
