"""The product's comparators, wrapped for the harness, plus two deliberately bad ones.

Each wrapper scores exactly what the product scores: ``token_f1`` / ``directive_f1`` /
``semantic_f1`` / extraction ``agreement`` from :mod:`core.metrics.extraction`, the replay
matcher's match decision from :func:`core.matching.score.decide`, and human-vs-replay
agreement from :mod:`core.metrics.interrater`. ``contract`` is the set of benign changes
the metric claims not to see; a metric named "semantic" claims paraphrases too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from core.matching.profile import REFERENCE_0_3_1, REFERENCE_0_3_1_SEMANTIC, MatcherProfile
from core.matching.rule import RuleText
from core.matching.score import decide
from core.matching.semantic import semantic_pairs
from core.matching.text import embedding_key, normalize
from core.matching.views import TrajectoryViews
from core.metrics.extraction import AGREEMENT_THRESHOLD, directive_f1, semantic_f1, token_f1
from core.metrics.interrater import cohens_kappa
from core.metrics.registry import AGREEMENT, DIRECTIVE_F1, SEMANTIC_F1, TOKEN_F1
from core.metrics.ruler.harness import Comparator, Verdict, thresholded

SURFACE = frozenset({"case", "punctuation", "whitespace"})
MEANING = SURFACE | {"paraphrase"}
MATCHER_CONTRACT = MEANING | {"step_reorder", "paraphrase_unlabelled"}
AGREEMENT_GATE = 0.80  # core.domain.agreement.DEFAULT_GATE
KAPPA_PASS = 0.40  # "moderate" (Landis & Koch): the least a rater must beat chance by

EmbedFn = Callable[[list[str]], np.ndarray]


class MemoEmbed:
    """Memoising wrapper: ``prefetch`` embeds many texts in one call, later calls are lookups."""

    def __init__(self, embed: EmbedFn) -> None:
        self._embed = embed
        self._memo: dict[str, np.ndarray] = {}
        self.model_id = getattr(embed, "model_id", None)

    def prefetch(self, texts: Sequence[str]) -> None:
        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            vectors = np.asarray(self._embed(missing), dtype=np.float64)
            self._memo.update(zip(missing, vectors))

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.prefetch(texts)
        return np.vstack([self._memo[t] for t in texts]) if texts else np.zeros((0, 0))


def memo(embed: EmbedFn | None) -> MemoEmbed | None:
    if embed is None or isinstance(embed, MemoEmbed):
        return embed
    return MemoEmbed(embed)


# -- extraction comparators -----------------------------------------------------------------
def token_f1_comparator() -> Comparator:
    return Comparator(
        TOKEN_F1.key, TOKEN_F1.ruler_label, TOKEN_F1.description, AGREEMENT_THRESHOLD,
        thresholded(token_f1, AGREEMENT_THRESHOLD), "mean", SURFACE, {"comparator": "core.metrics.extraction.token_f1"},
    )


def directive_f1_comparator() -> Comparator:
    return Comparator(
        DIRECTIVE_F1.key, DIRECTIVE_F1.ruler_label, DIRECTIVE_F1.description, AGREEMENT_THRESHOLD,
        thresholded(directive_f1, AGREEMENT_THRESHOLD), "mean", SURFACE,
        {"comparator": "core.metrics.extraction.directive_f1"},
    )


def _semantic_eval(embed: MemoEmbed | None, profile: MatcherProfile) -> Callable[[Sequence[tuple[Any, Any]]], list[Verdict]]:
    def run(pairs: Sequence[tuple[Any, Any]]) -> list[Verdict]:
        if embed is not None:
            embed.prefetch([embedding_key(normalize(t)) for pair in pairs for t in pair if t and t.strip()])
        out: list[Verdict] = []
        for a, b in pairs:
            s = semantic_f1(a, b, profile, embed)
            out.append((s, s >= AGREEMENT_THRESHOLD))
        return out

    return run


def _semantic_config(embed: MemoEmbed | None) -> dict[str, Any]:
    if embed is None:
        return {"profile": REFERENCE_0_3_1.name, "embedding": None,
                "note": "no embedding: the matcher's lexical score (what `report` shows)"}
    return {"profile": REFERENCE_0_3_1_SEMANTIC.name, "embedding": embed.model_id}


def semantic_f1_comparator(embed: EmbedFn | None = None) -> Comparator:
    e = memo(embed)
    profile = REFERENCE_0_3_1 if e is None else REFERENCE_0_3_1_SEMANTIC
    return Comparator(
        SEMANTIC_F1.key, SEMANTIC_F1.ruler_label, SEMANTIC_F1.description, AGREEMENT_THRESHOLD,
        _semantic_eval(e, profile), "mean", MEANING, _semantic_config(e),
    )


def agreement_comparator(embed: EmbedFn | None = None) -> Comparator:
    e = memo(embed)
    profile = REFERENCE_0_3_1 if e is None else REFERENCE_0_3_1_SEMANTIC
    return Comparator(
        AGREEMENT.key, AGREEMENT.ruler_label, AGREEMENT.description,
        AGREEMENT_THRESHOLD, _semantic_eval(e, profile), "pass_rate", MEANING, _semantic_config(e),
    )


# -- the replay matcher's match decision ----------------------------------------------------
def matcher_comparator(matcher: MatcherProfile, embed: EmbedFn | None = None) -> Comparator:
    """Rows are ``((trigger, threshold), record)``; the verdict is ``decide(...).matched``."""
    e = memo(embed) if matcher.semantic else None

    def run(pairs: Sequence[tuple[Any, Any]]) -> list[Verdict]:
        rules = [RuleText(trigger) for (trigger, _t), _r in pairs]
        views = [TrajectoryViews.from_record(r, include_input=matcher.include_input) for _p, r in pairs]
        cosines: list[float | None] = [None] * len(pairs)
        if e is not None and pairs:
            trig, prim, sec = semantic_pairs(rules, views, matcher)
            e.prefetch([t for t in trig + prim + [s for s in sec if s] if t])
            for i in range(len(pairs)):
                if not trig[i]:
                    cosines[i] = 0.0
                    continue
                t = e([trig[i]])[0]
                cos = _cos(t, e([prim[i]])[0]) if prim[i] else 0.0
                second = sec[i]
                if second:
                    cos = max(cos, _cos(t, e([second])[0]))
                cosines[i] = cos
        out: list[Verdict] = []
        for i, ((_trigger, threshold), _record) in enumerate(pairs):
            d = decide(rules[i], views[i], threshold, matcher, cosines[i])
            out.append((d.parts.score, d.matched))
        return out

    return Comparator(
        "match_decision", "replay match decision", "the replay matcher's decision (score >= threshold, prefilter, "
        "domain guard, context) for a trigger against a failure trajectory", None, run, "pass_rate",
        MATCHER_CONTRACT,
        {"matcher": matcher.name, "semantic": matcher.semantic and e is not None,
         "embedding": None if e is None else e.model_id, "threshold": "per corpus, as replay (threshold_for_corpus)"},
    )


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return max(0.0, min(1.0, float(a @ b) / (na * nb)))


# -- human-vs-replay agreement --------------------------------------------------------------
def _equal(pairs: Sequence[tuple[Any, Any]]) -> list[Verdict]:
    return [(1.0 if h == r else 0.0, h == r) for h, r in pairs]


def _kappa(pairs: Sequence[tuple[Any, Any]], _verdicts: Sequence[Verdict]) -> float | None:
    if not pairs:
        return None
    return cohens_kappa([r for _h, r in pairs], [h for h, _r in pairs]).value


def percent_agreement_comparator() -> Comparator:
    """Rows are ``(human_answer, replay_answer)``."""
    return Comparator(
        "human_vs_replay.agreement", "human-vs-replay agreement", "share of items where the human and replay "
        "gave the same answer (core.metrics.interrater.percent_agreement)", AGREEMENT_GATE, _equal, "pass_rate",
        frozenset(), {"gate": AGREEMENT_GATE},
    )


def kappa_comparator() -> Comparator:
    return Comparator(
        "human_vs_replay.kappa", "human-vs-replay Cohen's kappa", "agreement beyond chance "
        "(core.metrics.interrater.cohens_kappa; replay = rater 1)", KAPPA_PASS, _equal, _kappa, frozenset(),
        {"pass_at": KAPPA_PASS},
    )


# -- deliberately bad comparators (the harness's own tests and the docs) --------------------
def exact_match_comparator() -> Comparator:
    return Comparator("exact_match", "exact match", "string equality", 1.0,
                      thresholded(lambda a, b: float(a == b), 1.0), "mean", SURFACE)


def constant_comparator(value: float = 0.9) -> Comparator:
    return Comparator("constant", "constant", f"always {value}", 0.6,
                      thresholded(lambda a, b: value, 0.6), "mean", MEANING)


def cosine_comparator(embed: EmbedFn, threshold: float = 0.3) -> Comparator:
    """Raw embedding cosine with a low threshold: on short strings it passes nearly anything."""
    e = memo(embed)
    assert e is not None

    def score(a: str, b: str) -> float:
        va, vb = e([a.lower().strip()])[0], e([b.lower().strip()])[0]
        return _cos(va, vb)

    def run(pairs: Sequence[tuple[Any, Any]]) -> list[Verdict]:
        e.prefetch([t.lower().strip() for pair in pairs for t in pair])
        return [(s, s >= threshold) for s in (score(a, b) for a, b in pairs)]

    return Comparator(f"cosine@{threshold}", f"cosine >= {threshold}", "raw MiniLM cosine, low threshold", threshold,
                      run, "pass_rate", MEANING)
