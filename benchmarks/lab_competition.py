"""Competition between rules, and a floor relative to the rule's own source (issue 26, the fourth
attempt at the acceptance figure; docs/lab.md "Fourth attempt"). Research on the lab's pair
scores, not a replay option: nothing here is shipped.

*Competition* (label-free: it reads only scores): a failure t stays claimed ``prevented`` by rule r
only if r's value on t (the blended score or the cosine) is within delta of the best value any
*competitor* gets on t (``abs``), or r is among the k best (``topk``). Competitors on t: every rule
of the run whose score reaches its own threshold on t without the matcher's domain conflict
(``--competitors reach``), or only the rules that claim t under the setting (``claimers``);
across all rules (``--scope all``) or the rules of r's source domain (``domain``). A rule does not
compete on its own source (by store key or trajectory id): a rule written from t scores high on t
because it was written from it, and would take every other rule's claim on t away
(``--self-competes`` lets it, to show what that changes).
*Self-relative floor* (label-free: it reads the rule's source, as every pool does): r also claims a
failure t of its pool, without a domain conflict, whose cosine reaches alpha x the cosine of r to
its own source. ``--relative-floor z`` replaces it by a floor from the rule's own cosines over the
run (reads only scores): r also claims such a t whose cosine reaches mean + z x standard deviation
of r's cosines to every trajectory (z 2, 2.5, 3, 3.5; and at least 0.40).

The family is fixed before any held-back figure is read: reference base, failure_class withheld,
failure gate on the domain field, alias floor 0.50, precision same as recall; what is embedded
(condition_vs_haystack, haystack, the signature) x threshold (per corpus, 0.4, 0.5, 0.6) x
semantic floor (0.45-0.62) x alpha (none, 0.8, 0.85, 0.9) x competition (none, score / cosine
within 0, 0.05, 0.10, top 3 / 5). Per split seed (group split by failure class, 0.4 held back), the
lab's rule chooses on the tuning part only (tuning false-accept no higher than reference-0.3.1
semantic's, then the best tuning F1, ties: precision, name); its held-back figures are printed
beside the reference's, for four sub-families (plain, + competition, + self-relative floor, both).
``--inner-cv`` chooses by the mean F1 over five inner group splits of the tuning rules instead.
``--ceiling`` adds, for each seed, the best held-back F1 of the family: read after the choice,
a ceiling, never a choice. ``--class-sizes`` prints, on all data and after the choices (an
explanation, never an input), recall by how many proxy rules a failure class has, for one label-free
setting (haystack, threshold 0.60, floor 0.58) without competition and with cosine top 3.

    PYTHONPATH=. python benchmarks/lab_competition.py --store S [--seeds 26,7,1,2,3,4,5,6,8,9]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab import store_inputs  # noqa: E402

from core.lab.claims import ClaimDecider, Claims  # noqa: E402
from core.lab.readouts import Reader, ReadOut  # noqa: E402
from core.lab.scores import ScoredPairs  # noqa: E402
from core.lab.settings import REFERENCE_SEMANTIC, Setting  # noqa: E402
from core.lab.split import group_split, rule_groups  # noqa: E402
from core.lab.truths import Truth, failure_class_proxy  # noqa: E402
from core.matching.profile import SemanticTarget  # noqa: E402
from core.replay import matcher_bridge as mb  # noqa: E402
from core.replay.domains import group_conflict  # noqa: E402

TARGETS = ("condition_vs_haystack", "haystack", "signature_then_classfree")
THRESHOLDS: tuple[float | None, ...] = (None, 0.4, 0.5, 0.6)
FLOORS = (0.45, 0.50, 0.55, 0.58, 0.62)
ALPHAS: tuple[float | None, ...] = (None, 0.8, 0.85, 0.9)
ZS: tuple[float | None, ...] = (None, 2.0, 2.5, 3.0, 3.5)
Z_COSINE_MIN = 0.40
Competition = tuple[str, str, float]  # (value: score | cosine, mode: abs | topk, delta or k)
COMPETITIONS: tuple[Competition | None, ...] = (
    None, *((on, "abs", d) for on in ("score", "cosine") for d in (0.0, 0.05, 0.10)),
    *((on, "topk", k) for on in ("score", "cosine") for k in (3.0, 5.0)))
INNER_SEEDS = (101, 102, 103, 104, 105)


@dataclass(frozen=True)
class Row:
    setting: Setting
    alpha: float | None
    competition: Competition | None
    claims: Claims

    @property
    def label(self) -> str:
        return f"{short_name(self.setting)} relative-floor={self.alpha} competition={self.competition}"


def short_name(setting: Setting) -> str:
    """The setting's name without the parts every setting of the label-free family shares."""
    return setting.name.replace("reference-0.3.1 no-failure-class sem ", "").replace(
        " m=0.10 failure-gate=domain w=0.20", "").replace(" alias=0.50 prec=same_as_recall", "")


