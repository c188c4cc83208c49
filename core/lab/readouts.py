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

import itertools
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.lab.claims import Claims
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


def _f1(c: Counts) -> float | None:
    denominator = 2 * c.tp + c.fp + c.fn
    return 2 * c.tp / denominator if denominator else None


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _position(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """The index of each of ``values`` in ``sorted_set`` (both int64; the set sorted), -1 where absent."""
    if not sorted_set.size or not values.size:
        return np.full(values.shape, -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(sorted_set, values), sorted_set.size - 1)
    return np.where(sorted_set[at] == values, at, -1)


def _mask(flat: np.ndarray, size: int) -> np.ndarray:
    """bool [size]: which flat pair indices are in ``flat`` (a gather then tests membership: one
    byte per pair of the run, less than any of the run's [R, T] score arrays)."""
    mask = np.zeros(size, dtype=bool)
    mask[flat] = True
    return mask


@dataclass(frozen=True)
class _TruthArrays:
    """A truth and its shuffled copies as flat pair indices, made once per truth."""

    judged: np.ndarray  # [R] bool: the rule has a non-empty universe
    universe: np.ndarray
    positives: np.ndarray
    positive_mask: np.ndarray  # bool [R * T]
    position_of: np.ndarray  # [R * T]: the pair's index in ``universe``, -1 when not judged
    positives_per_rule: np.ndarray  # [R]
    shuffled: tuple[tuple[np.ndarray, np.ndarray], ...]  # (positives, positives per rule) per seed
    rejection_per_rule: np.ndarray  # [R]: rejection trajectories judged against the rule
    # Per position of ``universe``: is that pair a positive (of the truth, of each shuffled copy)?
    # A claim is located in the universe once per setting; its labels are then one gather each.
    positive_at: np.ndarray  # bool [len(universe)]
    shuffled_at: tuple[np.ndarray, ...]  # bool [len(universe)] per seed

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
    """Per-trajectory facts read once per run (successes, rejection corpora, sources); every
    figure is a sum over the part's rules of per-rule counts taken with array operations over
    the setting's claims (``core.lab.claims.Claims``): no per-setting Python loop over pairs."""

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
        if len(self.keys) != len(trajectories):
            raise ValueError("the lab needs one trajectory per store key")
        self.rule_row = {r.key: i for i, r in enumerate(rules)}
        self.column = {t.key: j for j, t in enumerate(trajectories)}
        self.key_of = np.fromiter((t.key for t in trajectories), dtype=np.int64, count=len(trajectories))
        self._key_order = np.argsort(self.key_of, kind="stable")  # column of the i-th smallest key
        self._sorted_keys = self.key_of[self._key_order]
        self.n_rules, self.n_traj = len(rules), len(trajectories)
        self.success_col = np.fromiter((t.success for t in trajectories), dtype=bool, count=self.n_traj)
        self.rejection_col = np.fromiter((t.key in self.rejection for t in trajectories), dtype=bool,
                                         count=self.n_traj)
        self.source_pairs = self._flat(self.sources)
        self.source_mask = _mask(self.source_pairs, self.n_rules * self.n_traj)
        src_rows, src_cols = np.divmod(self.source_pairs, max(1, self.n_traj))
        self.successes_per_rule = len(self.successes) - np.bincount(
            src_rows[self.success_col[src_cols]], minlength=self.n_rules)
        self.pairs_per_rule = self.n_traj - np.bincount(src_rows, minlength=self.n_rules)
        self._source_rejection = np.bincount(src_rows[self.rejection_col[src_cols]], minlength=self.n_rules)
        self._truths: dict[int, tuple[Truth, _TruthArrays]] = {}

    def _flat(self, pairs: Mapping[str, Collection[int]]) -> np.ndarray:
        """Pairs ``{rule key: trajectory keys}`` as sorted flat indices (keys not in the run left out),
        with array operations (at 10^3 rules x 10^4 judged trajectories a Python loop per pair
        took seconds per truth)."""
        items = [(self.rule_row[r], keys) for r, keys in pairs.items() if r in self.rule_row and keys]
        if not items or not self.n_traj:
            return np.zeros(0, dtype=np.int64)
        lengths = np.fromiter((len(keys) for _row, keys in items), dtype=np.int64, count=len(items))
        keys = np.fromiter(itertools.chain.from_iterable(keys for _row, keys in items), dtype=np.int64,
                           count=int(lengths.sum()))
        rows = np.repeat(np.fromiter((row for row, _keys in items), dtype=np.int64, count=len(items)), lengths)
        at = _position(keys, self._sorted_keys)
        known = at >= 0
        return np.sort(rows[known] * self.n_traj + self._key_order[at[known]])

    def _arrays(self, truth: Truth) -> _TruthArrays:
        """The truth's arrays and its shuffled copies', made once per truth."""
        found = self._truths.get(id(truth))
        if found is not None and found[0] is truth:
            return found[1]
        judged = np.zeros(self.n_rules, dtype=bool)
        for key, judged_keys in truth.universe.items():
            if judged_keys and key in self.rule_row:
                judged[self.rule_row[key]] = True
        positives = self._flat(truth.positives)

        def per_rule(flat: np.ndarray) -> np.ndarray:
            return np.bincount(flat // max(1, self.n_traj), minlength=self.n_rules)

        shuffled = []
        for seed in FLOOR_SEEDS:
            flat = self._flat(truth.shuffled(seed).positives)
            shuffled.append((flat, per_rule(flat)))
        rows, cols = np.divmod(positives, max(1, self.n_traj))
        positive_rejection = rows[self.rejection_col[cols] & ~self.source_mask[positives]]
        rejection = (len(self.rejection) - self._source_rejection
                     - np.bincount(positive_rejection, minlength=self.n_rules))
        universe = self._flat(truth.universe)
        size = self.n_rules * self.n_traj
        positive_mask = _mask(positives, size)
        position_of = np.full(size, -1, dtype=np.int32 if universe.size < 2**31 else np.int64)
        position_of[universe] = np.arange(universe.size)
        arrays = _TruthArrays(judged, universe, positives, positive_mask, position_of, per_rule(positives),
                              tuple(shuffled), rejection, positive_mask[universe],
                              tuple(_mask(flat, size)[universe] for flat, _n in shuffled))
        self._truths[id(truth)] = (truth, arrays)
        return arrays

    def _claims(self, results: Sequence[RuleResult] | Claims) -> tuple[Claims, np.ndarray]:
        """The claims, and which rules have a result (a list of results may leave rules out)."""
        if isinstance(results, Claims):
            return results, np.ones(self.n_rules, dtype=bool)
        present = np.zeros(self.n_rules, dtype=bool)
        present[[self.rule_row[r.rule_key] for r in results if r.rule_key in self.rule_row]] = True
        return Claims.from_results([r for r in results if r.rule_key in self.rule_row], self.rule_row, self.column,
                                   self.n_rules, self.n_traj), present

    def read(self, results: Sequence[RuleResult] | Claims, truth: Truth, rules: Collection[str], part: str) -> ReadOut:
        return self.read_parts(results, truth, {part: rules})[part]

    def read_parts(self, results: Sequence[RuleResult] | Claims, truth: Truth,
                   parts: Mapping[str, Collection[str]]) -> dict[str, ReadOut]:
        """One ``ReadOut`` per part (its rules), from the same per-rule counts."""
        claims, present = self._claims(results)
        arrays = self._arrays(truth)
        n = max(1, self.n_traj)
        prevented, broken = claims.prevented, claims.broken
        p_rows = prevented // n
        # Where each claim sits in the truth's universe, and its labels there: gathers, no search.
        at = arrays.position_of[prevented]
        judged_claims = at >= 0
        claimed = np.bincount(p_rows[judged_claims], minlength=self.n_rules)
        judged_at = at[judged_claims]
        judged_rows = p_rows[judged_claims]

        def true_claims(positive_at: np.ndarray) -> np.ndarray:
            return np.bincount(judged_rows[positive_at[judged_at]], minlength=self.n_rules)

        tp = true_claims(arrays.positive_at)
        floors = [(true_claims(flags), count) for flags, (_flat_positives, count)
                  in zip(arrays.shuffled_at, arrays.shuffled)]
        # Truth-independent per-rule counts: breaks, claims outside the source, rejection claims.
        b_rows, b_cols = np.divmod(broken, n)
        b_src = self.source_mask[broken]
        breaks = np.bincount(b_rows[self.success_col[b_cols] & ~b_src], minlength=self.n_rules)
        all_breaks = np.bincount(b_rows, minlength=self.n_rules)
        fired = np.concatenate([prevented, broken])  # disjoint: failures vs successes
        f_rows, f_cols = np.divmod(fired, n)
        f_outside = ~self.source_mask[fired]
        outside = np.bincount(f_rows[f_outside], minlength=self.n_rules)
        accepted = np.bincount(
            f_rows[f_outside & self.rejection_col[f_cols] & ~arrays.positive_mask[fired]], minlength=self.n_rules)

        out: dict[str, ReadOut] = {}
        for part, keys in parts.items():
            chosen = np.zeros(self.n_rules, dtype=bool)
            chosen[[self.rule_row[k] for k in keys if k in self.rule_row]] = True
            chosen &= arrays.judged & present
            out[part] = self._read_out(truth.name, part, chosen, claimed, (tp, arrays.positives_per_rule), floors,
                                       all_breaks, breaks, accepted, outside, arrays.rejection_per_rule)
        return out

    def _read_out(self, truth: str, part: str, chosen: np.ndarray, claimed: np.ndarray,
                  truth_counts: tuple[np.ndarray, np.ndarray], floors: list[tuple[np.ndarray, np.ndarray]],
                  all_breaks: np.ndarray, breaks: np.ndarray, accepted: np.ndarray, outside: np.ndarray,
                  rejection: np.ndarray) -> ReadOut:
        def counts(tp: np.ndarray, positives: np.ndarray) -> Counts:
            fp = claimed - tp
            net = tp > fp + all_breaks
            return Counts(int(tp[chosen].sum()), int(fp[chosen].sum()), int((positives - tp)[chosen].sum()),
                          int(np.count_nonzero(net & chosen)), int(np.count_nonzero(chosen)))

        c = counts(*truth_counts)
        shuffled = [counts(*f) for f in floors]

        def over(fn: Any) -> float | None:
            return _mean([fn(s) for s in shuffled])

        precision = _rate(c.tp, c.tp + c.fp, over(lambda s: s.tp / (s.tp + s.fp) if s.tp + s.fp else None))
        recall = _rate(c.tp, c.tp + c.fn, over(lambda s: s.tp / (s.tp + s.fn) if s.tp + s.fn else None))
        f1_n = math.ceil(c.tp + (c.fp + c.fn) / 2)
        f1 = Figure(_f1(c), c.tp, f1_n, wilson_interval(c.tp, f1_n), over(_f1))
        net = _rate(c.net_rules, c.rules, over(lambda s: s.net_rules / s.rules if s.rules else None))
        pairs = int(self.pairs_per_rule[chosen].sum())
        base = int(outside[chosen].sum()) / pairs if pairs else None
        return ReadOut(truth, part, c.rules, precision, recall, f1,
                       _rate(int(breaks[chosen].sum()), int(self.successes_per_rule[chosen].sum()), base),
                       _rate(int(accepted[chosen].sum()), int(rejection[chosen].sum()), base), net)
