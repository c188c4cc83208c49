"""Floors for the report's own numbers, computed on every report (seed 004: "published
beside the metric, permanently").

* pass rates: the same run replayed with every rule's trigger moved to a rule from another
  domain (a seeded derangement), so each rule is judged by a trigger that is certainly not
  its own -- the pass rate that mismatched rules still reach;
* extraction accuracy: each candidate scored against a seeded pick among the store's other
  ``expected_rule`` sentences (another domain's when one exists);
* human-vs-replay: the human answers permuted across items (chance agreement, kappa ~ 0).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from core.embeddings import text_hash
from core.metrics.extraction import ExtractionPair, measure
from core.metrics.interrater import cohens_kappa
from core.metrics.registry import EXTRACTION_METRICS
from core.metrics.ruler.harness import Row, derangement
from core.metrics.ruler.model import DEFAULT_SEED, Floor
from core.stats.wilson import Rate

PASS_FLOOR_METHOD = "replay with each rule's trigger moved to a rule of another domain (seeded derangement)"
EXTRACTION_FLOOR_METHOD = "each candidate against a seeded pick among the store's other expected_rules"
AGREEMENT_FLOOR_METHOD = "human answers permuted across items (seeded)"


class CacheOnlyEmbedder:
    """Vectors from the store's embedding cache only; a miss raises KeyError (no model load)."""

    def __init__(self, store: Any, model_id: str) -> None:
        from core.store.embedding_repo import EmbeddingCacheRepository

        self._repo = EmbeddingCacheRepository(store)
        self.model_id = model_id

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        hashes = [text_hash(t) for t in texts]
        found = self._repo.get_many(self.model_id, list(dict.fromkeys(hashes)))
        missing = [t for t, h in zip(texts, hashes) if h not in found]
        if missing:
            raise KeyError(f"{len(missing)} texts are not in the embedding cache for {self.model_id}")
        return np.vstack([found[h] for h in hashes]).astype(np.float32) if texts else np.zeros((0, 0), np.float32)


def replay_profile_of(run: Any, store: Any = None) -> Any:
    from core.replay.profiles import profile_by_name
    from core.store.profile_repo import resolve_profile

    # A stored profile's label (``team@2``) names its fields in the store (core.store.profile_repo).
    profile = profile_by_name(run.profile) if store is None else resolve_profile(store, run.profile)
    saved = run.config.get("replay") or {}
    names = {f.name for f in fields(profile)}
    changes = {k: v for k, v in saved.items() if k in names and k not in ("matcher",)}
    return profile.with_(**changes) if changes else profile


def shuffled_pass_floors(
    store: Any, run: Any, rule_corpus: dict[int, str], seed: int = DEFAULT_SEED, embed: Any = None,
) -> tuple[dict[str, dict[str, Any]], str]:
    """Per corpus: the pass and decisive-pass rates of the run's rules with mismatched triggers.

    Returns ``({corpus: {"pass": k, "fail": f, "n": n}}, note)``. Semantic runs reuse the
    store's embedding cache (the triggers and trajectories are the run's own texts); when a
    text is missing the floor is computed lexically and the note says so.
    """
    from core.replay.engine import replay
    from core.replaying import load_inputs

    inputs = load_inputs(store, rule_ids=sorted(rule_corpus))
    rules = [r for r in inputs.rules if inputs.rule_by_key[r.key].id in rule_corpus]
    if len(rules) < 2:
        return {}, "fewer than 2 rules: no mismatched trigger exists"
    rows = [Row(r.trigger, r.trigger, r.domain or r.corpus or r.key) for r in rules]
    perm = derangement(rows, seed)
    note = PASS_FLOOR_METHOD
    if perm is None:
        perm = [(i + 1) % len(rules) for i in range(len(rules))]
        note += "; no cross-domain derangement exists, a rotation was used"
    from dataclasses import replace as dc_replace

    shuffled = [dc_replace(r, trigger=rules[perm[i]].trigger, context=(), signature=None) for i, r in enumerate(rules)]
    profile = replay_profile_of(run, store)
    use_embed = None
    if profile.semantic:
        use_embed = embed if embed is not None else (CacheOnlyEmbedder(store, run.model_id) if run.model_id else None)
    try:
        output = replay(shuffled, inputs.trajectories, profile, embed=use_embed)
    except KeyError:
        output = replay(shuffled, inputs.trajectories, profile.with_(semantic=False))
        note += "; computed lexically (a text was missing from the embedding cache)"
    if profile.semantic and use_embed is None:
        note += "; computed lexically (no embedding model id on the run)"
    counts: dict[str, dict[str, int]] = defaultdict(lambda: {"pass": 0, "fail": 0, "n": 0})
    for result in output.results:
        corpus = rule_corpus[inputs.rule_by_key[result.rule_key].id]
        c = counts[corpus]
        c["n"] += 1
        if result.verdict in ("pass", "fail"):
            c[result.verdict] += 1
    return dict(counts), note


