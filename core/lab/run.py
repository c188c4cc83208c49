"""A lab run: score once, sweep the settings, read each against every truth on both parts of
the split, check the canaries, flag circular settings, and choose on the tuning part only.

The choice, per truth that has data: among the settings that are neither circular for that
truth nor blind to a canary, and whose false-accept rate on the rejection corpora (tuning part)
is no higher than reference-0.3.1 semantic's, the best F1 of ``prevented`` on the tuning part
(ties: higher precision, then the name). Its figures are then reported on the held-back part
beside reference-0.3.1 semantic's; it is ``shippable`` only when it beats the reference's F1
there (the reference's F1 below the chosen setting's interval) without a higher false-accept
rate. Figures on all data are shown too, marked as such: they are never what a choice rests on.

When reference-0.3.1 semantic itself reads the field a truth is built from (it reads
``failure_class``, the proxy's label), its figures under that truth are circular: the choice is
still judged against it (the issue's bar), and the same reference with the field withheld
(``REFERENCE_WITHHELD``) is reported beside it, as the comparator that truth can judge fairly.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.lab.canaries import CanaryBench, CanaryVerdict, load_canaries
from core.lab.claims import ClaimDecider
from core.lab.readouts import Reader, ReadOut
from core.lab.scores import EmbedFn, ScoredPairs
from core.lab.settings import REFERENCE_SEMANTIC, REFERENCE_WITHHELD, WORKBENCH_DEFAULT, Setting, default_grid
from core.lab.split import DEFAULT_HELD_BACK, DEFAULT_SEED, Split, group_split, rule_groups
from core.lab.truths import ReviewerJudgement, Truth, expected_rule_truth, failure_class_proxy, reviewer_truth
from core.matching.profile import SemanticTarget
from core.replay.types import ReplayRule, ReplayTrajectory

PARTS = ("tuning", "held_back", "all")


class LabCancelled(Exception):
    """The run was cancelled between settings."""


def circular_for(setting: Setting, truth: Truth) -> list[str]:
    """What the setting reads that the truth is built from (empty: not circular)."""
    return [r for r in setting.reads() if r.split(":", 1)[0] == truth.field]


@dataclass(frozen=True)
class Resplit:
    """The choice rule re-run on another seed's split: what it chose on that tuning part, and its
    held-back F1 and false-accept rate beside reference-0.3.1 semantic's on that held-back part."""

    seed: int
    chosen: str | None
    f1: float | None
    reference_f1: float | None
    false_accept: float | None
    reference_false_accept: float | None

    @property
    def above(self) -> bool:
        return self.f1 is not None and self.reference_f1 is not None and self.f1 > self.reference_f1

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "chosen": self.chosen, "f1": self.f1, "reference_f1": self.reference_f1,
                "false_accept": self.false_accept, "reference_false_accept": self.reference_false_accept,
                "above": self.above}


def resplit_seeds(seed: int, count: int) -> list[int]:
    """``count`` seeds other than ``seed``: 1, 2, 3, ... skipping it (so ``seed`` 26 and 9 re-splits
    read seeds 1-9, the ten splits docs/lab.md reports)."""
    return [s for s in range(1, count + 2) if s != seed][:count]


@dataclass
class Choice:
    truth: str
    chosen: str | None
    reason: str
    chosen_held_back: ReadOut | None = None
    reference_held_back: ReadOut | None = None
    shippable: bool = False
    reference_reads: tuple[str, ...] = ()  # what the reference reads of this truth's field (circular)
    withheld: str | None = None  # the reference with that field withheld, when the reference is circular
    withheld_held_back: ReadOut | None = None
    #: the same choice rule re-run on other seeds' splits (``run_lab(resplits=N)``): one row per seed
    resplits: list[Resplit] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"truth": self.truth, "chosen": self.chosen, "reason": self.reason, "shippable": self.shippable,
                "resplits": [r.to_dict() for r in self.resplits],
                "chosen_held_back": None if self.chosen_held_back is None else self.chosen_held_back.to_dict(),
                "reference_held_back": None if self.reference_held_back is None
                else self.reference_held_back.to_dict(),
                "reference_reads": list(self.reference_reads), "withheld": self.withheld,
                "withheld_held_back": None if self.withheld_held_back is None else self.withheld_held_back.to_dict()}


