"""Batch matcher: a rule set against a trajectory set, as [R, T] arrays (replay's hot path).

Equal, pair for pair, to :func:`core.matching.score.explain` / ``decide``. Python loops run
over rules, trajectories, phrases or context items, never over rule x trajectory pairs:

* token intersections are sparse products ``rules @ trajectories.T`` (CSR, 0/1 entries);
* substring tests search each needle once in all views joined by ``"\\n"`` (normalised text
  has no newline, so a hit never straddles two trajectories) and map offsets back with
  ``searchsorted``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from core.matching.compose import (
    FLOOR_CODES,
    VIEW_CODES,
    _unscored,
    compose_scores,
    evidence_without_alias_token,
    round_like_python,
)
from core.matching.profile import REFERENCE_0_3_1, MatcherProfile
from core.matching.rule import RuleText, prepare_rule
from core.matching.score import prefilter_reason, trigger_domain_group
from core.matching.semantic import cosine_matrix, semantic_pairs
from core.matching.text import normalize
from core.matching.view_index import _GROUP_CODE, ViewIndex, _binary, candidate_columns, index_views
from core.matching.views import TrajectoryViews

__all__ = [
    "BLOCKED_CODES",
    "BatchScores",
    "FLOOR_CODES",
    "VIEW_CODES",
    "ViewIndex",
    "compose_scores",
    "evidence_without_alias_token",
    "cosine_matrix",
    "index_views",
    "round_like_python",
    "score_matrix",
    "semantic_pairs",
]

#: code -> name of ``BatchScores.blocked_by(...)`` (same names as ``MatchDecision.blocked_by``
#: except that prefilter reasons are folded into one code; see ``prefilter_reason``)
BLOCKED_CODES: tuple[str | None, ...] = (None, "prefilter", "below_threshold", "domain_guard",
                                         "context")
@dataclass(frozen=True)
class BatchScores:
    """[R, T] arrays; every entry equals the scalar path for that pair."""

    score: np.ndarray  # float64, = explain().score = reference match_score
    token_f1: np.ndarray
    bigram: np.ndarray
    blend: np.ndarray  # raw blend before floors
    view: np.ndarray  # int8 codes into VIEW_CODES
    floor: np.ndarray  # int8 codes into FLOOR_CODES
    exact: np.ndarray  # bool
    signature_hit: np.ndarray  # bool
    prefilter_ok: np.ndarray  # bool [R]
    prefilter_reasons: tuple[str | None, ...]  # [R]
    domain_conflict: np.ndarray  # bool [R, T]
    context_matched: np.ndarray  # int32 [R, T]
    context_total: np.ndarray  # int32 [R]
    success: np.ndarray  # bool [T]
    cosine: np.ndarray | None  # float64 [R, T] as used (None when semantic is off)
    # The floors' triggers, bool [R, T] (what ``compose_scores`` needs besides the parts above):
    # an alias phrase, an alias token, a distinctive phrase (of a long enough trigger) is present.
    phrase_hit: np.ndarray | None = None
    alias_hit: np.ndarray | None = None
    distinctive_hit: np.ndarray | None = None
    # float64 [R, T]: what the lexical matcher (``score_matrix(..., lexical=...)``) would score
    # each pair, with the alias-token floor undone (broken evidence); None unless asked for.
    lexical_evidence: np.ndarray | None = None

    def matched(self, threshold: float) -> np.ndarray:
        """bool [R, T] = ``decide(...).matched`` (``rule_matches_with_score``)."""
        return np.asarray(self.blocked_by(threshold) == 0)

    def decision_score(self) -> np.ndarray:
        """The score ``rule_matches_with_score`` returns: 0.0 where the prefilter blocks."""
        return np.where(self.prefilter_ok[:, None], self.score, 0.0)

    def blocked_by(self, threshold: float) -> np.ndarray:
        """int8 [R, T] codes into BLOCKED_CODES, first blocking reason in decide's order."""
        code = np.zeros(self.score.shape, dtype=np.int8)
        context_short = self.context_matched < self.context_total[:, None]
        guard = self.domain_conflict & ~self.success[None, :]
        code[context_short] = 4
        code[guard] = 3
        code[self.score < threshold] = 2
        code[~self.prefilter_ok, :] = 1
        return code


