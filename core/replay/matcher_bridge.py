"""The one place replay touches ``core.matching`` (its batch API), so an API change
there is a change here only."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.matching import batch as mbatch
from core.matching import score as mscore
from core.matching import semantic as msemantic
from core.matching.profile import REFERENCE_0_3_1, MatcherProfile
from core.matching.text import content_tokens as _content_tokens
from core.matching.view_index import PRUNE_MIN_TRAJECTORIES
from core.matching.view_tokens import SliceTokens
from core.matching.views import TrajectoryViews
from core.replay.types import ReplayRule


def matcher_profile(base: MatcherProfile | None, semantic: bool) -> MatcherProfile:
    return (base or REFERENCE_0_3_1).with_semantic(semantic)


def views_for(record: dict[str, Any], matcher: MatcherProfile) -> TrajectoryViews:
    return TrajectoryViews.from_record(record, include_input=matcher.include_input)


def rule_text(rule: ReplayRule) -> mscore.RuleText:
    return mscore.RuleText(rule.trigger, context=tuple(rule.context), signature=rule.signature)


def round_like_python(values: np.ndarray, digits: int) -> np.ndarray:
    """Element-wise ``round(x, digits)``, exactly as Python rounds."""
    return mbatch.round_like_python(values, digits)


def content_tokens(text: str) -> frozenset[str]:
    return _content_tokens(text)


#: code -> name of ``Block.view`` / ``Block.floor``
VIEW_NAMES: tuple[str | None, ...] = mbatch.VIEW_CODES
FLOOR_NAMES: tuple[str | None, ...] = mbatch.FLOOR_CODES
evidence_without_alias_token = mbatch.evidence_without_alias_token


@dataclass(frozen=True)
class Block:
    """Batch scores of a chunk of rules against every trajectory."""

    score: np.ndarray
    token_f1: np.ndarray
    bigram: np.ndarray
    blend: np.ndarray
    cosine: np.ndarray | None
    view: np.ndarray
    floor: np.ndarray
    view_names: tuple[str | None, ...]
    floor_names: tuple[str | None, ...]
    prefilter_ok: np.ndarray
    prefilter_reason: tuple[str | None, ...]
    domain_conflict: np.ndarray
    context_matched: np.ndarray
    context_total: np.ndarray
    lexical_evidence: np.ndarray | None = None  # the lexical matcher's score, alias-token floor undone


def index_views(
    views: Sequence[TrajectoryViews], prune: bool | None = None, check: Callable[[], None] | None = None,
    slices: Sequence[SliceTokens] | None = None,
) -> mbatch.ViewIndex:
    """Trajectory-side precomputation, built once per run and shared by every chunk (from the
    views' tokens when ``slices`` has them already)."""
    return mbatch.index_views(views, prune=prune, check=check, slices=slices)


def prunes(count: int, prune: bool | None) -> bool:
    """Whether ``index_views`` of ``count`` views builds word indexes."""
    return count >= PRUNE_MIN_TRAJECTORIES if prune is None else prune


def score_block(
    rules: Sequence[mscore.RuleText],
    index: mbatch.ViewIndex,
    matcher: MatcherProfile,
    cosine: np.ndarray | None,
    lexical: MatcherProfile | None = None,
) -> Block:
    b = mbatch.score_matrix(list(rules), index, matcher, cosine=cosine, lexical=lexical)
    return Block(
        score=b.score,
        token_f1=b.token_f1,
        bigram=b.bigram,
        blend=b.blend,
        cosine=b.cosine,
        view=b.view,
        floor=b.floor,
        view_names=mbatch.VIEW_CODES,
        floor_names=mbatch.FLOOR_CODES,
        prefilter_ok=np.asarray(b.prefilter_ok, dtype=bool),
        prefilter_reason=tuple(b.prefilter_reasons),
        domain_conflict=np.asarray(b.domain_conflict, dtype=bool),
        context_matched=b.context_matched,
        context_total=b.context_total,
        lexical_evidence=b.lexical_evidence,
    )


@dataclass
class SemanticCosines:
    """Embeds the run's unique texts once (one batched call) and serves [R, T] cosines."""

    trigger_vecs: np.ndarray  # [R, D]
    table: np.ndarray  # [N, D] one vector per distinct trajectory text
    primary_rows: np.ndarray  # [T] row of each trajectory's primary text in `table`, -1: none
    secondary_rows: np.ndarray  # [T] same for the secondary text, -1: no secondary cosine
    unique_texts: int
    targets: msemantic.CosineTargets | None = None  # the [T] side, converted once
    _rows: tuple[int, np.ndarray] | None = None  # (first rule, cosines [B, T]) computed ahead

    @classmethod
    def prepare(
        cls,
        rules: Sequence[mscore.RuleText],
        views: Sequence[TrajectoryViews],
        embed: Callable[[list[str]], np.ndarray],
        matcher: MatcherProfile,
    ) -> SemanticCosines:
        triggers, primary, secondary = msemantic.semantic_pairs(list(rules), list(views), matcher)
        slot: dict[str, int] = {}
        for text in (*triggers, *primary, *(t for t in secondary if t is not None)):
            if text and text not in slot:
                slot[text] = len(slot)
        texts = list(slot)
        if texts:
            table = np.asarray(embed(texts), dtype=np.float32)
        else:
            table = np.zeros((0, 1), dtype=np.float32)
        # Row -1 of `padded` is a zero vector: cosine 0 for blank texts.
        padded = np.vstack([table, np.zeros((1, table.shape[1]), dtype=np.float32)])

        def rows(items: Sequence[str | None]) -> np.ndarray:
            return np.fromiter((slot.get(t, -1) if t else -1 for t in items), dtype=np.int64, count=len(items))

        # A trajectory whose secondary text is blank still has a secondary (zero) vector: cosine 0,
        # which never changes the max, so -1 ("none") gives the same cosines.
        return cls(trigger_vecs=padded[rows(triggers)], table=table, primary_rows=rows(primary),
                   secondary_rows=rows(secondary), unique_texts=len(texts))

    def block(self, lo: int, hi: int) -> np.ndarray:
        """[hi - lo, T] cosines of rules lo..hi. At 10^5 trajectories a chunk is one rule, and
        one rule's product reads the whole [T, D] target side (300 MB in float64) to do 2
        flops per element read: memory-bound, most of a semantic run. So rules are multiplied
        COSINE_PAIRS at a time, ahead of the chunks that ask for them. (BLAS rounds the last
        bit differently for different row counts, so a cosine may differ by ~1e-16 from a
        chunk-by-chunk product; it did already between chunk sizes.)"""
        targets = self.prepare_targets()
        if self._rows is None or not self._covers(self._rows[0], len(self._rows[1]), lo, hi):
            self._rows = (lo, targets.cosines(self.trigger_vecs[lo:lo + self._ahead(lo, hi)]))
        first, cosines = self._rows
        return cosines[lo - first:hi - first].copy()  # the chunk's own: the cache is reused

    def prepare_targets(self) -> msemantic.CosineTargets:
        """The [T] side, converted once (before the scoring workers fork: they share it)."""
        if self.targets is None:
            self.targets = msemantic.CosineTargets.of_table(self.table, self.primary_rows, self.secondary_rows)
        return self.targets

    def block_starts(self, bounds: Sequence[tuple[int, int]]) -> list[int]:
        """The first rule of each chunk at which :meth:`block`, asked for ``bounds`` in order
        from a fresh state, multiplies a new block of rules. A scoring worker that starts a
        new block at each of them (after :meth:`forget`) computes the very products a
        one-core run computes, so the cosines are equal to the last bit."""
        starts: list[int] = []
        cached: tuple[int, int] | None = None
        for lo, hi in bounds:
            if cached is None or not self._covers(cached[0], cached[1], lo, hi):
                cached = (lo, len(self.trigger_vecs[lo:lo + self._ahead(lo, hi)]))
                starts.append(lo)
        return starts

    def forget(self) -> None:
        """Drop the block computed ahead (the next :meth:`block` multiplies a new one)."""
        self._rows = None

    def _ahead(self, lo: int, hi: int) -> int:
        return max(hi - lo, COSINE_PAIRS // max(1, len(self.primary_rows)))

    @staticmethod
    def _covers(first: int, count: int, lo: int, hi: int) -> bool:
        return first <= lo and hi <= first + count


#: cosines computed per product ahead of the chunks (32 MB of float64 at most)
COSINE_PAIRS = 1 << 22
