"""Settings the lab sweeps: each is a ``ReplayProfile`` a full replay can run, plus what it reads.

Only knobs that ``ScoredPairs.decide`` (and ``core.lab.claims``) re-apply exactly are swept (see
core/lab/scores.py): thresholds and margins (flat, per corpus, per domain), the semantic weight
and floor, the alias floor, the recall pool's policy and scope (domain, source corpus, failure
class, none), what a rule without a domain falls back to, the precision scope, broken evidence,
the domain gates, withholding failure_class, and what is embedded (``semantic_target``: its own
``ScoredPairs`` per target). Not swept: the lexical weights and the alias weight inside token F1.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, replace
from typing import Any

from core.matching.profile import REFERENCE_0_3_1 as MATCHER_REFERENCE
from core.matching.profile import SemanticTarget
from core.replay.profiles import REFERENCE_0_3_1, WORKBENCH, ReplayProfile

#: Fields of a record that every matcher setting reads, and where (docs/lab.md "No circular truth").
#: The haystack holds the ``failure_class`` label's words, the matcher's domain guard reads its
#: first segment, and the recovered-run classifier reads its segments: every profile replay can
#: run today reads ``failure_class``, the reference included.
MATCHER_READS: tuple[str, ...] = (
    "failure_class:haystack_text", "failure_class:domain_guard", "failure_class:recovery",
)


@dataclass(frozen=True)
class Setting:
    """One point of a sweep. ``threshold`` None: the per-corpus threshold (0.3.1's)."""

    base: str = "workbench"  # "workbench" | "reference-0.3.1": the replay choices it starts from
    semantic: bool = True
    threshold: float | None = None
    margin: float = 0.10
    semantic_weight: float = MATCHER_REFERENCE.semantic_embed_weight
    semantic_floor: float = MATCHER_REFERENCE.semantic_floor
    alias_floor: float = MATCHER_REFERENCE.alias_token_floor
    pool_policy: str | None = None  # None: the base's
    precision_scope: str | None = None
    broken_evidence: str | None = None
    domain_gate_fallback: bool | None = None
    read_failure_class: bool = True  # False: the run withholds failure_class (not circular for the proxy)
    failure_gate_fallback: bool = False  # gate unlabelled failures on their domain field
    recall_scope: str | None = None  # None: the base's (domain); corpus | failure_class | none
    unscoped_pool: str | None = None  # None: the base's (all); corpus | none (a rule without a domain)
    domain_margins: tuple[tuple[str, float], ...] = ()  # (domain, margin): a margin per source domain
    #: what is embedded (a ``SemanticTarget`` value): another target is another ``ScoredPairs``
    semantic_target: str = SemanticTarget.SIGNATURE_THEN_CLASSFREE.value
    #: None: off; a cosine: a rule also claims its twins' source failures (core.replay.twins)
    twin_rules: float | None = None

    @property
    def name(self) -> str:
        thr = "corpus" if self.threshold is None else f"{self.threshold:.2f}"
        parts = [self.base, "sem" if self.semantic else "lex", f"thr={thr}", f"m={self.margin:.2f}"]
        if not self.read_failure_class:
            parts.insert(1, "no-failure-class")
        if self.failure_gate_fallback:
            parts.append("failure-gate=domain")
        if self.semantic:
            parts += [f"w={self.semantic_weight:.2f}", f"cos>={self.semantic_floor:.2f}"]
            if self.semantic_target != SemanticTarget.SIGNATURE_THEN_CLASSFREE.value:
                parts.append(f"embed={self.semantic_target}")
        parts.append(f"alias={self.alias_floor:.2f}")
        for label, value in (("pool", self.pool_policy), ("prec", self.precision_scope),
                             ("broken", self.broken_evidence), ("gate", self.domain_gate_fallback),
                             ("recall-scope", self.recall_scope), ("no-domain", self.unscoped_pool)):
            if value is not None:
                parts.append(f"{label}={value}")
        if self.domain_margins:
            parts.append("margins=" + ",".join(f"{d}:{m:.2f}" for d, m in self.domain_margins))
        if self.twin_rules is not None:
            parts.append(f"twins>={self.twin_rules:.2f}" if self.semantic else "twins=same-text")
        return " ".join(parts)

    def profile(self, model_id: str | None = None) -> ReplayProfile:
        """The replay profile this setting is (what ``replay`` runs, what a profile would store)."""
        base = WORKBENCH if self.base == "workbench" else REFERENCE_0_3_1
        matcher = replace(MATCHER_REFERENCE, name=f"lab:{self.name}", semantic=self.semantic,
                          semantic_embed_weight=self.semantic_weight, semantic_floor=self.semantic_floor,
                          alias_token_floor=self.alias_floor,
                          semantic_target=SemanticTarget(self.semantic_target))
        changes: dict[str, Any] = {"name": f"lab:{self.name}", "semantic": self.semantic,
                                   "threshold": self.threshold, "margin": self.margin, "matcher": matcher,
                                   "model_id": model_id, "read_failure_class": self.read_failure_class,
                                   "failure_gate_fallback": self.failure_gate_fallback}
        if self.domain_margins:
            changes["domain_margins"] = self.domain_margins
        if self.twin_rules is not None:
            changes["twin_rules"] = self.twin_rules
        for name in ("pool_policy", "precision_scope", "broken_evidence", "domain_gate_fallback", "recall_scope",
                     "unscoped_pool"):
            value = getattr(self, name)
            if value is not None:
                changes[name] = value
        return base.with_(**changes)

    @property
    def scoring(self) -> tuple[bool, SemanticTarget]:
        """Which ``ScoredPairs`` decides this setting: (reads failure_class, what is embedded;
        a lexical setting embeds nothing, so any target's scores decide it alike)."""
        target = SemanticTarget(self.semantic_target) if self.semantic else SemanticTarget.SIGNATURE_THEN_CLASSFREE
        return self.read_failure_class, target

    def reads(self) -> tuple[str, ...]:
        """The record fields this setting scopes, filters or scores by."""
        profile = self.profile()
        fields = list(MATCHER_READS) if self.read_failure_class else []
        # What the recall pool is sliced by (a withheld failure_class slices nothing).
        scope = {"domain": "domain", "corpus": "corpus", "none": None,
                 "failure_class": "failure_class" if self.read_failure_class else None}[profile.recall_scope]
        if scope is not None:
            fields.append(f"{scope}:recall_pool")
            if profile.unscoped_pool == "corpus" and scope != "corpus":
                fields.append("corpus:recall_pool")
        if profile.precision_scope == "same_as_recall" and scope is not None:
            fields.append(f"{scope}:precision_pool")
        elif profile.precision_scope == "domain_if_gated":
            fields.append("domain:precision_pool")
        elif profile.precision_scope == "corpus":
            fields.append("corpus:precision_pool")
        if profile.domain_margins:
            fields.append("domain:margin")
        if profile.domain_gate_fallback:
            fields.append("domain:success_gate")
        if profile.failure_gate_fallback:
            fields.append("domain:failure_gate")
        if self.threshold is None:
            fields.append("corpus:threshold")
        if profile.twin_rules is not None:
            # Twins compare rules' triggers, and a rule materialised from a record's expected_rule
            # has that field as its trigger: its twins' sources are that truth's positives.
            fields.append("expected_rule:twin_rules")
        return tuple(fields)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data: what ``report.json`` keeps reads back equal (pairs as lists, not tuples)."""
        return {"name": self.name, **asdict(self), "domain_margins": [list(p) for p in self.domain_margins]}


REFERENCE_SEMANTIC = Setting(base="reference-0.3.1", semantic=True)
#: The reference with failure_class withheld: the comparator a failure-class truth can judge
#: (``REFERENCE_SEMANTIC`` reads the label that truth is built from; core.lab.run "withheld").
REFERENCE_WITHHELD = Setting(base="reference-0.3.1", semantic=True, read_failure_class=False)
REFERENCE_LEXICAL = Setting(base="reference-0.3.1", semantic=False)
WORKBENCH_DEFAULT = Setting()


def default_grid() -> list[Setting]:
    """The standard sweep: the two shipped profiles (both bases, lexical and semantic), then the
    seeds' questions over the workbench base: thresholds and margins, semantic weights 0.2-0.5
    with the semantic floor, the alias floor, and the reference's pool and precision choices."""
    grid: list[Setting] = [REFERENCE_LEXICAL, REFERENCE_SEMANTIC, Setting(semantic=False), WORKBENCH_DEFAULT]
    for threshold, margin in itertools.product((None, 0.5, 0.6, 0.7), (0.05, 0.10, 0.20)):
        grid.append(Setting(threshold=threshold, margin=margin))
    for threshold, weight, floor in itertools.product((None, 0.5, 0.6, 0.7), (0.2, 0.3, 0.4, 0.5), (0.62, 0.80)):
        grid.append(Setting(threshold=threshold, semantic_weight=weight, semantic_floor=floor))
    for alias in (0.5, 0.55, 0.65):
        grid.append(Setting(alias_floor=alias))
    for pool, scope in itertools.product(("runner", "exclude_first"), ("same_as_recall", "all", "domain_if_gated")):
        grid.append(Setting(pool_policy=pool, precision_scope=scope))
    for base in ("reference-0.3.1", "workbench"):
        for threshold in (0.5, 0.7):
            grid.append(Setting(base=base, threshold=threshold))
    grid.append(Setting(domain_gate_fallback=False))
    grid.append(Setting(broken_evidence="score"))
    # The same questions with failure_class withheld (the only settings the proxy may choose),
    # without and with a failure gate on the domain field in place of the label's guard.
    for gate in (False, True):
        for base in ("reference-0.3.1", "workbench"):
            grid.append(Setting(base=base, semantic=False, read_failure_class=False, failure_gate_fallback=gate))
        for base, threshold, weight in itertools.product(("reference-0.3.1", "workbench"), (None, 0.6, 0.7),
                                                         (0.2, 0.4)):
            grid.append(Setting(base=base, threshold=threshold, semantic_weight=weight, read_failure_class=False,
                                failure_gate_fallback=gate))
        for pool, scope in itertools.product(("runner", "exclude_first"), ("same_as_recall", "all")):
            grid.append(Setting(pool_policy=pool, precision_scope=scope, read_failure_class=False,
                                failure_gate_fallback=gate))
    grid.append(Setting(failure_gate_fallback=True))
    # The alias-token floor below the threshold (a shared alias token alone no longer matches),
    # with and without the label, on both bases.
    for base, reads, alias in itertools.product(("reference-0.3.1", "workbench"), (True, False), (0.5, 0.55)):
        grid.append(Setting(base=base, alias_floor=alias, read_failure_class=reads, failure_gate_fallback=not reads))
    grid.append(Setting(base="workbench", alias_floor=0.5, precision_scope="same_as_recall"))
    grid.append(Setting(base="workbench", alias_floor=0.5, precision_scope="same_as_recall", read_failure_class=False,
                        failure_gate_fallback=True))
    # Seeds 001 and 002: the recall scope (source corpus, none, and the circular failure class),
    # what a rule without a domain falls back to, a corpus precision pool, a margin per domain.
    for reads in (True, False):
        for scope in ("corpus", "none", "failure_class"):
            grid.append(Setting(base="reference-0.3.1", recall_scope=scope, read_failure_class=reads,
                                failure_gate_fallback=not reads))
        for unscoped in ("corpus", "none"):
            grid.append(Setting(base="reference-0.3.1", unscoped_pool=unscoped, read_failure_class=reads,
                                failure_gate_fallback=not reads))
    grid.append(Setting(precision_scope="corpus"))
    for margins in ((("git", 0.20),), (("git", 0.05),), (("browser", 0.05), ("git", 0.20))):
        grid.append(Setting(domain_margins=margins))
    grid += embedding_grid()
    grid += twin_grid()
    unique: dict[str, Setting] = {}
    for setting in grid:
        unique.setdefault(setting.name, setting)
    return list(unique.values())


def embedding_grid() -> list[Setting]:
    """What is embedded (``MatcherProfile.semantic_target``, issue 26), with failure_class withheld
    and a failure gate on the domain field (the settings the proxy may choose), on both bases:
    each target at the 0.62 floor with the alias floor 0.50 and precision same as recall (the best
    label-free choices of the earlier search), the two haystack targets also at floors 0.55 / 0.58 /
    0.65, the per-corpus and a flat 0.60 threshold; and the label-reading twin of each target
    (circular for the proxy, choosable under expected_rule)."""
    grid: list[Setting] = []
    targets = [t.value for t in SemanticTarget if t is not SemanticTarget.SIGNATURE_THEN_CLASSFREE]
    for target, base in itertools.product(targets, ("reference-0.3.1", "workbench")):
        for threshold in (None, 0.6):
            grid.append(Setting(base=base, threshold=threshold, alias_floor=0.5, precision_scope="same_as_recall",
                                read_failure_class=False, failure_gate_fallback=True, semantic_target=target))
        grid.append(Setting(base=base, semantic_target=target))
    for target, floor in itertools.product(("haystack", "condition_vs_haystack"), (0.55, 0.58, 0.65)):
        grid.append(Setting(base="reference-0.3.1", semantic_floor=floor, alias_floor=0.5,
                            precision_scope="same_as_recall", read_failure_class=False, failure_gate_fallback=True,
                            semantic_target=target))
    return grid


def twin_grid() -> list[Setting]:
    """Twin rules (``core.replay.twins``; docs/lab.md "Sixth attempt"), on the label-free base of
    the embedding grid (reference base, failure_class withheld, failure gate on the domain field,
    alias floor 0.50, precision same as recall): both haystack targets x the per-corpus and a flat
    0.60 threshold x floors 0.58-0.70 x twin cosine 0.90 / 0.95, and the lexical base with twins of
    the same text. A subset of benchmarks/lab_twins.py's pre-registered family, which holds every
    setting that family chose on ten splits."""
    base = {"base": "reference-0.3.1", "alias_floor": 0.5, "precision_scope": "same_as_recall",
            "read_failure_class": False, "failure_gate_fallback": True}
    grid = [Setting(semantic=False, twin_rules=1.0, **base)]  # type: ignore[arg-type]
    for target, threshold, floor, tau in itertools.product(("haystack", "condition_vs_haystack"), (None, 0.6),
                                                           (0.58, 0.62, 0.66, 0.70), (0.90, 0.95)):
        grid.append(Setting(threshold=threshold, semantic_floor=floor, semantic_target=target, twin_rules=tau,
                            **base))  # type: ignore[arg-type]
    return grid