def _rule_matrix(sets: Iterable[Iterable[Any]], index: Mapping[Any, int], n_rows: int) -> sparse.csr_matrix:
    rows = ([index[t] for t in items if t in index] for items in sets)
    return _binary(rows, n_rows, len(index))


def _needle_matrix(
    per_rule: Sequence[Iterable[str]], presence: dict[str, np.ndarray], n_rules: int, count: int
) -> np.ndarray:
    """bool [R, T]: some needle of the rule is present in the trajectory."""
    needles = sorted(presence)
    if not needles or count == 0:
        return np.zeros((n_rules, count), dtype=bool)
    position = {n: i for i, n in enumerate(needles)}
    rule_x_needle = _rule_matrix(per_rule, position, n_rules)
    present = sparse.csr_matrix(np.vstack([presence[n] for n in needles]).astype(np.float64))
    return np.asarray((rule_x_needle @ present).toarray() > 0)


def _spread(values: np.ndarray, cols: np.ndarray, count: int, fill: Any) -> np.ndarray:
    """[R, C] values of the scored columns -> [R, count], ``fill`` elsewhere (a scalar, a
    column [R, 1] or an [R, count] array, which is filled in place)."""
    if isinstance(fill, np.ndarray) and fill.shape == (values.shape[0], count):
        out = fill.astype(values.dtype, copy=False)
    else:
        out = np.empty((values.shape[0], count), dtype=values.dtype)
        out[...] = fill
    out[:, cols] = values
    return out


