"""The ruler over every metric the product reports, for one store.

``check_ruler(store, ...)`` (or ``check_rows(...)`` on plain data) returns a
:class:`RulerSuite`: one :class:`RulerReport` per metric -- the replay match decision,
token_f1, semantic_f1, directive_f1, extraction agreement, and human-vs-replay agreement
and kappa -- each with its floor, canaries, mutation drops and flags.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from core.matching.profile import MatcherProfile
from core.metrics.ruler import comparators as C
from core.metrics.ruler import mutations as M
from core.metrics.ruler.harness import (
    Canary,
    Comparator,
    Mutation,
    MutationContext,
    PairCanary,
    Row,
    SetCanary,
    Verdict,
    check,
    with_pred,
)
from core.metrics.ruler.model import BENIGN, DEFAULT_SEED, HARMFUL, MUST_FAIL, MUST_HOLD, RulerReport, RulerSuite
from core.metrics.ruler.store_rows import AgreementRows, StoreRows, agreement_rows, build_rows, hand_canaries

STORE_CANARIES_PER_MUTATION = 3


def _short(value: Any, limit: int = 70) -> str:
    if isinstance(value, dict):
        return str(value.get("trajectory_id") or "record")
    if isinstance(value, tuple):
        value = value[0]
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def store_canaries(comparator: Comparator, rows: Sequence[Row], mutations: Sequence[Mutation],
                   seed: int, per: int = STORE_CANARIES_PER_MUTATION) -> list[Canary]:
    """Concrete pairs built from the store's rows by mutation: harmful -> must fail; benign
    changes in the comparator's contract -> must hold. Only rows the comparator accepts
    unmutated are used, so the verdict is the mutation's doing."""
    contract = comparator.contract
    accepted = {i for i, (_s, ok) in enumerate(comparator.evaluate_many([(r.pred, r.ref) for r in rows])) if ok}
    out: list[Canary] = []
    for mutation in mutations:
        if mutation.kind == BENIGN and mutation.name not in contract:
            continue
        rng = random.Random(f"{seed}:canary:{mutation.name}")
        ctx = MutationContext(rows, rng)
        order = list(range(len(rows)))
        rng.shuffle(order)
        seen: set[Any] = set()
        for i in order:
            row = rows[i]
            if i not in accepted or row.meta.get("klass") in seen:
                continue
            mutated = mutation.apply(row, ctx)
            if mutated is None:
                continue
            seen.add(row.meta.get("klass"))
            kind = MUST_FAIL if mutation.kind == HARMFUL else MUST_HOLD
            out.append(PairCanary(
                f"{mutation.name} ({row.meta.get('id', i)})", kind, "store", mutated.pred, mutated.ref,
                f"{_short(mutated.pred)} vs {_short(mutated.ref)}",
            ))
            if len(seen) >= per:
                break
    return out


def hand_pair_canaries(section: str, contract: frozenset[str]) -> list[Canary]:
    out: list[Canary] = []
    for c in hand_canaries()[section]:
        if c["kind"] == MUST_HOLD and c.get("requires") and c["requires"] not in contract:
            continue
        if section == "matcher":
            out.append(PairCanary(c["name"], c["kind"], "hand", (c["trigger"], 0.6), c["record"],
                                  f"{_short(c['trigger'])} vs {c['record']['trajectory_id']}"))
        else:
            out.append(PairCanary(c["name"], c["kind"], "hand", c["pred"], c["ref"],
                                  f"{_short(c['pred'])} vs {_short(c['ref'])}"))
    return out


# -- human-vs-replay ------------------------------------------------------------------------
def _flip(kinds: dict[str, tuple[str, ...]]) -> Mutation:
    def apply(row: Row, ctx: MutationContext) -> Row | None:
        answers = kinds.get(row.meta.get("kind", ""), ())
        others = [a for a in answers if a != row.pred]
        return with_pred(row, ctx.rng.choice(others)) if others else None

    return Mutation("flip_answer", HARMFUL, "the human's answer replaced by a different answer", apply)


def _constant(rows: Sequence[Row]) -> Mutation:
    common = Counter(r.pred for r in rows).most_common(1)[0][0] if rows else None

    def apply(row: Row, ctx: MutationContext) -> Row | None:
        return None if common is None or row.pred == common else with_pred(row, common)

    return Mutation("constant_answer", HARMFUL, f"the human answers {common!r} whatever the item", apply)


