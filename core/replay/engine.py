"""``replay()``: rules x trajectories -> buckets, pools, rates and verdicts.

Pure (no store, no Qt). Work is done in chunks of rules: one batch matcher call per
chunk scores the chunk against every trajectory as [R, T] arrays; buckets are array ops;
the only Python loops run over rules (building each rule's result) or over the
non-trivial pairs of a rule (its evidence rows). Progress is reported after every
chunk; a cancel token is checked between chunks. A large run scores its chunks in worker
processes, one per core (``core.replay.parallel``); the caller still receives every chunk's
results in order, in this process.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Sequence
from contextlib import closing
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from core.checked import Check
from core.replay import matcher_bridge as mb
from core.replay import parallel, side_slices, view_cache
from core.replay.buckets import bucket_codes
from core.replay.cancel import Cancelled, checker
from core.replay.domains import fallback_conflict, trajectory_fallback_codes, trigger_group
from core.replay.pools import PoolIndex, RulePools, ensure_scope_columns, rule_pools
from core.replay.profiles import WORKBENCH, ReplayProfile
from core.replay.results import chunk_results
from core.replay.snapshot import build_config, config_hash, rules_hash
from core.replay.twins import RunTwins, apply_twins, with_twin_floor
from core.replay.types import (
    ReplayOutput,
    ReplayRule,
    ReplayTrajectory,
    RuleResult,
    SemanticState,
)

ProgressFn = Callable[[int, int], None]
EmbedFn = Callable[[list[str]], np.ndarray]

TARGET_PAIRS_PER_CHUNK = 32_768
FIRST_CHUNK_RULES = 4
# The first chunk holds at least FIRST_CHUNK_RULES rules, more while it stays under this many
# pairs (a few ms of scoring): first results still show within moments, and a small run is
# not cut into chunks whose fixed cost (sparse set-up, one transaction each) outweighs them.
FIRST_CHUNK_PAIRS = 16_384


class CancelToken(Protocol):
    def is_set(self) -> bool: ...


def _chunk_size(n_traj: int) -> int:
    return max(1, min(256, TARGET_PAIRS_PER_CHUNK // max(1, n_traj)))


def withhold_failure_class(trajectories: Sequence[ReplayTrajectory]) -> list[ReplayTrajectory]:
    """The trajectories without ``failure_class``, in the record and beside it (a profile with
    ``read_failure_class=False``): the same keys, ids, domains and outcomes."""
    out = []
    for t in trajectories:
        record = t.record  # parsed once (a record kept as text is parsed at each read)
        out.append(t if t.failure_class is None and "failure_class" not in record else
                   ReplayTrajectory(t.key, t.trajectory_id, t.corpus, t.domain, t.success, None,
                                    {k: v for k, v in record.items() if k != "failure_class"}))
    return out


def chunk_bounds(n_rules: int, n_traj: int) -> list[tuple[int, int]]:
    """The run's chunks of rules, ``(lo, hi)``. The first chunks are small so the first results
    show within moments; then they double up to the ~32k-pair working size. The first is at
    most half the rules, so a run of more than a few rules always shows results before it ends
    (the window refreshes its tables per chunk). The calibration lab scores in the same chunks,
    so its cosines are the very products a replay computes."""
    step = _chunk_size(n_traj)
    size = min(step, max(FIRST_CHUNK_RULES, min(FIRST_CHUNK_PAIRS // max(1, n_traj), n_rules // 2)))
    bounds: list[tuple[int, int]] = []
    lo = 0
    while lo < n_rules:
        hi = min(n_rules, lo + size)
        size = min(step, size * 2)
        bounds.append((lo, hi))
        lo = hi
    return bounds


def replay(
    rules: Sequence[ReplayRule],
    trajectories: Sequence[ReplayTrajectory],
    profile: ReplayProfile = WORKBENCH,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
    embed: EmbedFn | None = None,
    on_results: Callable[[list[RuleResult]], None] | None = None,
    prune: bool | None = None,
    keep_outcomes: bool = True,
    side_store: view_cache.Persisted | None = None,
    workers: int | None = None,
    twin_pool: Sequence[ReplayRule] | None = None,
) -> ReplayOutput:
    """Replay ``rules`` against ``trajectories``.

    ``on_results`` receives each chunk's finished results as soon as they exist, so a
    caller can save and show them while the rest of the run goes on. ``prune=True`` /
    ``False`` forces the word indexes for substring tests on / off (same answers; off is
    the property test's oracle); ``None`` uses them for large trajectory sets. ``keep_outcomes=False`` drops each
    chunk's pair outcomes from the returned results once ``on_results`` has had them
    (a caller that saves them keeps memory bounded by one chunk). ``side_store``: where the
    trajectory side is looked up (after memory) and told of a new one (``view_cache.Persisted``).
    ``workers``: processes that score chunks (``core.replay.parallel``; 1: in this process,
    None: the setting or the machine's cores for a large run); the results are the same.
    ``twin_pool``: the rules a profile's twin rules are looked up in (None: ``rules``; a what-if
    of one rule passes the store's rules, ``core.replay.twins.RunTwins``).
    """
    started = time.perf_counter()
    rules = list(rules)
    trajectories = list(trajectories)
    n_rules, n_traj = len(rules), len(trajectories)
    total_pairs = n_rules * n_traj

    state: SemanticState
    if not profile.semantic:
        state = "off"
    elif embed is None:
        state = "unavailable"
    else:
        state = "on"
    matcher = mb.matcher_profile(profile.matcher, semantic=state == "on")
    model_id = profile.model_id or getattr(embed, "model_id", None)
    check = checker(cancel)  # raises Cancelled inside the loops over every trajectory below
    config: dict[str, Any] = {}
    chash = ""

    def finish(status: str, results: list[RuleResult], pairs: int) -> ReplayOutput:
        return ReplayOutput(
            status=status,  # type: ignore[arg-type]
            profile=profile.name,
            config=config,
            config_hash=chash,
            results=results,
            pairs=pairs,
            seconds=time.perf_counter() - started,
            semantic_state=state,
        )

    if cancel is not None and cancel.is_set():
        return finish("cancelled", [], 0)
    try:
        config = build_config(profile, matcher, state, model_id, rules, trajectories, check)
        if profile.twin_rules is not None and twin_pool is not None:
            config["twin_pool_hash"] = rules_hash(twin_pool)  # the twins' rules decide claims too
        chash = config_hash(config)
        side_key = str(config["corpus_hash"])
        if not profile.read_failure_class:  # the config keeps the real corpus hash; the side is another
            trajectories = withhold_failure_class(trajectories)
            side_key += ":no-failure-class"
        # The per-trajectory part of the side is built on as many processes as will score.
        side_processes = parallel.resolve_workers(workers, total_pairs, n_traj // side_slices.MIN_SLICE)
        # A lexical run too large for the side caches scores from the index alone: its views
        # are built when read (never, in the run), not kept (``side_slices.RecordViews``).
        keep_views = state == "on" or n_traj <= view_cache.MAX_TRAJECTORIES
        views, view_index, index, recovery, fallback_codes = _trajectory_side(
            trajectories, matcher, prune, side_key, check, side_store, side_processes, keep_views)
        ensure_scope_columns(index, trajectories)
        rule_texts = [mb.rule_text(r) for r in rules]
        semantic = None
        if state == "on":
            assert embed is not None
            semantic = mb.SemanticCosines.prepare(rule_texts, views, embed, matcher)
        twins: RunTwins | None = None
        if profile.twin_rules is not None:
            twins = RunTwins(rules, twin_pool, index, profile.twin_rules, embed if state == "on" else None)
        # Success-side lexical evidence, when the run's scores are semantic: the lexical
        # matcher's composition of the same parts, made in the same scoring pass.
        lexical_matcher = None
        if profile.broken_evidence == "lexical" and state == "on":
            lexical_matcher = mb.matcher_profile(profile.matcher, semantic=False)
    except Cancelled:
        return finish("cancelled", [], 0)
    except Exception:
        # A cancellable embedder stops mid-way by raising; that is a cancel, not a failure.
        if cancel is not None and cancel.is_set():
            return finish("cancelled", [], 0)
        raise

    def score_chunk(lo: int, hi: int) -> list[RuleResult]:
        cosine = semantic.block(lo, hi) if semantic is not None else None
        batch = mb.score_block(rule_texts[lo:hi], view_index, matcher, cosine, lexical_matcher)
        evidence = _success_evidence(batch, index.failure, profile)
        return decide_chunk(rules[lo:hi], fallback_codes, batch, evidence, index, recovery, profile,
                            twins.columns(lo, hi) if twins is not None else None)

    bounds = chunk_bounds(n_rules, n_traj)
    starts = semantic.block_starts(bounds) if semantic is not None else None
    units = parallel.units_of(bounds, starts)
    n_workers = parallel.resolve_workers(workers, total_pairs, len(units))
    scored: Generator[tuple[tuple[int, int], list[RuleResult]], None, None]
    if n_workers > 1:
        if semantic is not None:
            semantic.prepare_targets()  # once, before the fork: the workers share it
        scored = parallel.scored_in_order(score_chunk, units, n_workers, cancel,
                                          semantic.forget if semantic is not None else None)
    else:
        scored = parallel.scored_here(score_chunk, bounds, cancel)
    results: list[RuleResult] = []
    done = 0
    with closing(scored):  # an early return stops (and reaps) the scoring workers
        for (lo, hi), finished in scored:
            if cancel is not None and cancel.is_set():  # before saving: at 10^5 a chunk's save is most of it
                return finish("cancelled", [], done)
            if on_results is not None:
                on_results(finished)
            if keep_outcomes:
                results.extend(finished)
            else:
                results.extend(replace(r, outcomes=()) for r in finished)
            done += (hi - lo) * n_traj
            if progress is not None:
                progress(done, total_pairs)
    if cancel is not None and cancel.is_set():
        return finish("cancelled", [], done)
    return finish("complete", results, done)


def _trajectory_side(
    trajectories: list[ReplayTrajectory], matcher: Any, prune: bool | None, corpus: str, check: Check | None,
    persisted: view_cache.Persisted | None = None, processes: int = 1, keep_views: bool = True,
) -> tuple[Sequence[Any], Any, PoolIndex, np.ndarray, np.ndarray]:
    """Views and their index, the pool index, recovered runs, domain-gate codes: all of it
    reused when the very same trajectories come again (the what-if loop, replaying a
    selection), from memory or from ``persisted`` (the store's copy, for a new process)."""
    key = trajectory_side_key(trajectories, matcher.include_input, prune, corpus)
    side = view_cache.cached(
        key, len(trajectories), lambda: build_trajectory_side(trajectories, matcher, prune, check, processes, keep_views),
        persisted)
    if check is not None:
        check()
    return side


def trajectory_side_key(
    trajectories: Sequence[ReplayTrajectory], include_input: bool, prune: bool | None, corpus: str,
) -> tuple[Any, ...]:
    """The side's cache key. The corpus hash covers every record; the pool index and the
    recovery and domain-gate arrays also read the fields a caller passes beside the record
    (store key, id, domain, success, failure class), so those are part of the key as well."""
    fields = None if len(trajectories) > view_cache.MAX_TRAJECTORIES else tuple(
        (t.key, t.trajectory_id, t.domain, t.success, t.failure_class) for t in trajectories)
    return (corpus, include_input, prune, fields)


def build_trajectory_side(
    trajectories: Sequence[ReplayTrajectory], matcher: Any, prune: bool | None, check: Check | None,
    processes: int = 1, keep_views: bool = True,
) -> tuple[Sequence[Any], Any, PoolIndex, np.ndarray, np.ndarray]:
    """``processes``: how many processes build the per-trajectory part (``side_slices``; the
    same side whatever the number). ``keep_views=False``: the views are not kept but built
    from the records when read (``side_slices.RecordViews``; a large lexical run never reads them)."""
    by_fields: list[tuple[PoolIndex, np.ndarray]] = []  # what reads the fields beside the records

    def from_fields() -> None:  # built while the helpers finish their slices
        by_fields.append((PoolIndex.build(trajectories), trajectory_fallback_codes(trajectories)))

    slices = side_slices.build_slices(trajectories, matcher.include_input, mb.prunes(len(trajectories), prune),
                                      check, processes, keep_views, from_fields)
    views: Sequence[Any] = [view for part in slices for view in part.views or ()] if keep_views else \
        side_slices.RecordViews(trajectories, matcher.include_input)
    view_index = mb.index_views(views, prune, check, [part.tokens for part in slices])
    (index, codes), = by_fields
    recovery = np.concatenate([part.recovery for part in slices])
    for shared in (index.keys, index.failure, recovery, codes):  # reused by later runs: read-only
        shared.flags.writeable = False
    return views, view_index, index, recovery, codes


def lexical_evidence(block: mb.Block) -> np.ndarray:
    """The score with the alias-token floor undone (one shared alias token is not evidence)."""
    return lexical_evidence_of(block.score, block.blend, block.floor)


def lexical_evidence_of(score: np.ndarray, blend: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """``lexical_evidence`` on the arrays themselves (a block, or the lab's list of pairs)."""
    return mb.evidence_without_alias_token(score, blend, floor)


def _success_evidence(batch: mb.Block, failure: np.ndarray, profile: ReplayProfile) -> np.ndarray:
    """What the broken line reads: the score, or the lexical evidence on successes (a
    semantic run's is composed in its scoring pass: ``Block.lexical_evidence``)."""
    if profile.broken_evidence == "score":
        return batch.score
    if batch.lexical_evidence is None:  # the run is lexical: its own floors tell
        return lexical_evidence(batch)
    return np.where(failure[None, :], batch.score, batch.lexical_evidence)


def rule_thresholds(chunk: Sequence[ReplayRule], profile: ReplayProfile) -> np.ndarray:
    return np.array([profile.threshold_for(r.corpus) for r in chunk], dtype=np.float64)


def rule_margins(chunk: Sequence[ReplayRule], profile: ReplayProfile) -> float | np.ndarray:
    """The broken margin: one for every rule, or [R] by each rule's source domain."""
    if not profile.domain_margins:
        return profile.margin
    return np.array([profile.margin_for(r.domain) for r in chunk], dtype=np.float64)


def gate_conflict(
    matcher_conflict: np.ndarray, fallback: np.ndarray, failure: np.ndarray, profile: ReplayProfile,
) -> np.ndarray:
    """The cross-domain gate: the matcher's (from failure_class) plus, per profile, the
    ``domain``-field fallback on successes and on failures. ``fallback``/``failure`` broadcast
    against ``matcher_conflict`` ([R, T] with [1, T], or one value per pair)."""
    conflict = matcher_conflict
    if profile.domain_gate_fallback:
        # Successes without failure_class: gate on the record's domain field as well.
        conflict = conflict | (fallback & ~failure)
    if profile.failure_gate_fallback:
        # Failures without failure_class (all of them when the run withholds it): the same gate.
        conflict = conflict | (fallback & failure)
    return conflict


def chunk_pools(chunk: Sequence[ReplayRule], index: PoolIndex, profile: ReplayProfile) -> list[RulePools]:
    return [rule_pools(rule, index, profile, trigger_group(rule.trigger) is not None) for rule in chunk]


def decide_chunk(
    chunk: Sequence[ReplayRule],
    fallback_codes: np.ndarray,
    batch: mb.Block,
    evidence: np.ndarray,
    index: PoolIndex,
    recovery: np.ndarray,
    profile: ReplayProfile,
    twins: Sequence[np.ndarray] | None = None,
) -> list[RuleResult]:
    """``twins``: per rule of the chunk, its twins' source columns (``core.replay.twins``), or None."""
    thresholds = rule_thresholds(chunk, profile)
    margin = rule_margins(chunk, profile)
    conflict = batch.domain_conflict
    if profile.domain_gate_fallback or profile.failure_gate_fallback:
        conflict = gate_conflict(conflict, fallback_conflict(chunk, fallback_codes), index.failure[None, :], profile)
    codes = bucket_codes(
        score=batch.score,
        threshold=thresholds,
        prefilter_ok=batch.prefilter_ok,
        context_matched=batch.context_matched,
        context_total=batch.context_total,
        domain_conflict=conflict,
        failure=index.failure,
        recovery=recovery,
        margin=margin if np.ndim(margin) == 0 else np.asarray(margin)[:, None],
        broken_evidence=evidence,
    )
    if twins is not None:
        batch = with_twin_floor(batch, apply_twins(codes, conflict, twins))
    return chunk_results(chunk, codes, thresholds, chunk_pools(chunk, index, profile), batch, index, profile)
