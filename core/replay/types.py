"""Inputs and outputs of a replay run (plain frozen data, no store, no Qt)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

Bucket = Literal["prevented", "broken", "near_miss", "missed", "no_effect"]
Verdict = Literal["pass", "fail", "inconclusive"]
RunStatus = Literal["complete", "cancelled"]
SemanticState = Literal["on", "off", "unavailable"]


@dataclass(frozen=True)
class ReplayRule:
    """A rule (candidate or standing) to replay.

    ``source_trajectory_id`` / ``source_key`` identify the trajectory it was extracted
    from (self-exclusion); ``domain`` is that trajectory's ``domain`` (pool scoping) and
    ``corpus`` its corpus path (per-corpus threshold).
    """

    key: str
    trigger: str
    context: tuple[str, ...] = ()
    signature: str | None = None
    directive: str = ""
    source_trajectory_id: str | None = None
    source_key: int | None = None
    domain: str | None = None
    corpus: str | None = None
    origin: str = "candidate"


@dataclass(frozen=True, init=False)
class ReplayTrajectory:
    """One reference trajectory; ``record`` is the original JSON object.

    ``record`` may be given as the object or as its JSON text (what the store keeps): text is
    parsed each time ``record`` is read and never kept parsed, so a run over 10^6 trajectories
    holds about 1 KB of text per record instead of a 6 KB dict. The engine reads each record
    once (building the views); callers that read a record repeatedly should keep the dict.
    ``record_hash``: ``sha256(canonical_json(record))`` when the caller already has it (the
    store keeps it per row as ``content_hash``); None computes it from ``record`` when needed.
    """

    key: int
    trajectory_id: str
    corpus: str
    domain: str | None
    success: bool
    failure_class: str | None
    _record: dict[str, Any] | str = field(repr=False, compare=False, hash=False)
    record_hash: str | None = field(default=None, repr=False, compare=False, hash=False)

    def __init__(
        self, key: int, trajectory_id: str, corpus: str, domain: str | None, success: bool,
        failure_class: str | None, record: dict[str, Any] | str | None = None, record_hash: str | None = None,
        _record: dict[str, Any] | str | None = None,
    ) -> None:
        # ``_record`` is what ``dataclasses.replace`` passes on; a ``record`` given beside it wins.
        chosen = record if record is not None else _record
        if chosen is None:
            raise TypeError("ReplayTrajectory needs its record (a dict or its JSON text)")
        # Filled without the frozen ``__setattr__`` (a run over the store makes 10^5-10^6 of them).
        self.__dict__.update(key=key, trajectory_id=trajectory_id, corpus=corpus, domain=domain, success=success,
                             failure_class=failure_class, _record=chosen, record_hash=record_hash)

    @property
    def record(self) -> dict[str, Any]:
        kept = self._record
        if isinstance(kept, str):
            parsed: dict[str, Any] = json.loads(kept)
            return parsed
        return kept

    @property
    def record_is_text(self) -> bool:
        """True when the record is kept as JSON text (each read of ``record`` parses it)."""
        return isinstance(self._record, str)


@dataclass(frozen=True)
class PoolInfo:
    """Which trajectories a rate was computed on.

    ``kind``: ``domain`` (the source-domain slice), ``all`` (the whole trajectory set),
    ``fallback`` (slice too small or empty, whole set used). ``scoped`` is True for a
    domain slice.
    """

    kind: str
    size: int
    failures: int
    scoped: bool


@dataclass(frozen=True)
class PoolSpec:
    """The recall pool as a rule over the run's trajectories (what the store keeps to
    derive ``missed`` rows): the same-domain slice (``domain``) or every trajectory
    (None), minus the source by key and / or by trajectory id (None: not excluded)."""

    domain: str | None
    exclude_key: int | None
    exclude_id: str | None


class PairOutcome(NamedTuple):
    """One evidence pair. A named tuple, not a dataclass: a large run builds millions."""

    trajectory_key: int
    bucket: Bucket
    score: float
    token_f1: float
    bigram: float
    cosine: float | None
    view: str | None
    floor: str | None
    threshold: float
    margin: float  # score - threshold


@dataclass(frozen=True)
class RuleResult:
    rule_key: str
    verdict: Verdict
    reason: str  # pass | no_signal | blocked_by_broken | blocked_by_near_miss | min_sample: ...
    threshold: float
    prevented: tuple[int, ...]
    broken: tuple[int, ...]
    near_miss: tuple[int, ...]
    missed: tuple[int, ...]
    precision: float | None
    precision_ci: tuple[float, float] | None
    recall: float | None
    recall_ci: tuple[float, float] | None
    recall_pool: PoolInfo
    precision_pool: PoolInfo
    outcomes: Sequence[PairOutcome]  # a tuple, or the engine's OutcomeColumns (same rows)
    attribution: str | None
    computed_verdict: Verdict = "inconclusive"
    prefilter: str | None = None  # why the trigger never matches (empty/degenerate/...)
    recall_spec: PoolSpec | None = None  # the recall pool as a rule (None: not known)


@dataclass(frozen=True)
class ReplayOutput:
    status: RunStatus
    profile: str
    config: dict[str, Any]
    config_hash: str
    results: list[RuleResult]
    pairs: int
    seconds: float
    semantic_state: SemanticState
