"""Run replay over the store: load rules and trajectories, replay, save the run.

``core.replay.replay`` is pure; this module is the glue that feeds it from the store and
keeps its results. Rules are replayed in chunks so results can be saved (and shown) as they
finish; the run is marked ``complete`` only after the last chunk.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.checked import EVERY, Check
from core.embeddings import CachedEmbedder, EmbeddingUnavailable, open_embedder
from core.hashing import sha256_text
from core.replay.cancel import Cancelled, checker
from core.replay.engine import replay
from core.replay.profiles import ReplayProfile
from core.replay.save_groups import SaveGroups
from core.replay.types import ReplayRule, ReplayTrajectory, RuleResult
from core.store.corpus_repo import CorpusRepository
from core.store.dto import RuleInfo
from core.store.embedding_repo import EmbeddingCacheRepository
from core.store.engine import Store
from core.store.replay_repo import ReplayRepository
from core.store.rule_repo import NewRule, RuleRepository, RuleText
from core.store.run_coverage import rule_selection
from core.store.side_cache_repo import StoredSides

ProgressCallback = Callable[[int, int], None]
ResultsCallback = Callable[[Sequence[RuleResult]], None]


@dataclass(frozen=True)
class ReplayInputs:
    rules: list[ReplayRule]
    version_by_key: dict[str, int]
    rule_by_key: dict[str, RuleInfo]
    trajectories: list[ReplayTrajectory]


@dataclass(frozen=True)
class ReplayRunSummary:
    run_id: int
    status: str
    profile: str
    model_id: str | None
    semantic_state: str
    pairs: int
    seconds: float
    results: list[RuleResult]
    inputs: ReplayInputs
    semantic_note: str | None = None


def materialise_expected_rules(store: Store) -> int:
    """Make every non-empty ``expected_rule`` a candidate (trigger = directive = sentence).

    That is how the reference's golden rules are written. The origin is the record's file
    and line, so a label edited later becomes a new version of the same rule.
    """
    corpora = CorpusRepository(store)
    rules = RuleRepository(store)
    corpus_ids = corpora.corpus_ids()
    created = 0
    for detail in corpora.get_trajectories():
        sentence = (detail.expected_rule or "").strip()
        if not sentence:
            continue
        _rule_id, state = rules.upsert(
            NewRule(
                origin=f"{detail.file}:{detail.line}", kind="expected_rule",
                text=RuleText(trigger=sentence, directive=sentence), content_hash=sha256_text(sentence),
                corpus_id=corpus_ids.get(detail.corpus), source_trajectory=detail.trajectory_id,
                source_trajectory_pk=detail.id, domain=detail.domain,
            ),
            author="expected_rule",
        )
        created += state == "imported"
    return created


def load_inputs(
    store: Store, rule_ids: Sequence[int] | None = None, include_expected_rules: bool = True,
    check: Check | None = None,
) -> ReplayInputs:
    """``check`` (a cancel) is called every few thousand trajectories and may raise."""
    rule_infos = ReplayRepository(store).rules_for_replay(ids=rule_ids, kinds=_kinds(include_expected_rules))
    trajectories = load_trajectories(store, check)
    corpus_of_pk = {t.key: t.corpus for t in trajectories}
    rules = [replay_rule(info, corpus_of_pk) for info in rule_infos]
    version_by_key = {rule.key: info.latest.id for rule, info in zip(rules, rule_infos, strict=True)}
    rule_by_key = {rule.key: info for rule, info in zip(rules, rule_infos, strict=True)}
    return ReplayInputs(rules, version_by_key, rule_by_key, trajectories)


def _kinds(include_expected_rules: bool) -> list[str] | None:
    return None if include_expected_rules else ["standing", "candidate", "user"]


def replay_rule(info: RuleInfo, corpus_of_pk: Mapping[int, str]) -> ReplayRule:
    """The engine's view of a stored rule's latest version (its source's corpus when the source is loaded)."""
    return ReplayRule(
        key=str(info.latest.id), trigger=info.latest.trigger, context=info.latest.context,
        signature=info.latest.signature, directive=info.latest.directive, source_trajectory_id=info.source_trajectory,
        source_key=info.source_trajectory_pk, domain=info.domain,
        corpus=corpus_of_pk.get(info.source_trajectory_pk or -1, info.corpus), origin=info.origin,
    )


def load_rules(store: Store, include_expected_rules: bool = True,
               corpus_of_pk: Mapping[int, str] | None = None) -> list[ReplayRule]:
    """Every rule as ``load_inputs`` gives it, without reading the trajectories (a what-if's twin pool)."""
    return [replay_rule(info, corpus_of_pk or {})
            for info in ReplayRepository(store).rules_for_replay(ids=None, kinds=_kinds(include_expected_rules))]


def load_trajectories(store: Store, check: Check | None = None) -> list[ReplayTrajectory]:
    """Every trajectory in file order, with one plain query (no ORM objects: at 10^5
    trajectories building them cost more than replaying), read in batches so that ``check``
    (a cancel, which may raise) runs every few thousand records."""
    out: list[ReplayTrajectory] = []
    # A read session: it takes no write lock, so a replay never waits behind an import.
    with store.read_session() as session:
        result = session.connection().exec_driver_sql(
            """SELECT t.id, t.trajectory_id, c.name, t.domain, t.success, t.failure_class, t.record_json,
                      t.content_hash
               FROM trajectory t JOIN corpus c ON c.id = t.corpus_id JOIN source_file f ON f.id = t.file_id
               ORDER BY f.path, t.line"""
        )
        while rows := result.fetchmany(EVERY):
            if check is not None:
                check()
            # The stored content hash is the record's hash (``snapshot.record_hash``): the
            # run's corpus hash is built from it without serialising every record again. The
            # record stays JSON text (1 KB, not a 6 KB dict): the engine parses it once, where
            # it builds the views, on every core (``core.replay.side_slices``).
            out.extend(
                ReplayTrajectory(key=int(r[0]), trajectory_id=r[1], corpus=r[2], domain=r[3], success=bool(r[4]),
                                 failure_class=r[5], record=r[6], record_hash=r[7])
                for r in rows
            )
    return out


def make_embedder(
    store: Store, model_setting: str | None = None, embedder_setting: str | None = None,
) -> tuple[CachedEmbedder | None, str | None]:
    """The store-cached embedder, or (None, why) when no model can be used.

    ``embedder_setting`` (torch | onnx | onnx-int8) overrides ``CAUTERULE_WORKBENCH_EMBEDDER``.
    """
    try:
        model = open_embedder(embedder_setting, None if model_setting is None else Path(model_setting))
        model.load()
    except EmbeddingUnavailable as error:
        return None, str(error)
    return CachedEmbedder(model, EmbeddingCacheRepository(store)), None


def run_replay(
    store: Store,
    profile: ReplayProfile,
    rule_ids: Sequence[int] | None = None,
    include_expected_rules: bool = True,
    embedder: CachedEmbedder | None = None,
    semantic_note: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: Any = None,
    on_results: ResultsCallback | None = None,
    scope: str | None = None,
    texts_progress: ProgressCallback | None = None,
    derive_missed: bool = True,
    on_started: Callable[[int], None] | None = None,
    workers: int | None = None,
) -> ReplayRunSummary:
    """Replay rules from the store against all its trajectories and keep the run.

    The run row is written first (status ``running``); chunks' results are saved as they
    finish, the first at once and then a group at most every ``save_groups.SAVE_INTERVAL_S``
    (``on_results`` is called per group saved), each group in one transaction; the run becomes ``complete`` only at the end, or
    ``cancelled`` — never complete with missing rules. ``progress`` counts pairs scored;
    ``texts_progress`` counts texts embedded (the cold part of a semantic run). The
    summary's results carry buckets and rates but no pair outcomes: those are in the store
    (``ReplayRepository.outcomes``), and holding a whole run's in memory does not scale.
    ``derive_missed=False`` stores every missed row instead of deriving the score-0 ones
    (readers see the same rows either way; the tests compare the two). ``on_started(run_id)``
    is called once the run row exists, before any progress. ``workers``: scoring processes
    (``core.replay.parallel.resolve_workers``; None: the setting or the machine); this process
    stays the one writer.
    """
    # Without the store's idle connection (``Store.keeps_wal_open``), one connection is held
    # for the whole run, so that no chunk's session is the last to close, which would
    # checkpoint the WAL once per chunk.
    with nullcontext() if store.keeps_wal_open else store.engine.connect(), _no_gc_pauses():
        return _run_replay(store, profile, rule_ids, include_expected_rules, embedder, semantic_note, progress,
                           cancel, on_results, scope, texts_progress, derive_missed, on_started, workers)


@contextmanager
def _no_gc_pauses() -> Iterator[None]:
    """The objects that exist before the run frozen for its duration (``gc.freeze``).

    A run allocates many small objects, so the collector runs often, and now and then a
    full collection walks the whole heap: in a process that had just imported a corpus that
    one pause took 0.2-0.5 s, longer than the run. Frozen objects are skipped by every
    collection; the run's own objects are collected as usual. They are unfrozen afterwards
    (back in the oldest generation, as they were), unless the caller froze objects itself.
    Pausing the collector instead (``gc.disable``) only moved the full collection to just
    after the run.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _run_replay(
    store: Store, profile: ReplayProfile, rule_ids: Sequence[int] | None, include_expected_rules: bool,
    embedder: CachedEmbedder | None, semantic_note: str | None, progress: ProgressCallback | None,
    cancel: Any, on_results: ResultsCallback | None, scope: str | None, texts_progress: ProgressCallback | None,
    derive_missed: bool, on_started: Callable[[int], None] | None, workers: int | None,
) -> ReplayRunSummary:
    repo = ReplayRepository(store)
    embed = embedder if profile.semantic else None
    if embed is not None:
        # Cold runs spend most of their time here: report texts embedded, honour cancel.
        embed.progress, embed.cancel = texts_progress, cancel
    model_id = embed.model_id if embed is not None else None
    pending_state = "on" if embed is not None else ("unavailable" if profile.semantic else "off")
    # The run row first: loading 10^5 records takes seconds, and a cancel during it must
    # leave a cancelled run behind, like a cancel at any later point.
    run_id = repo.start_run(profile.name, {"profile": profile.name}, "", "", model_id, pending_state, scope)
    if on_started is not None:  # the run id, before any progress (the window's replay process sends it)
        on_started(run_id)
    try:
        inputs = load_inputs(store, rule_ids, include_expected_rules, checker(cancel))
    except Cancelled:
        repo.finish_run(run_id, "cancelled", 0, 0.0)
        return ReplayRunSummary(
            run_id=run_id, status="cancelled", profile=profile.name, model_id=model_id,
            semantic_state=pending_state, pairs=0, seconds=0.0, results=[],
            inputs=ReplayInputs([], {}, {}, []), semantic_note=semantic_note,
        )
    except BaseException:
        repo.finish_run(run_id, "failed", 0, 0.0)
        raise
    max_pk = max((t.key for t in inputs.trajectories), default=0)

    def save(results: list[RuleResult]) -> None:
        # Highlight spans are not computed here: the viewer explains a pair when it is shown.
        repo.save_results(run_id, results, inputs.version_by_key,
                          max_trajectory_pk=max_pk if derive_missed else None)
        if on_results is not None:
            on_results(results)

    sides = StoredSides(store, inputs.trajectories)  # the trajectory side: read from the store, or kept there
    # Chunks saved a few transactions a second, not one each (``save_groups``); what is
    # pending when a run is cancelled is not saved, as a chunk not yet scored is not.
    groups = SaveGroups(save)
    try:
        # A run of a few rules looks their twins up among every rule a whole run would replay.
        pool = load_rules(store, include_expected_rules) if profile.twin_rules is not None and rule_ids else None
        output = replay(
            inputs.rules, inputs.trajectories, profile, progress=progress, cancel=cancel, embed=embed,
            on_results=groups.add, keep_outcomes=False, side_store=sides, workers=workers, twin_pool=pool,
        )
        if output.status == "complete":
            groups.flush()
    except BaseException:
        # A crashed run must never look complete (or stay "running" forever).
        repo.finish_run(run_id, "failed", 0, 0.0)
        raise
    config = dict(output.config)
    # Outside the config hash (like the semantic note): what this run was asked to cover, so
    # the report can tell a run of every rule from a run of a few (core.store.run_coverage).
    config["rule_selection"] = rule_selection(rule_ids, include_expected_rules)
    if semantic_note:
        config["semantic_note"] = semantic_note
    repo.finish_run(
        run_id, output.status, output.pairs, output.seconds, config=config, config_hash=output.config_hash,
        corpus_hash=str(config.get("corpus_hash", "")), semantic_state=output.semantic_state,
    )
    sides.save_pending()  # after the run is saved, in its own transaction: never delays results
    return ReplayRunSummary(
        run_id=run_id, status=output.status, profile=profile.name, model_id=model_id,
        semantic_state=output.semantic_state, pairs=output.pairs, seconds=output.seconds,
        results=output.results, inputs=inputs, semantic_note=semantic_note,
    )


def pair_spans(
    results: Sequence[RuleResult], inputs: ReplayInputs, profile: ReplayProfile, semantic_on: bool,
    views_cache: dict[int, Any] | None = None,
) -> dict[tuple[str, int], list[tuple[str, int, int, str]]]:
    """Highlight spans for every evidence pair (never for no-effect pairs: there are few).

    Computed with the scalar explanation path of the matcher, which agrees exactly with
    the batch path replay used, and stored with the run so the viewer never re-matches.
    """
    from core.matching.score import explain
    from core.replay import matcher_bridge

    matcher = matcher_bridge.matcher_profile(profile.matcher, semantic=semantic_on)
    rules = {r.key: r for r in inputs.rules}
    records = {t.key: t.record for t in inputs.trajectories}
    views_cache = {} if views_cache is None else views_cache
    spans: dict[tuple[str, int], list[tuple[str, int, int, str]]] = {}
    for result in results:
        rule_text = matcher_bridge.rule_text(rules[result.rule_key])
        for outcome in result.outcomes:
            views = views_cache.get(outcome.trajectory_key)
            if views is None:
                views = matcher_bridge.views_for(records[outcome.trajectory_key], matcher)
                views_cache[outcome.trajectory_key] = views
            parts = explain(rule_text, views, matcher, cosine=outcome.cosine)
            spans[(result.rule_key, outcome.trajectory_key)] = [(s.field, s.start, s.end, s.kind) for s in parts.spans]
    return spans


def result_json(result: RuleResult, inputs: ReplayInputs) -> dict[str, Any]:
    """The CLI's per-rule JSON: ids instead of store keys, pools and intervals spelled out."""
    info = inputs.rule_by_key[result.rule_key]
    ids = {t.key: t.trajectory_id for t in inputs.trajectories}
    return {
        "origin": info.origin,
        "kind": info.kind,
        "rule_id": info.id,
        "version": info.latest.version,
        "trigger": info.latest.trigger,
        "source": info.source_trajectory,
        "domain": info.domain,
        "verdict": result.verdict,
        "reason": result.reason,
        "threshold": result.threshold,
        "prevented": [ids[k] for k in result.prevented],
        "broken": [ids[k] for k in result.broken],
        "near_misses": [ids[k] for k in result.near_miss],
        "missed": [ids[k] for k in result.missed],
        "precision": result.precision,
        "precision_ci": list(result.precision_ci) if result.precision_ci else None,
        "recall": result.recall,
        "recall_ci": list(result.recall_ci) if result.recall_ci else None,
        "recall_pool": json.loads(json.dumps(result.recall_pool.__dict__)),
        "precision_pool": json.loads(json.dumps(result.precision_pool.__dict__)),
        "attribution": result.attribution,
    }
