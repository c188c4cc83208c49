"""The ruler's data: floors, canaries, mutation drops, flags, one ``RulerReport`` per metric.

Also the display rule of the whole product: a metric is shown only as a
:class:`MetricWithFloor`. Building one without a :class:`Floor` (or with an unmeasured
floor beside a measured value) raises :class:`MissingFloorError`, so "a metric with no
floor cannot be displayed" is a property of the type, not a convention.

Thresholds (docs/ruler.md explains them):

* ``BLIND_BELOW = 0.5`` -- a harmful mutation must remove at least half of the drop it
  could cause (the share of mutated rows that passed before); less is "blind to X".
  Seed 004 asserts 15 of an expected 20 points; a blind comparator moves by ~0, so the
  verdict is not delicate.
* ``OVER_SENSITIVE_ABOVE = 0.25`` -- a benign mutation may flip at most a quarter of the
  mutated rows that passed; more is "over-sensitive to Y".
* ``INJECTED_RATE = 0.3`` -- mutations are applied to k = round(0.3 n) rows (at least 1).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

BLIND_BELOW = 0.5
OVER_SENSITIVE_ABOVE = 0.25
INJECTED_RATE = 0.3
DEFAULT_SEED = 20260913

HARMFUL = "harmful"
BENIGN = "benign"
MUST_FAIL = "must_fail"
MUST_HOLD = "must_hold"


class MissingFloorError(ValueError):
    """A metric was about to be displayed without its floor on shuffled pairs."""


def _r(value: float | None) -> float | None:
    return None if value is None else round(float(value), 4)


@dataclass(frozen=True)
class Floor:
    """The metric's value on deliberately mismatched (seeded, shuffled) pairs."""

    value: float | None
    method: str
    n: int
    seed: int
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"value": _r(self.value), "method": self.method, "n": self.n, "seed": self.seed, "note": self.note}


@dataclass(frozen=True)
class MetricWithFloor:
    """The only way a number reaches the report or the dashboard."""

    key: str
    label: str
    value: float | None
    floor: Floor
    n: int = 0
    k: int | None = None
    ci: tuple[float, float] | None = None
    denominator: str | None = None
    group: str | None = None  # e.g. the corpus

    def __post_init__(self) -> None:
        if not isinstance(self.floor, Floor):
            raise MissingFloorError(f"metric {self.key!r} has no floor: it cannot be displayed")
        if self.value is not None and self.floor.value is None:
            raise MissingFloorError(
                f"metric {self.key!r} is measured ({self.value}) but its floor is not: it cannot be displayed"
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key, "label": self.label, "group": self.group, "value": _r(self.value), "k": self.k,
            "n": self.n, "ci_low": None if self.ci is None else _r(self.ci[0]),
            "ci_high": None if self.ci is None else _r(self.ci[1]), "denominator": self.denominator,
            "floor": self.floor.to_dict(),
        }


def displayed(key: str, label: str, value: float | None, floor: Floor | None, **extra: Any) -> MetricWithFloor:
    """Build a displayable metric; raises MissingFloorError when ``floor`` is None."""
    if floor is None:
        raise MissingFloorError(f"metric {key!r} has no floor: it cannot be displayed")
    return MetricWithFloor(key, label, value, floor, **extra)


@dataclass(frozen=True)
class CanaryResult:
    name: str
    kind: str  # must_fail | must_hold
    source: str  # "store" (built by mutation from the store's data) | "hand" (canaries.json)
    expected: str  # "fail" | "pass"
    got: str  # "fail" | "pass"
    score: float | None
    passed: bool
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["score"] = _r(self.score)
        return d


@dataclass(frozen=True)
class MutationDrop:
    """One mutation applied to ``k`` of ``n`` rows, and what the metric did."""

    mutation: str
    kind: str  # harmful | benign
    description: str
    n: int
    k: int
    applicable: int
    injected_rate: float  # k / n
    pass_before: float | None
    pass_after: float | None
    observed_drop: float | None  # pass_before - pass_after
    expected_drop: float | None  # harmful: share of rows that were mutated AND passed before
    sensitivity: float | None  # observed / expected
    value_before: float | None
    value_after: float | None

    @property
    def value_drop(self) -> float | None:
        if self.value_before is None or self.value_after is None:
            return None
        return self.value_before - self.value_after

    def to_dict(self) -> dict[str, Any]:
        return {
            "mutation": self.mutation, "kind": self.kind, "description": self.description, "n": self.n, "k": self.k,
            "applicable": self.applicable, "injected_rate": _r(self.injected_rate), "pass_before": _r(self.pass_before),
            "pass_after": _r(self.pass_after), "observed_drop": _r(self.observed_drop),
            "expected_drop": _r(self.expected_drop), "sensitivity": _r(self.sensitivity),
            "value_before": _r(self.value_before), "value_after": _r(self.value_after), "value_drop": _r(self.value_drop),
        }


@dataclass(frozen=True)
class Flag:
    kind: str  # "blind" | "over_sensitive"
    mutation: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RulerReport:
    """Everything the ruler learned about one metric on this store."""

    metric: str
    label: str
    description: str
    threshold: float | None
    value: float | None  # the metric on the ruler's own (correct) rows
    floor: Floor
    n_rows: int
    canaries: tuple[CanaryResult, ...]
    mutations: tuple[MutationDrop, ...]
    flags: tuple[Flag, ...]
    notes: tuple[str, ...] = ()
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def flagged(self) -> bool:
        return bool(self.flags)

    @property
    def canaries_passed(self) -> int:
        return sum(1 for c in self.canaries if c.passed)

    @property
    def canary_failures(self) -> tuple[CanaryResult, ...]:
        return tuple(c for c in self.canaries if not c.passed)

    def as_metric(self) -> MetricWithFloor:
        return MetricWithFloor(f"ruler.{self.metric}", self.label, self.value, self.floor, n=self.n_rows,
                               denominator="ruler rows (correct pairs built from the store)")

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric, "label": self.label, "description": self.description, "threshold": self.threshold,
            "value": _r(self.value), "floor": self.floor.to_dict(), "n_rows": self.n_rows,
            "canaries": {"passed": self.canaries_passed, "total": len(self.canaries),
                         "results": [c.to_dict() for c in self.canaries]},
            "mutations": [m.to_dict() for m in self.mutations], "flags": [f.to_dict() for f in self.flags],
            "flagged": self.flagged, "notes": list(self.notes), "config": self.config,
        }


@dataclass(frozen=True)
class RulerSuite:
    """The ruler over every metric the product reports, for one store."""

    reports: tuple[RulerReport, ...]
    seed: int
    semantic: str  # "on" | "off" | "unavailable: <why>"
    model_id: str | None
    corpus_hash: str | None
    run_id: int | None
    thresholds: dict[str, float] = field(
        default_factory=lambda: {"blind_below": BLIND_BELOW, "over_sensitive_above": OVER_SENSITIVE_ABOVE,
                                 "injected_rate": INJECTED_RATE}
    )

    @property
    def flagged(self) -> tuple[RulerReport, ...]:
        return tuple(r for r in self.reports if r.flagged)

    def report(self, metric: str) -> RulerReport:
        return next(r for r in self.reports if r.metric == metric)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed, "semantic": self.semantic, "model": self.model_id, "corpus_hash": self.corpus_hash,
            "run_id": self.run_id, "thresholds": self.thresholds,
            "flagged": [r.metric for r in self.flagged], "metrics": [r.to_dict() for r in self.reports],
        }
