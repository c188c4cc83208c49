"""What-if drafts: replay a rule's *unsaved* text and say what would change, writing nothing.

A reviewer tries a trigger / directive in the what-if dialog (or ``whatif`` on the CLI); the
draft is replayed alone with the same engine (``core.replay.engine.replay``), the same
inputs (``core.replaying.load_inputs``: the rule's source, domain and corpus, every trajectory)
and the profile the caller names, exactly as the rule would be once saved. Nothing is written:
no rule version, no run, no result, no vector-cache row, no stored trajectory side (those are
read when present, never added). So the metrics, the report and every gate see the store as
it was. Only ``save_whatif_edit`` (Apply) writes, and the replay that follows it is an
ordinary run.

The draft's buckets are compared with a stored result (the one the reviewer was looking at):
``DraftReplay.moves`` lists every trajectory whose bucket changes. ``DraftSummary`` is the
plain-JSON form the window's replay process sends back (``core.replay.messages.DraftReplayed``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from core.decisions.whatif import WhatIfRefused
from core.embeddings import VectorCache
from core.replay.engine import replay
from core.replay.profiles import ReplayProfile
from core.replay.types import RuleResult
from core.replaying import load_inputs, load_rules
from core.store.engine import Store
from core.store.outcome_reads import bucket_of, result_block, trajectory_meta
from core.store.replay_repo import ReplayRepository
from core.store.result_repo import ResultRepository
from core.store.side_cache_repo import StoredSides
from core.store.workspace_query import BucketMove

BUCKETS = ("prevented", "broken", "near_miss", "missed")


class ReadOnlyVectorCache:
    """A vector cache that reads the store's rows and never adds one: a draft's new texts
    (its trigger) are embedded in memory only, so the draft leaves the store as it was."""

    def __init__(self, cache: VectorCache) -> None:
        self._cache = cache

    def get_many(self, model_id: str, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        return self._cache.get_many(model_id, text_hashes)

    def put_many(self, model_id: str, vectors: dict[str, np.ndarray]) -> None:
        return None  # a draft writes nothing


@dataclass(frozen=True)
class DraftSummary:
    """What the dialog and the CLI show: the draft's verdict and counts beside the stored
    result's, and every trajectory that changes bucket. Plain data (crosses the process pipe)."""

    rule_id: int
    base_version: int  # the rule's latest version, which the draft would follow
    trigger: str
    directive: str
    profile: str
    semantic_state: str  # on | off | unavailable
    verdict: str
    reason: str
    counts: dict[str, int]
    precision: float | None
    recall: float | None
    before_result_id: int | None
    before_verdict: str | None
    before_reason: str | None
    before_version: int | None
    before_counts: dict[str, int] | None
    moves: tuple[BucketMove, ...]
    # The compared result's run, in words ("run #3, workbench, semantic off"): a draft replayed
    # with another profile or semantic setting moves trajectories for that reason too.
    before_run: str | None = None

    def to_json(self) -> str:
        body = {name: getattr(self, name) for name in self.__dataclass_fields__}
        body["moves"] = [[m.trajectory_pk, m.trajectory_id, m.corpus, m.before, m.after] for m in self.moves]
        return json.dumps(body, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> DraftSummary:
        """The summary sent as ``text``; ``ValueError`` naming the field when it is not one."""
        try:
            body = json.loads(text)
            moves = tuple(BucketMove(int(pk), str(tid), str(corpus), str(before), str(after))
                          for pk, tid, corpus, before, after in body.pop("moves"))
            return cls(**body, moves=moves)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            raise ValueError(f"a what-if draft summary could not be read: {error}") from None


@dataclass(frozen=True)
class DraftReplay:
    """The draft's full result (the shape replay gives: verdict, buckets, per-pair outcomes)
    and its moves against the stored result it is compared with."""

    rule_id: int
    base_version: int
    trigger: str
    directive: str
    profile: str
    semantic_state: str
    result: RuleResult
    before_result_id: int | None
    moves: tuple[BucketMove, ...]

    def summary(self, store: Store) -> DraftSummary:
        before = _stored_before(store, self.before_result_id)
        r = self.result
        counts = {"prevented": len(r.prevented), "broken": len(r.broken), "near_miss": len(r.near_miss),
                  "missed": len(r.missed)}
        return DraftSummary(
            rule_id=self.rule_id, base_version=self.base_version, trigger=self.trigger, directive=self.directive,
            profile=self.profile, semantic_state=self.semantic_state, verdict=r.verdict, reason=r.reason,
            counts=counts, precision=r.precision, recall=r.recall, before_result_id=self.before_result_id,
            before_verdict=before[0], before_reason=before[1], before_version=before[2], before_counts=before[3],
            moves=self.moves, before_run=before[4],
        )


def replay_draft(
    store: Store, rule_id: int, trigger: str, directive: str, profile: ReplayProfile, *,
    embed: Callable[[list[str]], np.ndarray] | None = None, before_result_id: int | None = None,
    progress: Callable[[int, int], None] | None = None, cancel: Any = None,
) -> DraftReplay:
    """Replay ``rule_id`` as if its latest version said ``trigger`` / ``directive``; write nothing.

    ``embed`` is used when ``profile.semantic`` (give it a read-only cache: ``ReadOnlyVectorCache``);
    without one a semantic profile replays as ``unavailable``, as a run would. ``before_result_id``:
    the stored result to compare with (the moves); None lists no moves. A cancel (``cancel.is_set()``)
    raises ``core.replay.cancel.Cancelled`` or ends in a ``WhatIfRefused`` saying so.
    """
    trigger, directive = trigger.strip(), directive.strip()
    if not trigger:
        raise WhatIfRefused("the trigger is empty: a rule needs a 'when'")
    if not directive:
        raise WhatIfRefused("the directive is empty: a rule needs a 'do'")
    inputs = load_inputs(store, [rule_id], include_expected_rules=True)
    if not inputs.rules:
        raise WhatIfRefused(f"rule {rule_id} does not exist in this store")
    saved = inputs.rules[0]
    draft = replace(saved, trigger=trigger, directive=directive)
    info = inputs.rule_by_key[saved.key]
    # The stored trajectory side is read when present; a side built here stays in memory
    # (``StoredSides.save_pending`` is never called), so the draft adds no row.
    # A profile with twin rules looks the draft's twins up among the store's rules, as its run did.
    pool = load_rules(store) if profile.twin_rules is not None else None
    output = replay([draft], inputs.trajectories, profile, progress=progress, cancel=cancel,
                    embed=embed if profile.semantic else None, side_store=StoredSides(store, inputs.trajectories),
                    twin_pool=pool)
    if output.status != "complete" or not output.results:
        raise WhatIfRefused("the draft replay was cancelled; nothing was compared")
    result = output.results[0]
    moves = draft_moves(store, before_result_id, result) if before_result_id is not None else ()
    return DraftReplay(rule_id=rule_id, base_version=info.latest.version, trigger=trigger, directive=directive,
                       profile=profile.name, semantic_state=output.semantic_state, result=result,
                       before_result_id=before_result_id, moves=tuple(moves))


def draft_buckets(result: RuleResult) -> dict[int, str]:
    """Trajectory key -> bucket for every pair that is not ``no_effect``."""
    return {int(pk): bucket for bucket in BUCKETS for pk in getattr(result, bucket)}


def draft_moves(store: Store, before_result_id: int, result: RuleResult) -> list[BucketMove]:
    """Trajectories whose bucket differs between a stored result and a draft (absent = no effect),
    in the order ``ResultRepository.bucket_moves`` lists them (trajectory id, then key)."""
    after = draft_buckets(result)
    with store.read_session() as session:
        before = bucket_of(result_block(session, before_result_id))
        moved = [pk for pk in before.keys() | after.keys() if before.get(pk, "no_effect") != after.get(pk, "no_effect")]
        meta = trajectory_meta(session, moved)
    rows = sorted(((pk, meta[pk].trajectory_id, meta[pk].corpus) for pk in moved if pk in meta),
                  key=lambda r: (r[1], r[0]))
    return [BucketMove(int(pk), str(tid), str(corpus), before.get(pk, "no_effect"), after.get(pk, "no_effect"))
            for pk, tid, corpus in rows]


def _stored_before(store: Store, result_id: int | None) -> tuple[str | None, str | None, int | None,
                                                                   dict[str, int] | None, str | None]:
    stored = None if result_id is None else ResultRepository(store).result(result_id)
    if stored is None:
        return None, None, None, None, None
    counts = {"prevented": stored.prevented_n, "broken": stored.broken_n, "near_miss": stored.near_miss_n,
              "missed": stored.missed_n}
    run = ReplayRepository(store).get_run(stored.run_id)
    run_words = None if run is None else f"run #{run.id}, {run.profile}, semantic {run.semantic_state}"
    return stored.verdict, stored.reason, stored.version, counts, run_words