def score_matrix(
    rules: Sequence[RuleText],
    views: Sequence[TrajectoryViews] | ViewIndex,
    profile: MatcherProfile = REFERENCE_0_3_1,
    cosine: np.ndarray | None = None,
    lexical: MatcherProfile | None = None,
) -> BatchScores:
    """Score every rule against every trajectory. ``cosine`` is the [R, T] reduced cosine
    (see :func:`semantic_pairs` / :func:`cosine_matrix`), used only when
    ``profile.semantic``. ``lexical``: also compose the scores that lexical matcher gives
    the same pairs (``BatchScores.lexical_evidence``): the parts do not depend on the cosine,
    so a semantic run's broken evidence costs one more composition, not a second scoring pass."""
    idx = views if isinstance(views, ViewIndex) else index_views(views)
    preps = [prepare_rule(rule) for rule in rules]
    n_rules, count = len(preps), len(idx)
    shape = (n_rules, count)

    # --- substring tests, on every trajectory (the word index touches candidates only) ----
    trig_h: dict[int, np.ndarray] = {}
    trig_s: dict[int, np.ndarray] = {}
    for i, prep in enumerate(preps):
        if not prep.blank:
            trig_h[i] = idx.contains(prep.norm_trigger, "hay")
            trig_s[i] = idx.contains(prep.norm_trigger, "sig")
    sig_rules = [i for i, p in enumerate(preps) if p.signature_norm is not None]
    in_ref = {i: idx.contains(preps[i].signature_norm or "", "ref") for i in sig_rules}
    present = {n: idx.contains(n, "hay") | idx.contains(n, "sig")
               for p in preps for n in (*p.alias_phrases, *p.distinctive)}

    # --- token views -------------------------------------------------------------------
    rule_tokens = _rule_matrix((p.tokens for p in preps), idx.vocab, n_rules)
    rule_alias = _rule_matrix((p.alias_tokens for p in preps), idx.vocab, n_rules)
    rule_bigrams = _rule_matrix((p.bigrams for p in preps), idx.bigram_vocab, n_rules)
    sig_tokens = _rule_matrix((preps[i].signature_tokens for i in sig_rules), idx.vocab, len(sig_rules))
    # Exact pruning: a trajectory that shares no token with the chunk's rules (trigger,
    # alias or signature tokens) and holds none of their substrings scores 0 with every
    # part 0 (see candidate_columns); only the others are scored, the rest is filled in.
    # In a semantic run such a pair's score is a closed form of its cosine (see _unscored).
    cos_all = None
    if profile.semantic and cosine is not None:
        cos_all = np.asarray(cosine, dtype=np.float64).reshape(shape)
    cols = None
    if idx.words is not None:
        cols = candidate_columns(idx, (rule_tokens + rule_alias, sig_tokens),
                                 (*trig_h.values(), *trig_s.values(), *in_ref.values(), *present.values()))

    def pick(matrix: sparse.csr_matrix | np.ndarray) -> np.ndarray:
        dense = np.asarray(matrix.toarray()) if isinstance(matrix, sparse.spmatrix) else np.asarray(matrix)
        return dense if cols is None else dense[..., cols]

    width = count if cols is None else cols.size
    sub = (n_rules, width)
    n_tokens = np.asarray([len(p.tokens) for p in preps], dtype=np.float64)
    n_alias = np.asarray([len(p.alias_tokens) for p in preps], dtype=np.float64)
    n_bigrams = np.asarray([len(p.bigrams) for p in preps], dtype=np.float64)
    wanted = (n_tokens + profile.alias_weight * n_alias)[:, None]
    cap = np.maximum(profile.view_denominator_cap * np.floor(wanted), 1)

    def view_scores(
        tokens: sparse.csr_matrix, size: np.ndarray, grams: sparse.csr_matrix
    ) -> tuple[np.ndarray, np.ndarray]:
        direct = pick(rule_tokens @ tokens)
        alias = pick(rule_alias @ tokens)
        hit = direct + profile.alias_weight * alias
        denominator = np.minimum(pick(size)[None, :], cap)
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = hit / np.maximum(denominator, 1)
            recall = hit / wanted
            f1 = 2 * precision * recall / (precision + recall)
            f1 = np.where((wanted == 0) | (precision + recall == 0), 0.0, f1)
            inter = pick(rule_bigrams @ grams)
            bigram = np.where(n_bigrams[:, None] > 0, inter / n_bigrams[:, None], 0.0)
        return f1, bigram

    f1_h, bg_h = view_scores(idx.columns("hay_tokens"), idx.hay_size, idx.columns("hay_bigrams"))
    f1_s, bg_s = view_scores(idx.columns("sig_tokens"), idx.sig_size, idx.columns("sig_bigrams"))
    token_f1, bigram = np.maximum(f1_h, f1_s), np.maximum(bg_h, bg_s)
    lexical_w = (profile.lexical_token_weight, profile.lexical_bigram_weight)
    alias_hit = pick(rule_alias @ idx.columns("union_tokens")) > 0

    exact_h = np.zeros(sub, dtype=bool)
    exact_s = np.zeros(sub, dtype=bool)
    sig_hit = np.zeros(sub, dtype=bool)
    for i in trig_h:
        exact_h[i] = pick(trig_h[i])
        exact_s[i] = pick(trig_s[i])
    if sig_rules:
        covered = pick(sig_tokens @ idx.columns("ref_tokens"))
        sizes = np.asarray([len(preps[i].signature_tokens) for i in sig_rules], dtype=np.float64)
        for row, i in enumerate(sig_rules):
            sig_hit[i] = pick(in_ref[i]) | (covered[row] == sizes[row])

    present_sub = {n: pick(v) for n, v in present.items()}
    phrase_hit = _needle_matrix([p.alias_phrases for p in preps], present_sub, n_rules, width)
    long_enough = np.asarray(
        [len(p.norm_trigger) >= profile.distinctive_min_chars for p in preps], dtype=bool
    )
    distinctive_hit = _needle_matrix([p.distinctive for p in preps], present_sub, n_rules, width) \
        & long_enough[:, None]

    # --- blend, floors and early returns (one function: the calibration lab re-applies it) --
    sig_wins = (lexical_w[0] * f1_s + lexical_w[1] * bg_s) > (lexical_w[0] * f1_h + lexical_w[1] * bg_h)
    no_tokens = (n_tokens == 0)[:, None] & np.ones(sub, dtype=bool)
    blank_rows = np.asarray([p.blank for p in preps], dtype=bool)
    blank = blank_rows[:, None] & np.ones(sub, dtype=bool)
    sig_hit &= ~blank
    exact = exact_h | exact_s
    score, blend, view, floor = compose_scores(
        token_f1, bigram, pick(cos_all) if cos_all is not None else None, phrase_hit, alias_hit,
        distinctive_hit, exact_h, exact_s, sig_hit, no_tokens, blank, sig_wins, profile)
    lexical_evidence = None
    if lexical is not None:
        lex_score, lex_blend, _view, lex_floor = compose_scores(
            token_f1, bigram, None, phrase_hit, alias_hit, distinctive_hit, exact_h, exact_s, sig_hit, no_tokens,
            blank, sig_wins, lexical)
        lexical_evidence = evidence_without_alias_token(lex_score, lex_blend, lex_floor)
    if blank.any():  # the scalar path reports zeros for a blank trigger
        token_f1 = np.where(blank, 0.0, token_f1)
        bigram = np.where(blank, 0.0, bigram)
        blend = np.where(blank, 0.0, blend)
    if cols is not None:  # the pruned columns: every lexical part 0, the rest from the cosine
        fill_score, fill_blend, fill_view, fill_floor = _unscored(cos_all, profile, (n_tokens == 0) | blank_rows,
                                                                  blank_rows)
        score, blend = _spread(score, cols, count, fill_score), _spread(blend, cols, count, fill_blend)
        token_f1, bigram = (_spread(a, cols, count, 0.0) for a in (token_f1, bigram))
        exact, sig_hit = (_spread(a, cols, count, False) for a in (exact, sig_hit))
        phrase_hit, alias_hit, distinctive_hit = (
            _spread(a, cols, count, False) for a in (phrase_hit, alias_hit, distinctive_hit))
        view, floor = _spread(view, cols, count, fill_view), _spread(floor, cols, count, fill_floor)
        if lexical_evidence is not None:  # a pruned pair has no lexical part: the lexical matcher scores it 0
            lexical_evidence = _spread(lexical_evidence, cols, count, 0.0)

    # --- decision inputs -----------------------------------------------------------------
    reasons = tuple(prefilter_reason(r.trigger, r.context) for r in rules)
    prefilter_ok = np.asarray([r is None for r in reasons], dtype=bool)
    groups = []
    for rule in rules:
        group = trigger_domain_group(rule.trigger)
        groups.append(-1 if group is None else _GROUP_CODE[group])
    rule_group = np.asarray(groups, dtype=np.int64)[:, None]
    conflict = (rule_group >= 0) & (idx.group[None, :] >= 0) & (rule_group != idx.group[None, :])

    context_total = np.asarray([len(r.context) for r in rules], dtype=np.int32)
    items = {normalize(c) for r in rules for c in r.context} - {""}
    domain_rows = idx.domain_rows()
    item_presence: dict[str, np.ndarray] = {}
    for item in items:
        holds = idx.contains(item, "hay")
        holds[domain_rows.get(item, [])] = True
        item_presence[item] = holds
    if items and count:
        order = sorted(items)
        position = {n: i for i, n in enumerate(order)}
        rows, item_cols = [], []
        for i, rule in enumerate(rules):
            for c in rule.context:
                norm = normalize(c)
                if norm in position:
                    rows.append(i)
                    item_cols.append(position[norm])
        counts = sparse.csr_matrix(
            (np.ones(len(rows)), (rows, item_cols)), shape=(n_rules, len(order))
        )  # duplicates are summed: a repeated item counts twice, as in the reference
        present_m = sparse.csr_matrix(np.vstack([item_presence[n] for n in order]).astype(np.float64))
        context_matched = np.rint((counts @ present_m).toarray()).astype(np.int32)
    else:
        context_matched = np.zeros(shape, dtype=np.int32)

    return BatchScores(
        score=score,
        token_f1=token_f1,
        bigram=bigram,
        blend=blend,
        view=view,
        floor=floor,
        exact=exact,
        signature_hit=sig_hit,
        prefilter_ok=prefilter_ok,
        prefilter_reasons=reasons,
        domain_conflict=conflict,
        context_matched=context_matched,
        context_total=context_total,
        success=idx.success,
        cosine=cos_all,
        phrase_hit=phrase_hit,
        alias_hit=alias_hit,
        distinctive_hit=distinctive_hit,
        lexical_evidence=lexical_evidence,
    )