def rate_floor(chain: Sequence[tuple[str, dict[str, int] | None]], decisive: bool, seed: int, note: str) -> Floor:
    """The first level of ``chain`` (corpus, then its role, then every rule) whose mismatched
    rules give the rate a denominator; the floor's note says when it had to pool."""
    for level, (scope, counts) in enumerate(chain):
        if not counts:
            continue
        n = counts["pass"] + counts["fail"] if decisive else counts["n"]
        if n:
            pooled = None if level == 0 else f"pooled over {scope}: the corpus's own mismatched rules gave no denominator"
            return Floor(counts["pass"] / n, note, n, seed, pooled)
    if not any(counts and counts["n"] for _scope, counts in chain):  # nothing was replayed shuffled: say why
        return Floor(None, note, 0, seed, note)
    return Floor(None, note, 0, seed, "no mismatched rule reached a verdict that counts in this denominator")


def pool_counts(counts: Sequence[dict[str, int]]) -> dict[str, int]:
    out = {"pass": 0, "fail": 0, "n": 0}
    for c in counts:
        for k in out:
            out[k] += c[k]
    return out


def _value(part: float | Rate | None) -> float | None:
    """A mean's value, or a rate's (the floor of a rate is its value on shuffled pairs)."""
    return part.value if isinstance(part, Rate) else part


def extraction_floors(
    pairs: dict[str, list[ExtractionPair]], domains: dict[str, list[str | None]], pool: Sequence[tuple[str, str | None]],
    seed: int = DEFAULT_SEED,
) -> dict[str, dict[str, Floor]]:
    """``pool``: the store's distinct (expected_rule, domain). Per corpus, every measurable
    pair's ground truth is replaced by another expected_rule (another domain's if any)."""
    out: dict[str, dict[str, Floor]] = {}
    for corpus, items in pairs.items():
        rng = random.Random(f"{seed}:{corpus}")
        shuffled: list[ExtractionPair] = []
        for pair, domain in zip(items, domains[corpus]):
            if not pair.expected_rule or not pair.expected_rule.strip():
                continue
            own = " ".join(pair.expected_rule.lower().split())
            others = [e for e, d in pool if " ".join(e.lower().split()) != own and (domain is None or d != domain)]
            others = others or [e for e, _d in pool if " ".join(e.lower().split()) != own]
            if others:
                shuffled.append(ExtractionPair(pair.trigger, pair.directive, rng.choice(others)))
        acc = measure(shuffled)
        note = None if shuffled else "no other expected_rule in the store to mismatch against"
        n = acc.n
        out[corpus] = {m.key: Floor(_value(getattr(acc, m.key)), EXTRACTION_FLOOR_METHOD, n, seed, note)
                       for m in EXTRACTION_METRICS}
    return out


def agreement_floors(replay: Sequence[str], human: Sequence[str], seed: int = DEFAULT_SEED) -> dict[str, Floor]:
    if not replay:
        none = Floor(None, AGREEMENT_FLOOR_METHOD, 0, seed, "no committed judgements")
        return {"agreement": none, "kappa": none}
    perm = list(human)
    random.Random(seed).shuffle(perm)
    rate = Rate.of(sum(1 for a, b in zip(replay, perm) if a == b), len(replay))
    kappa = cohens_kappa(list(replay), perm).value
    return {
        "agreement": Floor(rate.value, AGREEMENT_FLOOR_METHOD, len(replay), seed),
        "kappa": Floor(kappa, AGREEMENT_FLOOR_METHOD, len(replay), seed,
                       None if kappa is not None else "undefined: a single category"),
    }
