"""Reference pools per rule: which trajectories each rate is computed on.

Pools are boolean masks over the run's trajectory list, built with array ops from a
per-run index (a Python loop over rules is fine, never over rule x trajectory).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from core.replay.profiles import RecallScope, ReplayProfile
from core.replay.types import PoolInfo, PoolSpec, ReplayRule, ReplayTrajectory

SCOPE_MIN = 3  # the runner's "at least 3 same-domain references" (#708)
SCOPED_KINDS = frozenset({"domain", "corpus", "failure_class"})
# What a recall pool is sliced by: (column, value). "unscoped": the whole set (the rule has no
# value for the scope, or the scope is none); "empty": no pool at all (unscoped_pool "none").
Scope = tuple[str, str | None]


@dataclass(frozen=True)
class PoolIndex:
    """Per-run lookup arrays over the trajectory list.

    Every rule needs its source's positions and its domain's mask. Comparing the object
    arrays per rule (``ids == source``) is one Python string comparison per trajectory and
    rule: 10^8 of them at 10^5 x 10^3. So positions are looked up in dicts built once, and
    each domain's mask is built once and shared (read-only).
    """

    ids: np.ndarray  # [T] object (str)
    keys: np.ndarray  # [T] int64
    domains: np.ndarray  # [T] object (str | None)
    failure: np.ndarray  # [T] bool
    id_positions: dict[str, list[int]] = field(default_factory=dict, repr=False, compare=False)
    key_positions: dict[int, list[int]] = field(default_factory=dict, repr=False, compare=False)
    _domain_masks: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    _domain_sizes: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    # Other columns a pool may be sliced by ("corpus", "failure_class"): filled by
    # ``ensure_scope_columns`` (a side read back from the store has only the four above).
    columns: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    _group_masks: dict[tuple[str, str], tuple[np.ndarray, int]] = field(default_factory=dict, repr=False,
                                                                        compare=False)

    @classmethod
    def build(cls, trajectories: Sequence[ReplayTrajectory]) -> PoolIndex:
        n = len(trajectories)
        ids = np.empty(n, dtype=object)
        domains = np.empty(n, dtype=object)
        ids[:] = [t.trajectory_id for t in trajectories]
        domains[:] = [t.domain for t in trajectories]
        keys = np.fromiter((t.key for t in trajectories), dtype=np.int64, count=n)
        failure = np.fromiter((not t.success for t in trajectories), dtype=bool, count=n)
        return cls.from_arrays(ids, keys, domains, failure)

    @classmethod
    def from_arrays(cls, ids: np.ndarray, keys: np.ndarray, domains: np.ndarray, failure: np.ndarray) -> PoolIndex:
        """The index over these columns (``build``'s, or read back by ``core.replay.side_codec``)."""
        id_positions: dict[str, list[int]] = {}
        key_positions: dict[int, list[int]] = {}
        for position, (tid, key) in enumerate(zip(ids.tolist(), keys.tolist())):
            id_positions.setdefault(tid, []).append(position)
            key_positions.setdefault(key, []).append(position)
        return cls(ids=ids, keys=keys, domains=domains, failure=failure, id_positions=id_positions,
                   key_positions=key_positions)

    @property
    def size(self) -> int:
        return int(self.ids.shape[0])

    def domain_mask(self, domain: str) -> np.ndarray:
        """``domains == domain``, built once per domain; read-only (callers combine, never modify)."""
        mask = self._domain_masks.get(domain)
        if mask is None:
            mask = self.domains == domain
            mask.flags.writeable = False
            self._domain_masks[domain] = mask
            self._domain_sizes[domain] = int(np.count_nonzero(mask))
        return mask

    def domain_size(self, domain: str) -> int:
        """How many trajectories have ``domain`` (counted once per domain)."""
        self.domain_mask(domain)
        return self._domain_sizes[domain]

    def group_mask(self, column: str, value: str) -> np.ndarray:
        """``column == value`` over the run (``domain`` or a column of ``columns``), built once; read-only."""
        if column == "domain":
            return self.domain_mask(value)
        found = self._group_masks.get((column, value))
        if found is None:
            mask = self.columns[column] == value
            mask.flags.writeable = False
            found = self._group_masks[(column, value)] = (mask, int(np.count_nonzero(mask)))
        return found[0]

    def group_size(self, column: str, value: str) -> int:
        if column == "domain":
            return self.domain_size(value)
        self.group_mask(column, value)
        return self._group_masks[(column, value)][1]


def ensure_scope_columns(index: PoolIndex, trajectories: Sequence[ReplayTrajectory]) -> None:
    """Give ``index`` the corpus and failure-class columns of ``trajectories`` (the ones it was
    built from) if it lacks them: the same values every time, so a shared index may get them
    once for every run."""
    if "corpus" in index.columns and "failure_class" in index.columns:
        return
    n = len(trajectories)
    corpus = np.empty(n, dtype=object)
    corpus[:] = [t.corpus for t in trajectories]
    failure_class = np.empty(n, dtype=object)
    failure_class[:] = [t.failure_class or None for t in trajectories]
    index.columns.setdefault("corpus", corpus)
    index.columns.setdefault("failure_class", failure_class)


@dataclass(frozen=True)
class RulePools:
    recall: np.ndarray  # [T] bool
    precision: np.ndarray  # [T] bool
    recall_info: PoolInfo
    precision_info: PoolInfo
    recall_spec: PoolSpec | None = PoolSpec(None, None, None)  # None: not a domain slice nor the whole set

    @property
    def union(self) -> np.ndarray:
        return np.asarray(self.recall | self.precision)


# Per rule these run on [T] arrays; a run has one call per rule, so each avoids an
# allocation or a reduction where it can (``count_nonzero``, positions set in a copy):
# with ~10 array calls per rule they cost as much as scoring a small run.
def _info(kind: str, mask: np.ndarray, index: PoolIndex) -> PoolInfo:
    return PoolInfo(
        kind=kind,
        size=int(np.count_nonzero(mask)),
        failures=int(np.count_nonzero(mask & index.failure)),
        scoped=kind in SCOPED_KINDS,
    )


def self_positions(rule: ReplayRule, index: PoolIndex, by_key: bool) -> list[int]:
    """Positions of the rule's source: by trajectory id, and by store key if ``by_key``."""
    positions: list[int] = []
    if rule.source_trajectory_id is not None:
        positions += index.id_positions.get(rule.source_trajectory_id, [])
    if by_key and rule.source_key is not None:
        positions += index.key_positions.get(rule.source_key, [])
    return positions


def _without(base: np.ndarray | None, positions: list[int], size: int) -> np.ndarray:
    """``base`` (None: every trajectory) minus ``positions``, as a new mask."""
    mask = np.ones(size, dtype=bool) if base is None else base.copy()
    if positions:
        mask[positions] = False
    return mask


def _source_value(rule: ReplayRule, index: PoolIndex, column: str) -> str | None:
    """The rule's source trajectory's value in ``column`` (by store key first, then by id)."""
    positions = index.key_positions.get(rule.source_key, []) if rule.source_key is not None else []
    if not positions and rule.source_trajectory_id is not None:
        positions = index.id_positions.get(rule.source_trajectory_id, [])
    if not positions:
        return None
    value = index.columns[column][positions[0]]
    return value if isinstance(value, str) and value else None


def _rule_value(rule: ReplayRule, index: PoolIndex, scope: RecallScope) -> str | None:
    if scope == "domain":
        return rule.domain
    if scope == "corpus":
        return rule.corpus or None
    if scope == "failure_class":
        return _source_value(rule, index, "failure_class")
    return None


def recall_scope(rule: ReplayRule, index: PoolIndex, profile: ReplayProfile | None = None) -> Scope:
    """What the rule's recall pool is sliced by under ``profile`` (None: 0.3.1's domain, whole
    set when the rule has no domain)."""
    scope: RecallScope = "domain" if profile is None else profile.recall_scope
    if scope == "none":
        return ("unscoped", None)
    value = _rule_value(rule, index, scope)
    if value is not None:
        return (scope, value)
    unscoped = "all" if profile is None else profile.unscoped_pool
    if unscoped == "corpus" and rule.corpus:
        return ("corpus", rule.corpus)
    if unscoped == "none":
        return ("empty", None)
    return ("unscoped", None)


def _slice(scope: Scope, index: PoolIndex) -> tuple[np.ndarray | None, int]:
    column, value = scope
    if value is None:
        return None, 0
    return index.group_mask(column, value), index.group_size(column, value)


def _spec(kind: str, scope: Scope, exclude_key: int | None, exclude_id: str | None) -> PoolSpec | None:
    """The pool as a ``PoolSpec`` where one can say it (whole set or a domain slice); None otherwise
    (the store then keeps every missed row instead of deriving them)."""
    if kind == "domain":
        return PoolSpec(scope[1], exclude_key, exclude_id)
    if kind in ("all", "fallback"):
        return PoolSpec(None, exclude_key, exclude_id)
    return None


def _empty(index: PoolIndex) -> tuple[str, np.ndarray, PoolSpec | None]:
    return "none", np.zeros(index.size, dtype=bool), None


def runner_pool(rule: ReplayRule, index: PoolIndex, scope: Scope | None = None) -> tuple[str, np.ndarray, PoolSpec | None]:
    """0.3.1 runner (§5.3): slice if >= 3 (counted WITH the source), then self-exclude."""
    scope = recall_scope(rule, index) if scope is None else scope
    if scope[0] == "empty":
        return _empty(index)
    sliced, size = _slice(scope, index)
    if sliced is not None and size >= SCOPE_MIN:
        kind, base = scope[0], sliced
    else:
        kind, base = ("fallback" if sliced is not None else "all"), None
    mask = _without(base, self_positions(rule, index, by_key=False), index.size)
    if not np.count_nonzero(mask):
        return "fallback", np.ones(index.size, dtype=bool), PoolSpec(None, None, None)
    return kind, mask, _spec(kind, scope, None, rule.source_trajectory_id)


def exclude_first_pool(
    rule: ReplayRule, index: PoolIndex, scope: Scope | None = None,
) -> tuple[str, np.ndarray, PoolSpec | None]:
    """Workbench: drop the source first, then require >= 3 references in the slice."""
    scope = recall_scope(rule, index) if scope is None else scope
    if scope[0] == "empty":
        return _empty(index)
    rest = _without(None, self_positions(rule, index, by_key=True), index.size)
    sliced, _size = _slice(scope, index)
    if sliced is not None:
        kept = sliced & rest
        if int(np.count_nonzero(kept)) >= SCOPE_MIN:
            return scope[0], kept, _spec(scope[0], scope, rule.source_key, rule.source_trajectory_id)
    kind = "fallback" if sliced is not None else "all"
    if not np.count_nonzero(rest):
        return "fallback", np.ones(index.size, dtype=bool), PoolSpec(None, None, None)
    return kind, rest, PoolSpec(None, rule.source_key, rule.source_trajectory_id)


def spec_mask(spec: PoolSpec, index: PoolIndex) -> np.ndarray:
    """The pool a spec describes (what the store's view computes), as a mask."""
    mask = np.ones(index.size, dtype=bool) if spec.domain is None else index.domains == spec.domain
    if spec.exclude_key is not None:
        mask &= index.keys != spec.exclude_key
    if spec.exclude_id is not None:
        mask &= index.ids != spec.exclude_id
    return mask


def rule_pools(
    rule: ReplayRule, index: PoolIndex, profile: ReplayProfile, trigger_gated: bool
) -> RulePools:
    """Recall and precision pools for ``rule`` under ``profile``."""
    scope = recall_scope(rule, index, profile)
    if profile.pool_policy == "runner":
        r_kind, recall, spec = runner_pool(rule, index, scope)
    else:
        r_kind, recall, spec = exclude_first_pool(rule, index, scope)
    if profile.precision_scope == "same_as_recall":
        p_kind, precision = r_kind, recall
    else:
        rest = _without(None, self_positions(rule, index, by_key=True), index.size)
        if not np.count_nonzero(rest):
            rest = np.ones(index.size, dtype=bool)
        p_kind, precision = "all", rest
        narrow: Scope | None = None
        if profile.precision_scope == "domain_if_gated" and trigger_gated and rule.domain is not None:
            narrow = ("domain", rule.domain)
        elif profile.precision_scope == "corpus" and rule.corpus:
            narrow = ("corpus", rule.corpus)
        if narrow is not None:
            sliced = index.group_mask(*narrow) & rest  # type: ignore[arg-type]
            if np.count_nonzero(sliced):
                p_kind, precision = narrow[0], sliced
    recall_info = _info(r_kind, recall, index)
    return RulePools(
        recall=recall,
        precision=precision,
        recall_info=recall_info,
        precision_info=recall_info if precision is recall else _info(p_kind, precision, index),
        recall_spec=spec,
    )
