"""Replay profiles: the reference-parity profile and the Workbench default.

Every difference between the two is a field here, so a run's config snapshot says
exactly which choices produced its numbers (see docs/replay.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from core.matching.profile import REFERENCE_0_3_1 as MATCHER_REFERENCE
from core.matching.profile import SemanticTarget

# cauterule 0.3.1 constants (replay.simulator / replay.report / replay.matcher).
BROKEN_MARGIN = 0.10
MIN_SAMPLE = 3
NEAR_MISS_LIMIT = 2
DEFAULT_THRESHOLD = 0.6
STRATEGY_THRESHOLDS: dict[str, float] = {
    "strict": 0.70,
    "loose": 0.35,
    "semantic": 0.60,
    "transfer": 0.40,
}
STRICT_CORPORA = frozenset({"golden", "successes", "nearmiss", "noisy", "corrections"})

PoolPolicy = Literal["runner", "exclude_first"]
PrecisionScope = Literal["same_as_recall", "all", "domain_if_gated", "corpus"]
BrokenEvidence = Literal["score", "lexical"]
RecallScope = Literal["domain", "corpus", "failure_class", "none"]
UnscopedPool = Literal["all", "corpus", "none"]


def strategy_for_corpus(corpus: str) -> str:
    """Threshold strategy from the ``/`` segments of a corpus path (cauterule #691)."""
    segments = [s.strip() for s in corpus.lower().split("/") if s.strip()]
    if any(s == "sibling" or s.startswith(("sibling-", "cross-repo")) for s in segments):
        return "transfer"
    if "raw" in segments:
        return "loose"
    last = segments[-1] if segments else corpus.strip().lower()
    return "strict" if last in STRICT_CORPORA else "semantic"


def threshold_for_corpus(corpus: str | None) -> float:
    """Per-corpus threshold (reference doc §4.6); the library default when unknown."""
    if not corpus:
        return DEFAULT_THRESHOLD
    return STRATEGY_THRESHOLDS[strategy_for_corpus(corpus)]


@dataclass(frozen=True)
class ReplayProfile:
    """How pools, buckets and verdicts are decided.

    ``threshold``: a flat threshold for every rule, or ``None`` for the per-corpus one.
    ``pool_policy``: ``runner`` = same-domain slice if it has >= 3 records, THEN drop the
    source (0.3.1 runner); ``exclude_first`` = drop the source, then test the size.
    ``precision_scope``: ``same_as_recall`` (0.3.1: one pool for both rates), ``all``
    (the whole trajectory set: where the rule may fire at injection time),
    ``domain_if_gated`` (the source domain when the trigger names a known domain group).
    ``broken_evidence``: what a matched SUCCESS is judged on (recovered -> near miss needs
    it >= threshold, otherwise broken needs it >= threshold + margin). ``score`` (0.3.1:
    the final score) or ``lexical`` (the lexical score with the alias-token floor undone:
    a cosine against a success's text measures topic, and one shared alias token is
    coincidence; neither is interference). Failures are always judged on the score.
    ``domain_gate_fallback``: gate a matched success without ``failure_class`` on its
    ``domain`` field (0.3.1 reads only ``failure_class``, which successes mostly lack).
    ``zero_rate_is_null``: what a rate with a zero denominator becomes (0.0 in 0.3.1, None here).
    ``read_failure_class``: False withholds every trajectory's ``failure_class`` from the run (its
    words in the haystack and signature, the matcher's domain guard, the recovered-run classifier,
    the success gate), so the run's decisions do not rest on that label (the calibration lab's
    failure-class proxy is built from it; docs/lab.md).
    ``failure_gate_fallback``: gate a matched FAILURE without ``failure_class`` on its ``domain``
    field too (the matcher's own guard reads ``failure_class`` only), so a run that withholds the
    label keeps a cross-domain guard.
    ``recall_scope``: which slice of the trajectories the recall pool is: ``domain`` (0.3.1: the
    source's domain), ``corpus`` (the source's corpus path, ``ReplayRule.corpus``),
    ``failure_class`` (the source trajectory's class: circular for a failure-class truth, and
    empty when the run withholds the label) or ``none`` (the whole set). A slice smaller than
    ``SCOPE_MIN`` falls back to the whole set, as the domain slice always has.
    ``unscoped_pool``: the recall pool of a rule whose source has no value for ``recall_scope``
    (no domain): ``all`` (the whole set, both shipped profiles), ``corpus`` (the source corpus's
    slice) or ``none`` (no pool: the rule is not measured there; recall is null, the verdict
    ``min_sample``; seed 001: "a missing label has to mean silence rather than a fallback").
    ``precision_scope`` ``corpus``: the source corpus's slice (minus the source).
    ``domain_margins``: ``(domain, margin)`` pairs; a rule whose source domain is listed judges
    broken successes with that margin instead of ``margin`` (seed 002: "should it be
    per-domain?"). Plain data: a list of pairs or a mapping is accepted and kept as sorted pairs.
    """

    name: str
    semantic: bool
    threshold: float | None = None
    pool_policy: PoolPolicy = "exclude_first"
    precision_scope: PrecisionScope = "all"
    broken_evidence: BrokenEvidence = "lexical"
    zero_rate_is_null: bool = True
    domain_gate_fallback: bool = True
    fill_missed: bool = True
    margin: float = BROKEN_MARGIN
    min_sample: int = MIN_SAMPLE
    near_miss_limit: int = NEAR_MISS_LIMIT
    wilson: bool = True
    matcher: Any = field(default=None, compare=False)  # core.matching.profile.MatcherProfile
    model_id: str | None = None
    read_failure_class: bool = True
    failure_gate_fallback: bool = False
    recall_scope: RecallScope = "domain"
    unscoped_pool: UnscopedPool = "all"
    domain_margins: tuple[tuple[str, float], ...] = ()
    twin_rules: float | None = None

    def __post_init__(self) -> None:
        # Kept as sorted (domain, margin) pairs so a profile read back from JSON (a mapping or
        # a list of lists) equals and hashes like the one that was written.
        pairs = self.domain_margins
        items = pairs.items() if isinstance(pairs, dict) else pairs
        normal = tuple(sorted((str(d), float(m)) for d, m in items))
        if normal != pairs:
            object.__setattr__(self, "domain_margins", normal)
        if self.twin_rules is not None and not 0.0 < self.twin_rules <= 1.0:
            # At 0 or below every rule would be every other rule's twin.
            raise ValueError(f"twin_rules is a cosine in (0, 1] (or None); got {self.twin_rules!r}")

    def margin_for(self, domain: str | None) -> float:
        """The broken margin of a rule whose source has ``domain``."""
        if self.domain_margins and domain is not None:
            for name, margin in self.domain_margins:
                if name == domain:
                    return margin
        return self.margin

    def threshold_for(self, corpus: str | None) -> float:
        return self.threshold if self.threshold is not None else threshold_for_corpus(corpus)

    def with_(self, **changes: Any) -> ReplayProfile:
        return replace(self, **changes)


REFERENCE_0_3_1 = ReplayProfile(
    name="reference-0.3.1",
    semantic=False,
    pool_policy="runner",
    precision_scope="same_as_recall",
    broken_evidence="score",
    zero_rate_is_null=False,
    domain_gate_fallback=False,
    fill_missed=True,
    wilson=False,
)

WORKBENCH = ReplayProfile(name="workbench", semantic=True)

#: The default a store replays with until its team adopts another (core.store.profile_repo): what
#: the calibration lab chose on the shared corpus (issue 26; docs/replay.md "The lab-2026-12
#: profile", docs/lab.md "Sixth attempt"). The lab's setting ``reference-0.3.1 no-failure-class sem
#: thr=0.60 m=0.10 failure-gate=domain w=0.20 cos>=0.70 embed=haystack alias=0.50
#: prec=same_as_recall twins>=0.90``, decision for decision, plus the workbench's honest read-outs
#: (a rate over nothing is null, rates carry Wilson intervals), which decide nothing.
LAB_2026_12 = REFERENCE_0_3_1.with_(
    name="lab-2026-12",
    semantic=True,
    threshold=0.60,
    matcher=replace(MATCHER_REFERENCE, name="lab-2026-12", semantic=True, semantic_floor=0.70,
                    alias_token_floor=0.50, semantic_target=SemanticTarget.HAYSTACK),
    read_failure_class=False,
    failure_gate_fallback=True,
    twin_rules=0.90,
    zero_rate_is_null=True,
    wilson=True,
)

PROFILES: dict[str, ReplayProfile] = {p.name: p for p in (REFERENCE_0_3_1, WORKBENCH, LAB_2026_12)}


def profile_by_name(name: str) -> ReplayProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown replay profile {name!r}; known: {sorted(PROFILES)}") from None