class Family:
    """Every setting of the family decided once on the store's rules and trajectories."""

    def __init__(self, store: Path, scope: str, competitors: str, self_competes: bool,
                 relative_floor: str = "alpha") -> None:
        self.rules, self.trajectories, self.embed = store_inputs(store)
        self.reader = Reader(self.rules, self.trajectories)
        self.n_rules, self.n_traj = len(self.rules), len(self.trajectories)
        self.source = np.zeros((self.n_rules, self.n_traj), dtype=bool)
        self.source.ravel()[self.reader.source_pairs] = True
        self.domain = np.asarray([r.domain or "" for r in self.rules])
        self.scope, self.competitors, self.self_competes = scope, competitors, self_competes
        self.relative_floor = relative_floor
        self._deciders: dict[tuple[bool, SemanticTarget], ClaimDecider] = {}

    def decider(self, setting: Setting) -> ClaimDecider:
        if setting.scoring not in self._deciders:
            reads, target = setting.scoring
            self._deciders[setting.scoring] = ClaimDecider(ScoredPairs.build(
                self.rules, self.trajectories, embed=self.embed, read_failure_class=reads, semantic_target=target))
        return self._deciders[setting.scoring]

    def compete(self, setting: Setting, prevented: np.ndarray, competition: Competition) -> np.ndarray:
        """The claims that survive the competition (flat pair indices, sorted)."""
        on, mode, amount = competition
        scored = self.decider(setting).scored
        profile = setting.profile()
        score, _blend, _floor = scored.compose(mb.matcher_profile(profile.matcher, semantic=True), True)
        assert scored.cosine is not None
        value = score if on == "score" else scored.cosine
        if self.competitors == "claimers":
            competes = np.zeros((self.n_rules, self.n_traj), dtype=bool)
            competes.ravel()[prevented] = True
        else:
            thresholds = np.asarray([profile.threshold_for(r.corpus) for r in self.rules])[:, None]
            competes = (score >= thresholds) & ~scored.domain_conflict
        if not self.self_competes:
            competes &= ~self.source
        rival = np.where(competes, value, -np.inf)
        rows, cols = np.divmod(prevented, self.n_traj)
        mine = value[rows, cols]
        best = np.empty(len(rows))
        above = np.empty(len(rows), dtype=np.int64)  # competitors strictly above r on t
        groups = [np.ones(self.n_rules, dtype=bool)] if self.scope == "all" else [
            self.domain == d for d in np.unique(self.domain)]
        for members in groups:
            here = members[rows]
            block = rival[members][:, cols[here]]
            best[here] = block.max(axis=0)
            above[here] = (block > mine[here][None, :]).sum(axis=0)
        keep = mine >= best - amount - 1e-12 if mode == "abs" else above < amount
        return prevented[keep]

    def rows(self) -> list[Row]:
        out: list[Row] = []
        for target, threshold, floor in itertools.product(TARGETS, THRESHOLDS, FLOORS):
            setting = Setting(base="reference-0.3.1", threshold=threshold, semantic_floor=floor, alias_floor=0.5,
                              precision_scope="same_as_recall", read_failure_class=False, failure_gate_fallback=True,
                              semantic_target=target)
            decider = self.decider(setting)
            scored, profile = decider.scored, setting.profile()
            base = decider.decide(profile)
            assert scored.cosine is not None
            if self.relative_floor == "z":
                rule_floor = (scored.cosine.mean(axis=1), scored.cosine.std(axis=1))
                own = np.zeros(self.n_rules)  # every rule has a distribution (no source needed)
            else:
                own = np.where(self.source, scored.cosine, -np.inf).max(axis=1)  # -inf: no source in the run
            failure = scored.index.failure[None, :]
            conflict = scored.domain_conflict | (group_conflict(decider.trigger_codes[:, None],
                                                                scored.fallback_codes[None, :]) & failure)
            open_pairs = failure & ~conflict & decider.pools(profile).union & ~self.source & np.isfinite(own)[:, None]
            for alpha in (ZS if self.relative_floor == "z" else ALPHAS):
                prevented = base.prevented
                if alpha is not None:
                    if self.relative_floor == "z":
                        mean, spread = rule_floor
                        reach = np.maximum(mean + alpha * spread, Z_COSINE_MIN)[:, None]
                    else:
                        reach = alpha * own[:, None]
                    mask = np.zeros(self.n_rules * self.n_traj, dtype=bool)
                    mask[prevented] = True
                    mask |= (open_pairs & (scored.cosine >= reach)).ravel()
                    prevented = np.flatnonzero(mask)
                for competition in COMPETITIONS:
                    kept = prevented if competition is None else self.compete(setting, prevented, competition)
                    out.append(Row(setting, alpha, competition, Claims(self.n_rules, self.n_traj, kept, base.broken)))
        return out