@dataclass
class LabResult:
    settings: list[Setting]
    truths: dict[str, Truth]
    splits: dict[str, Split]
    readouts: dict[str, dict[str, dict[str, ReadOut]]]  # setting -> truth -> part -> figures
    canaries: dict[str, CanaryVerdict]
    circular: dict[str, dict[str, list[str]]]  # setting -> truth -> fields read
    choices: dict[str, Choice]
    scores_key: str
    model_id: str | None
    pairs: int
    seconds: dict[str, float] = field(default_factory=dict)
    # truth -> setting -> source domain of the rules -> figures on all of the truth's rules
    per_domain: dict[str, dict[str, dict[str, ReadOut]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scores": {"key": self.scores_key, "model_id": self.model_id, "pairs": self.pairs},
            "seconds": self.seconds,
            "truths": {n: t.describe() for n, t in self.truths.items()},
            "splits": {n: s.to_dict() for n, s in self.splits.items()},
            "choices": {n: c.to_dict() for n, c in self.choices.items()},
            "per_domain": {t: {s: {d: r.to_dict() for d, r in doms.items()} for s, doms in rows.items()}
                           for t, rows in self.per_domain.items()},
            "settings": [{
                **s.to_dict(), "reads": list(s.reads()), "canaries": self.canaries[s.name].to_dict(),
                "circular_for": {t: f for t, f in self.circular[s.name].items() if f},
                "readouts": {t: {p: r.to_dict() for p, r in parts.items()}
                             for t, parts in self.readouts[s.name].items()},
            } for s in self.settings],
        }


def run_lab(
    rules: Sequence[ReplayRule],
    trajectories: Sequence[ReplayTrajectory],
    embed: EmbedFn | None = None,
    settings: Sequence[Setting] | None = None,
    judgements: Sequence[ReviewerJudgement] = (),
    group_by: str = "failure_class",
    held_back: float = DEFAULT_HELD_BACK,
    seed: int = DEFAULT_SEED,
    progress: Callable[[str, int, int], None] | None = None,
    cancel: Any = None,
    scored: ScoredPairs | None = None,
    resplits: int = 0,
) -> LabResult:
    """``progress(phase, done, total)``; ``cancel``: anything with ``is_set()``, checked between
    settings (raises ``LabCancelled``). ``scored``: pair scores of an earlier run on the same
    rules, trajectories and model (reused as they are). ``resplits``: also re-run the choice rule
    on that many other seeds' splits (``Choice.resplits``: is a choice one split's luck?)."""
    settings = list(settings or default_grid())
    if REFERENCE_SEMANTIC.name not in {s.name for s in settings}:
        settings.insert(0, REFERENCE_SEMANTIC)
    # The withheld comparator is read beside the reference; added here, it is never chosen
    # (a sweep's choice is among the settings it was asked for; the default grid has it).
    comparator_only = frozenset(() if REFERENCE_WITHHELD.name in {s.name for s in settings} else (REFERENCE_WITHHELD.name,))
    if comparator_only:
        settings.insert(1, REFERENCE_WITHHELD)
    started = time.perf_counter()
    seconds: dict[str, float] = {}
    if scored is None:
        scored = ScoredPairs.build(rules, trajectories, embed=embed,
                                   progress=(lambda d, t: progress("scoring", d, t)) if progress else None)
    seconds["scoring"] = time.perf_counter() - started
    by_flag = {(scored.read_failure_class, scored.semantic_target): ClaimDecider(scored)}

    def scorer(scoring: tuple[bool, SemanticTarget]) -> ClaimDecider:
        """Settings that withhold failure_class (other views) or embed other texts (other cosines)
        need their own scores, made once per kind (``Setting.scoring``)."""
        if scoring not in by_flag:
            began = time.perf_counter()
            read_failure_class, target = scoring
            by_flag[scoring] = ClaimDecider(ScoredPairs.build(
                scored.rules, scored.trajectories, embed=embed if scored.cosine is not None else None,
                read_failure_class=read_failure_class, semantic_target=target,
                trigger_vectors=scored.trigger_vectors))
            label = "scoring" + ("" if read_failure_class else "_without_failure_class")
            if target is not SemanticTarget.SIGNATURE_THEN_CLASSFREE:
                label += f"_embed_{target.value}"
            seconds[label] = time.perf_counter() - began
        return by_flag[scoring]

    truths = {t.name: t for t in (failure_class_proxy(scored.rules, scored.trajectories),
                                  expected_rule_truth(scored.rules, scored.trajectories),
                                  reviewer_truth(judgements, scored.trajectories))}
    groups = rule_groups(scored.rules, scored.trajectories, group_by)
    truth_groups = {name: {k: groups[k] for k in truth.rules} for name, truth in truths.items()}
    splits = {name: group_split(truth_groups[name], group_by, held_back, seed) for name in truths}
    # Each re-split's two parts are read in the same pass as the main split's (per-rule counts once).
    extra_parts: dict[str, dict[str, Collection[str]]] = {name: {} for name in truths}
    for name, other in itertools.product(truths, resplit_seeds(seed, resplits)):
        split = group_split(truth_groups[name], group_by, held_back, other)
        extra_parts[name].update({f"tuning@{other}": split.tuning, f"held_back@{other}": split.held_back})
    resplit_readouts: dict[str, dict[str, dict[str, ReadOut]]] = {}
    bench = CanaryBench(load_canaries(), embed if scored.cosine is not None else None)
    reader = Reader(scored.rules, scored.trajectories)
    readouts: dict[str, dict[str, dict[str, ReadOut]]] = {}
    canaries: dict[str, CanaryVerdict] = {}
    circular: dict[str, dict[str, list[str]]] = {}
    sweep_started = time.perf_counter()
    for done, setting in enumerate(settings, 1):
        if cancel is not None and cancel.is_set():
            raise LabCancelled()
        claims = scorer(setting.scoring).decide(setting.profile(scored.model_id))
        read = {name: reader.read_parts(claims, truth, {"tuning": splits[name].tuning,
                                                        "held_back": splits[name].held_back, "all": truth.rules,
                                                        **extra_parts[name]})
                for name, truth in truths.items()}
        readouts[setting.name] = {name: {p: r for p, r in parts.items() if "@" not in p} for name, parts in read.items()}
        resplit_readouts[setting.name] = {name: {p: r for p, r in parts.items() if "@" in p}
                                          for name, parts in read.items()}
        canaries[setting.name] = bench.check(setting)
        circular[setting.name] = {name: circular_for(setting, truth) for name, truth in truths.items()}
        if progress is not None:
            progress("sweep", done, len(settings))
    seconds["sweep"] = time.perf_counter() - sweep_started
    candidates = [s for s in settings if s.name not in comparator_only]
    choices = {name: _with_withheld(_choose(name, truth, candidates, readouts, canaries, circular), readouts, circular)
               for name, truth in truths.items()}
    for name, truth in truths.items():
        choices[name].resplits = [_resplit(name, truth, other, candidates, resplit_readouts, canaries, circular)
                                  for other in resplit_seeds(seed, resplits)]
    per_domain = _per_domain(scorer, settings, truths, choices, reader)
    seconds["total"] = time.perf_counter() - started
    return LabResult(settings, truths, splits, readouts, canaries, circular, choices, scored.key, scored.model_id,
                     scored.pairs, seconds, per_domain)


def _per_domain(scorer: Callable[[tuple[bool, SemanticTarget]], ClaimDecider], settings: Sequence[Setting],
                truths: dict[str, Truth], choices: dict[str, Choice], reader: Reader) -> dict[str, dict[str, dict[str, ReadOut]]]:
    """The reference, the Workbench default and each chosen setting, per source domain of the rules."""
    by_name = {s.name: s for s in settings}
    wanted = [REFERENCE_SEMANTIC.name, WORKBENCH_DEFAULT.name] + [c.chosen for c in choices.values() if c.chosen]
    scored = scorer((True, SemanticTarget.SIGNATURE_THEN_CLASSFREE)).scored
    domain_of = {r.key: r.domain or "(no domain)" for r in scored.rules}
    out: dict[str, dict[str, dict[str, ReadOut]]] = {}
    for name in dict.fromkeys(w for w in wanted if w in by_name):
        setting = by_name[name]
        results = scorer(setting.scoring).decide(setting.profile(scored.model_id))
        for truth_name, truth in truths.items():
            if truth.empty:
                continue
            domains = sorted({domain_of[k] for k in truth.rules})
            out.setdefault(truth_name, {})[name] = reader.read_parts(
                results, truth, {d: [k for k in truth.rules if domain_of[k] == d] for d in domains})
    return out


def _choose(
    name: str, truth: Truth, settings: Sequence[Setting], readouts: dict[str, dict[str, dict[str, ReadOut]]],
    canaries: dict[str, CanaryVerdict], circular: dict[str, dict[str, list[str]]],
) -> Choice:
    if truth.empty:
        return Choice(name, None, "no data for this truth")
    reference = readouts[REFERENCE_SEMANTIC.name][name]
    ref_accept = reference["tuning"].false_accept.value
    eligible = [s for s in settings if not circular[s.name][name] and not canaries[s.name].flagged
                and readouts[s.name][name]["tuning"].f1.value is not None]
    if not eligible:
        every = sorted({r for s in settings for r in circular[s.name][name]})
        return Choice(name, None, "every setting is circular for this truth (reads " + ", ".join(every)
                      + ") or blind to a canary: nothing may be chosen on it",
                      reference_held_back=reference["held_back"])
    fair = [s for s in eligible if ref_accept is None
            or (readouts[s.name][name]["tuning"].false_accept.value or 0.0) <= ref_accept]
    if not fair:
        return Choice(name, None, "no eligible setting keeps the reference's false-accept rate on the tuning part",
                      reference_held_back=reference["held_back"])

    def rank(s: Setting) -> tuple[float, float, str]:
        tuning = readouts[s.name][name]["tuning"]
        return (-(tuning.f1.value or 0.0), -(tuning.precision.value or 0.0), s.name)

    best = min(fair, key=rank)
    chosen, ref = readouts[best.name][name]["held_back"], reference["held_back"]
    beats = (chosen.f1.value is not None and ref.f1.value is not None and chosen.f1.value > ref.f1.value)
    keeps = (chosen.false_accept.value is None or ref.false_accept.value is None
             or chosen.false_accept.value <= ref.false_accept.value)
    reason = ("beats reference-0.3.1 semantic on held-back F1 with no higher false-accept rate" if beats and keeps
              else "chosen on the tuning part, but on the held-back part it does not beat reference-0.3.1 semantic"
              + ("" if keeps else " and accepts more rejection trajectories"))
    clear = True
    if beats and chosen.f1.ci is not None and ref.f1.value is not None and chosen.f1.ci[0] <= ref.f1.value:
        clear = False
        gap = (chosen.f1.value or 0.0) - ref.f1.value
        reason += (f", but only by {gap:.3f}: the reference's F1 is inside the chosen setting's interval, "
                   "not a clear win")
    return Choice(name, best.name, reason, chosen, ref, shippable=beats and keeps and clear)


def _resplit(name: str, truth: Truth, other: int, settings: Sequence[Setting],
             resplit_readouts: dict[str, dict[str, dict[str, ReadOut]]], canaries: dict[str, CanaryVerdict],
             circular: dict[str, dict[str, list[str]]]) -> Resplit:
    """The choice rule (``_choose``, unchanged) on seed ``other``'s tuning part, read on its held-back part."""
    parts = {s: {name: {"tuning": by_truth[name][f"tuning@{other}"], "held_back": by_truth[name][f"held_back@{other}"]}}
             for s, by_truth in resplit_readouts.items()}
    choice = _choose(name, truth, settings, parts, canaries, circular)

    def value(row: ReadOut | None, figure: str) -> float | None:
        return None if row is None else getattr(row, figure).value

    return Resplit(other, choice.chosen, value(choice.chosen_held_back, "f1"), value(choice.reference_held_back, "f1"),
                   value(choice.chosen_held_back, "false_accept"), value(choice.reference_held_back, "false_accept"))


def _with_withheld(choice: Choice, readouts: dict[str, dict[str, dict[str, ReadOut]]],
                   circular: dict[str, dict[str, list[str]]]) -> Choice:
    """Name what the reference reads of the truth's field and, where withholding it makes a
    comparator the truth can judge, add that comparator's held-back figures and how the chosen
    setting stands against them (shippability stays judged against the reference itself)."""
    reads = tuple(circular[REFERENCE_SEMANTIC.name][choice.truth])
    if not reads or choice.reference_held_back is None:
        return choice
    choice.reference_reads = reads
    choice.reason += (f"; reference-0.3.1 semantic reads {', '.join(reads)}, what this truth is built from, "
                      "so its figures here are circular")
    if circular[REFERENCE_WITHHELD.name][choice.truth]:
        return choice
    withheld = readouts[REFERENCE_WITHHELD.name][choice.truth]["held_back"]
    choice.withheld, choice.withheld_held_back = REFERENCE_WITHHELD.name, withheld
    mine, theirs = (choice.chosen_held_back.f1.value if choice.chosen_held_back else None), withheld.f1.value
    if mine is not None and theirs is not None:
        choice.reason += (f"; with failure_class withheld the reference reaches held-back F1 {theirs:.3f}, and "
                          f"the chosen setting's {mine:.3f} is " + ("above" if mine > theirs else "not above") + " it")
    return choice
