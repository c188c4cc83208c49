"""Reference pools per rule: which trajectories each rate is computed on.

Pools are boolean masks over the run's trajectory list, built with array ops from a
per-run index (a Python loop over rules is fine, never over rule x trajectory).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from core.replay.profiles import ReplayProfile
from core.replay.types import PoolInfo, PoolSpec, ReplayRule, ReplayTrajectory

SCOPE_MIN = 3  # the runner's "at least 3 same-domain references" (#708)


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


@dataclass(frozen=True)
class RulePools:
    recall: np.ndarray  # [T] bool
    precision: np.ndarray  # [T] bool
    recall_info: PoolInfo
    precision_info: PoolInfo
    recall_spec: PoolSpec = PoolSpec(None, None, None)

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
        scoped=kind == "domain",
    )


def _self_positions(rule: ReplayRule, index: PoolIndex, by_key: bool) -> list[int]:
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


def _domain_mask(rule: ReplayRule, index: PoolIndex) -> np.ndarray | None:
    if rule.domain is None:
        return None
    return index.domain_mask(rule.domain)


def runner_pool(rule: ReplayRule, index: PoolIndex) -> tuple[str, np.ndarray, PoolSpec]:
    """0.3.1 runner (§5.3): slice if >= 3 (counted WITH the source), then self-exclude."""
    dom = _domain_mask(rule, index)
    if dom is not None and rule.domain is not None and index.domain_size(rule.domain) >= SCOPE_MIN:
        kind, base, domain = "domain", dom, rule.domain
    else:
        kind, base, domain = ("fallback" if dom is not None else "all"), None, None
    mask = _without(base, _self_positions(rule, index, by_key=False), index.size)
    if not np.count_nonzero(mask):
        return "fallback", np.ones(index.size, dtype=bool), PoolSpec(None, None, None)
    return kind, mask, PoolSpec(domain, None, rule.source_trajectory_id)


def exclude_first_pool(rule: ReplayRule, index: PoolIndex) -> tuple[str, np.ndarray, PoolSpec]:
    """Workbench: drop the source first, then require >= 3 same-domain references."""
    rest = _without(None, _self_positions(rule, index, by_key=True), index.size)
    spec = PoolSpec(None, rule.source_key, rule.source_trajectory_id)
    dom = _domain_mask(rule, index)
    if dom is not None:
        sliced = dom & rest
        if int(np.count_nonzero(sliced)) >= SCOPE_MIN:
            return "domain", sliced, PoolSpec(rule.domain, spec.exclude_key, spec.exclude_id)
    kind = "fallback" if dom is not None else "all"
    if not np.count_nonzero(rest):
        return "fallback", np.ones(index.size, dtype=bool), PoolSpec(None, None, None)
    return kind, rest, spec


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
    if profile.pool_policy == "runner":
        r_kind, recall, spec = runner_pool(rule, index)
    else:
        r_kind, recall, spec = exclude_first_pool(rule, index)
    if profile.precision_scope == "same_as_recall":
        p_kind, precision = r_kind, recall
    else:
        rest = _without(None, _self_positions(rule, index, by_key=True), index.size)
        if not np.count_nonzero(rest):
            rest = np.ones(index.size, dtype=bool)
        p_kind, precision = "all", rest
        dom = _domain_mask(rule, index)
        if profile.precision_scope == "domain_if_gated" and trigger_gated and dom is not None:
            sliced = dom & rest
            if np.count_nonzero(sliced):
                p_kind, precision = "domain", sliced
    recall_info = _info(r_kind, recall, index)
    return RulePools(
        recall=recall,
        precision=precision,
        recall_info=recall_info,
        precision_info=recall_info if precision is recall else _info(p_kind, precision, index),
        recall_spec=spec,
    )