def fmt(o: ReadOut) -> str:
    ci = o.f1.ci or (0.0, 0.0)
    return (f"P {o.precision.value or 0:.3f} R {o.recall.value or 0:.3f} F1 {o.f1.value or 0:.3f} "
            f"[{ci[0]:.3f}, {ci[1]:.3f}] false-accept {o.false_accept.value or 0:.3f}")


SUBFAMILIES: dict[str, Callable[[Row], bool]] = {
    "plain": lambda r: r.alpha is None and r.competition is None,
    "competition": lambda r: r.alpha is None,
    "self-relative": lambda r: r.competition is None,
    "both": lambda r: True,
}


def recall_by_class_size(family: Family, truth: Truth, groups: dict[str, str]) -> None:
    """Recall on all data by the number of proxy rules of the rule's class (8: eight or more)."""
    setting = Setting(base="reference-0.3.1", threshold=0.6, semantic_floor=0.58, alias_floor=0.5,
                      precision_scope="same_as_recall", read_failure_class=False, failure_gate_fallback=True,
                      semantic_target="haystack")
    base = family.decider(setting).decide(setting.profile()).prevented
    size = Counter(groups[k] for k in truth.rules)
    print("classes by proxy rules (8: 8 or more):", sorted(Counter(min(n, 8) for n in size.values()).items()))
    for label, prevented in (("no competition", base),
                             ("cosine top 3", family.compete(setting, base, ("cosine", "topk", 3.0)))):
        hits: dict[int, list[int]] = {}
        for key in truth.rules:
            positives, row = truth.positives[key], family.reader.rule_row[key]
            lo, hi = np.searchsorted(prevented, [row * family.n_traj, (row + 1) * family.n_traj])
            claimed = {family.trajectories[j].key for j in prevented[lo:hi] % family.n_traj}
            count = hits.setdefault(min(size[groups[key]], 8), [0, 0])
            count[0] += len(claimed & positives)
            count[1] += len(positives)
        print(f"  {label}: recall by class size", {n: f"{tp / max(1, p):.2f} of {p}" for n, (tp, p) in sorted(hits.items())})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--seeds", default="26,7,1,2,3,4,5,6,8,9")
    parser.add_argument("--scope", choices=("all", "domain"), default="all")
    parser.add_argument("--competitors", choices=("reach", "claimers"), default="reach")
    parser.add_argument("--self-competes", action="store_true")
    parser.add_argument("--inner-cv", action="store_true")
    parser.add_argument("--ceiling", action="store_true")
    parser.add_argument("--class-sizes", action="store_true")
    parser.add_argument("--relative-floor", choices=("alpha", "z"), default="alpha",
                        help="the per-rule floor: alpha x the cosine to its source, or mean + z sd of its cosines")
    args = parser.parse_args(argv)
    family = Family(args.store, args.scope, args.competitors, args.self_competes, args.relative_floor)
    truth = failure_class_proxy(family.rules, family.trajectories)
    groups = rule_groups(family.rules, family.trajectories, "failure_class")
    rows = family.rows()
    reference = family.decider(REFERENCE_SEMANTIC).decide(REFERENCE_SEMANTIC.profile())
    print(f"{args.store}: {family.n_rules} rules x {family.n_traj} trajectories; {len(rows)} settings; "
          f"scope={args.scope} competitors={args.competitors} self-competes={args.self_competes} "
          f"relative-floor={args.relative_floor} "
          f"choice={'inner group CV on the tuning part' if args.inner_cv else 'tuning F1'}")
    if args.class_sizes:
        recall_by_class_size(family, truth, groups)
        return 0
    gaps: dict[str, list[float]] = {name: [] for name in SUBFAMILIES}
    for seed in (int(s) for s in args.seeds.split(",")):
        split = group_split({k: groups[k] for k in truth.rules}, "failure_class", 0.4, seed)
        inner = {f"inner{i}": group_split({k: groups[k] for k in split.tuning}, "failure_class", 0.4, i).held_back
                 for i in INNER_SEEDS} if args.inner_cv else {}
        parts = {"tuning": split.tuning, "held_back": split.held_back, **inner}
        ref = family.reader.read_parts(reference, truth, parts)
        read = [(row, family.reader.read_parts(row.claims, truth, parts)) for row in rows]
        fair = [(row, r) for row, r in read
                if (r["tuning"].false_accept.value or 0.0) <= (ref["tuning"].false_accept.value or 0.0)]

        def rank(item: tuple[Row, dict[str, ReadOut]]) -> tuple[float, float, float, str]:
            row, r = item
            cv = float(np.mean([r[p].f1.value or 0.0 for p in inner])) if inner else 0.0
            return (-cv, -(r["tuning"].f1.value or 0.0), -(r["tuning"].precision.value or 0.0), row.label)

        ref_f1 = ref["held_back"].f1.value or 0.0
        print(f"seed {seed}: {len(split.tuning)} tuning / {len(split.held_back)} held-back rules; "
              f"reference-0.3.1 semantic held-back {fmt(ref['held_back'])} (tuning F1 {ref['tuning'].f1.value:.3f})")
        for name, keep in SUBFAMILIES.items():
            row, r = min(((row, r) for row, r in fair if keep(row)), key=rank)
            held = r["held_back"].f1.value or 0.0
            gaps[name].append(held - ref_f1)
            print(f"  chosen [{name:13s}] tuning F1 {r['tuning'].f1.value:.3f}  held-back {fmt(r['held_back'])}  "
                  f"{'above' if held > ref_f1 else 'below'} the reference | {row.label}")
        if args.ceiling:
            row, r = max(fair, key=lambda item: item[1]["held_back"].f1.value or 0.0)
            print(f"  POST-HOC CEILING (read after the choice, not a choice): held-back {fmt(r['held_back'])} "
                  f"(tuning F1 {r['tuning'].f1.value:.3f}) | {row.label}")
    print_gaps(gaps)
    return 0


def print_choice(sub: str, width: int, items: Iterable[tuple[str, dict[str, ReadOut]]], ref_f1: float) -> float:
    """The lab's rule among ``(label, parts)`` (best tuning F1, then precision, then label), its
    held-back line printed; returns its held-back F1 minus the reference's."""
    label, r = min(items, key=lambda x: (-(x[1]["tuning"].f1.value or 0.0), -(x[1]["tuning"].precision.value or 0.0),
                                         x[0]))
    held = r["held_back"].f1.value or 0.0
    print(f"  chosen [{sub:{width}s}] tuning F1 {r['tuning'].f1.value:.3f}  held-back {fmt(r['held_back'])}  "
          f"{'above' if held > ref_f1 else 'below'} the reference | {label}")
    return held - ref_f1


def print_gaps(gaps: dict[str, list[float]]) -> None:
    """Per sub-family: in how many splits the choice is above the reference, mean and median gap."""
    width = max(len(name) for name in gaps)
    for name, values in gaps.items():
        above = sum(1 for g in values if g > 0)
        print(f"{name:{width}s}: above the reference's held-back F1 in {above} of {len(values)} splits; "
              f"mean gap {np.mean(values):+.3f}, median {np.median(values):+.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