def agreement_canaries(rows: Sequence[Row], seed: int) -> list[Canary]:
    replay = [r.ref for r in rows]
    human = [r.pred for r in rows]
    common = Counter(replay).most_common(1)[0][0] if rows else None

    def metric_on(comparator: Comparator, pairs: list[tuple[Any, Any]]) -> Verdict:
        value = comparator.value(pairs, comparator.evaluate_many(pairs))
        threshold = comparator.threshold if comparator.threshold is not None else 0.5
        return (value if value is not None else float("nan"), value is not None and value >= threshold)

    def constant(comparator: Comparator) -> Verdict:
        return metric_on(comparator, [(common, r) for r in replay])

    def shuffled(comparator: Comparator) -> Verdict:
        perm = human[:]
        random.Random(seed).shuffle(perm)
        return metric_on(comparator, list(zip(perm, replay)))

    def perfect(comparator: Comparator) -> Verdict:
        return metric_on(comparator, [(r, r) for r in replay])

    def invariant(transform: Callable[[list[tuple[Any, Any]]], list[tuple[Any, Any]]]) -> Callable[[Comparator], Verdict]:
        def run(comparator: Comparator) -> Verdict:
            pairs = list(zip(human, replay))
            a = comparator.value(pairs, comparator.evaluate_many(pairs))
            moved = transform(pairs)
            b = comparator.value(moved, comparator.evaluate_many(moved))
            same = (a is None and b is None) or (a is not None and b is not None and abs(a - b) < 1e-9)
            return (0.0 if a is None or b is None else abs(a - b), same)

        return run

    def reorder(pairs: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        out = pairs[:]
        random.Random(seed + 1).shuffle(out)
        return out

    def rename(pairs: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        return [(f"cat:{h}", f"cat:{r}") for h, r in pairs]

    return [
        SetCanary("constant rater", MUST_FAIL, "store", constant,
                  f"the human always answers {common!r}: must not pass"),
        SetCanary("shuffled rater", MUST_FAIL, "store", shuffled, "human answers permuted across items: must not pass"),
        SetCanary("perfect rater", MUST_HOLD, "store", perfect, "the human gives replay's answer: must pass"),
        SetCanary("item order", MUST_HOLD, "store", invariant(reorder), "items listed in another order: unchanged"),
        SetCanary("category names", MUST_HOLD, "store", invariant(rename), "answers renamed consistently: unchanged"),
    ]


# -- the suite ------------------------------------------------------------------------------
def check_rows(
    rows: StoreRows, agreement: AgreementRows, *, matcher: MatcherProfile, embed: Any = None,
    seed: int = DEFAULT_SEED, semantic: str = "off", model_id: str | None = None,
    corpus_hash: str | None = None, run_id: int | None = None,
) -> RulerSuite:
    embed = C.memo(embed)
    reports: list[RulerReport] = []
    trig_muts = M.trigger_mutations(rows.trigger_paraphrase)
    dir_muts = M.directive_mutations(rows.directive_paraphrase)
    match_muts = M.matcher_mutations(rows.record_paraphrase)

    matcher_cmp = C.matcher_comparator(matcher, embed)
    reports.append(check(
        matcher_cmp, rows.matcher, match_muts,
        hand_pair_canaries("matcher", matcher_cmp.contract)
        + store_canaries(matcher_cmp, rows.matcher, match_muts, seed), seed,
        notes=rows.notes if not rows.matcher else (),
    ))
    for comparator in (C.token_f1_comparator(), C.semantic_f1_comparator(embed), C.agreement_comparator(embed)):
        reports.append(check(
            comparator, rows.triggers, trig_muts,
            hand_pair_canaries("trigger", comparator.contract)
            + store_canaries(comparator, rows.triggers, trig_muts, seed), seed,
        ))
    directive_cmp = C.directive_f1_comparator()
    reports.append(check(
        directive_cmp, rows.directives, dir_muts,
        hand_pair_canaries("directive", directive_cmp.contract)
        + store_canaries(directive_cmp, rows.directives, dir_muts, seed), seed,
    ))
    a_muts = [_flip(agreement.kinds), _constant(agreement.rows)]
    a_canaries = agreement_canaries(agreement.rows, seed) if agreement.rows else []
    note = (f"rows: {agreement.source}",)
    for comparator in (C.percent_agreement_comparator(), C.kappa_comparator()):
        comparator.config["rows"] = agreement.source
        reports.append(check(comparator, agreement.rows, a_muts, a_canaries, seed, notes=note))
    return RulerSuite(tuple(reports), seed, semantic, model_id, corpus_hash, run_id)


def check_ruler(
    store: Any, run_id: int | None = None, embed: Any = None, semantic_note: str | None = None,
    seed: int = DEFAULT_SEED,
) -> RulerSuite:
    """The ruler on a store. ``embed`` (texts -> unit vectors) turns on the semantic
    comparators as the workbench profile runs them; without it they are checked lexically
    and ``semantic`` says why."""
    from core.agreement.results import compare  # noqa: F401  (the product's own path is importable)
    from core.replay import matcher_bridge
    from core.replay.profiles import WORKBENCH
    from core.store.agreement_repo import AgreementRepository
    from core.store.corpus_repo import CorpusRepository
    from core.store.run_coverage import report_run

    rows = build_rows(CorpusRepository(store).get_trajectories())
    picture = report_run(store, run_id)  # the same run the report reads (the last complete picture)
    run = None if picture is None else picture.run
    repo = AgreementRepository(store)
    judgements = repo.judgements()
    population = repo.population(run.id) if run is not None and not judgements else []
    agreement = agreement_rows(judgements, population, seed)
    matcher = matcher_bridge.matcher_profile(WORKBENCH.matcher, semantic=embed is not None)
    if embed is not None:
        semantic = "on"
    else:
        semantic = "off" if semantic_note is None else f"unavailable: {semantic_note}"
    return check_rows(
        rows, agreement, matcher=matcher, embed=embed, seed=seed, semantic=semantic,
        model_id=getattr(embed, "model_id", None), corpus_hash=None if run is None else run.corpus_hash,
        run_id=None if run is None else run.id,
    )
