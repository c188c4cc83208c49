"""Source neighbours: a rule's cosine blended with its source's (issue 26, the fifth attempt at the
acceptance figure; docs/lab.md "Fifth attempt"). Research on the lab's pair scores.

A rule is a lossy summary of the failure it was written from. *Source-neighbour evidence* (label-free:
it reads the rule's source, as every pool does, and the trajectories' haystacks with failure_class
withheld) replaces the cosine of rule r to failure t by

    (1 - lam) * cos(r, t) + lam * max over r's sources s in the run of cos(haystack(s), haystack(t))

(a rule whose source is not in the run keeps its own cosine). The blended cosine then goes through
replay's unchanged composition, floors, pools and verdicts (a new ``ScoredPairs`` with that cosine and
the lab's ``ClaimDecider``), so a setting's claims are what replay would decide with that cosine.

Measured first, on the TUNING classes only (seed 26, ``--probe``), before this family was
fixed: the AUC of same-domain positives against negatives is 0.915 for the source cosine, 0.910 for
the rule's condition-vs-haystack cosine and 0.941 for their mean (the label-reading signature: 0.918).

The family, fixed before any held-back figure was read (2026-12-03 19:40 UTC): the label-free base of
the third attempt (reference base, failure_class withheld, failure gate on the domain field, alias
floor 0.50, precision same as recall) x what is embedded for the rule (condition_vs_haystack,
haystack; the trajectory side is the haystack in both) x threshold (per corpus, 0.4, 0.5, 0.6) x
semantic floor (0.45, 0.50, 0.55, 0.58, 0.62, 0.66, 0.70) x lam (0, 0.25, 0.5, 0.75, 1): 280
settings. Per split seed (group split by failure class, 0.4 held back) the lab's rule chooses on
the tuning part only (tuning false-accept no higher than reference-0.3.1 semantic's, then the best
tuning F1, ties: precision, name); its held-back figures are printed beside the reference's, and
beside the same rule restricted to lam = 0 (the family without source neighbours).

    PYTHONPATH=. python benchmarks/lab_neighbours.py --store S [--seeds 26,7,1,2,3,4,5,6,8,9]
    PYTHONPATH=. python benchmarks/lab_neighbours.py --store S --probe   # the AUCs, tuning part only
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab import store_inputs  # noqa: E402
from lab_competition import fmt, print_choice, print_gaps, short_name  # noqa: E402

from core.lab.claims import ClaimDecider, Claims  # noqa: E402
from core.lab.readouts import Reader  # noqa: E402
from core.lab.scores import ScoredPairs  # noqa: E402
from core.lab.settings import REFERENCE_SEMANTIC, Setting  # noqa: E402
from core.lab.split import group_split, rule_groups  # noqa: E402
from core.lab.truths import failure_class_proxy  # noqa: E402
from core.matching import semantic as msemantic  # noqa: E402
from core.matching.profile import SemanticTarget  # noqa: E402
from core.replay import engine  # noqa: E402
from core.replay import matcher_bridge as mb  # noqa: E402

TARGETS = ("condition_vs_haystack", "haystack")
THRESHOLDS: tuple[float | None, ...] = (None, 0.4, 0.5, 0.6)
FLOORS = (0.45, 0.50, 0.55, 0.58, 0.62, 0.66, 0.70)
LAMS = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class Row:
    setting: Setting
    lam: float
    claims: Claims

    @property
    def label(self) -> str:
        return f"{short_name(self.setting)} source-weight={self.lam}"


def source_cosines(rules: Sequence, trajectories: Sequence, reader: Reader, embed) -> np.ndarray:  # type: ignore[no-untyped-def]
    """[R, T]: the best cosine of each rule's sources' haystacks to each trajectory's haystack
    (failure_class withheld); NaN for a rule with no source in the run."""
    seen = engine.withhold_failure_class(trajectories)
    base = replace(mb.matcher_profile(None, semantic=True), semantic_target=SemanticTarget.HAYSTACK)
    views, *_ = engine.build_trajectory_side(seen, base, None, None)
    _, primary, _ = msemantic.semantic_pairs([], list(views), base)
    vectors = np.asarray(embed(primary), dtype=np.float64)
    similar = vectors @ vectors.T
    out = np.full((len(rules), len(trajectories)), np.nan)
    rows, cols = np.divmod(reader.source_pairs, len(trajectories))
    for row, col in zip(rows.tolist(), cols.tolist(), strict=True):
        out[row] = np.fmax(out[row], similar[col])
    return out


def family_rows(store: Path) -> tuple[list[Row], Reader, list, list, Claims]:  # type: ignore[type-arg]
    rules, trajectories, embed = store_inputs(store)
    reader = Reader(rules, trajectories)
    source = source_cosines(rules, trajectories, reader, embed)
    rows: list[Row] = []
    deciders: dict[tuple[str, float], ClaimDecider] = {}
    for target, lam in itertools.product(TARGETS, LAMS):
        scored = ScoredPairs.build(rules, trajectories, embed=embed, read_failure_class=False,
                                   semantic_target=SemanticTarget(target))
        assert scored.cosine is not None
        blended = np.where(np.isnan(source), scored.cosine, (1 - lam) * scored.cosine + lam * np.nan_to_num(source))
        deciders[(target, lam)] = ClaimDecider(replace(scored, cosine=blended, _composed={}, _lexical_pairs=None))
    for target, threshold, floor, lam in itertools.product(TARGETS, THRESHOLDS, FLOORS, LAMS):
        setting = Setting(base="reference-0.3.1", threshold=threshold, semantic_floor=floor, alias_floor=0.5,
                          precision_scope="same_as_recall", read_failure_class=False, failure_gate_fallback=True,
                          semantic_target=target)
        rows.append(Row(setting, lam, deciders[(target, lam)].decide(setting.profile())))
    ref_decider = ClaimDecider(ScoredPairs.build(rules, trajectories, embed=embed))
    return rows, reader, rules, trajectories, ref_decider.decide(REFERENCE_SEMANTIC.profile())


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())


def probe(store: Path) -> None:
    """Same-domain positives against negatives on the TUNING part of the seed-26 split: the AUC of
    the source cosine, the rule's own (condition vs haystack) and their mean and max."""
    rules, trajectories, embed = store_inputs(store)
    reader = Reader(rules, trajectories)
    source = source_cosines(rules, trajectories, reader, embed)
    own = ScoredPairs.build(rules, trajectories, embed=embed, read_failure_class=False,
                            semantic_target=SemanticTarget.CONDITION_VS_HAYSTACK).cosine
    assert own is not None
    truth = failure_class_proxy(rules, trajectories)
    groups = rule_groups(rules, trajectories, "failure_class")
    tuning = set(group_split({k: groups[k] for k in truth.rules}, "failure_class", 0.4, 26).tuning)
    values: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n in ("source", "rule", "mean", "max")}
    for i, rule in enumerate(rules):
        if rule.key not in tuning or np.isnan(source[i]).all():
            continue
        for j, t in enumerate(trajectories):
            if t.key in truth.universe[rule.key] and t.domain == rule.domain:
                side = 0 if t.key in truth.positives[rule.key] else 1
                s, c = source[i, j], own[i, j]
                for name, v in (("source", s), ("rule", c), ("mean", (s + c) / 2), ("max", max(s, c))):
                    values[name][side].append(float(v))
    for name, (pos, neg) in values.items():
        print(f"tuning  {name:6s} positives n={len(pos)} median {np.median(pos):.3f}  negatives n={len(neg)} "
              f"median {np.median(neg):.3f}  AUC {auc(np.asarray(pos), np.asarray(neg)):.3f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--seeds", default="26,7,1,2,3,4,5,6,8,9")
    parser.add_argument("--probe", action="store_true", help="only the AUCs on the tuning part")
    args = parser.parse_args(argv)
    if args.probe:
        probe(args.store)
        return 0
    rows, reader, rules, trajectories, reference = family_rows(args.store)
    truth = failure_class_proxy(rules, trajectories)
    groups = rule_groups(rules, trajectories, "failure_class")
    print(f"{args.store}: {len(rules)} rules x {len(trajectories)} trajectories; {len(rows)} settings")
    subfamilies = {"lam = 0": lambda r: r.lam == 0.0, "source neighbours": lambda r: True}
    gaps: dict[str, list[float]] = {name: [] for name in subfamilies}
    for seed in (int(s) for s in args.seeds.split(",")):
        split = group_split({k: groups[k] for k in truth.rules}, "failure_class", 0.4, seed)
        parts = {"tuning": split.tuning, "held_back": split.held_back}
        ref = reader.read_parts(reference, truth, parts)
        read = [(row, reader.read_parts(row.claims, truth, parts)) for row in rows]
        fair = [(row, r) for row, r in read
                if (r["tuning"].false_accept.value or 0.0) <= (ref["tuning"].false_accept.value or 0.0)]
        ref_f1 = ref["held_back"].f1.value or 0.0
        print(f"seed {seed}: {len(split.tuning)} tuning / {len(split.held_back)} held-back rules; "
              f"reference-0.3.1 semantic held-back {fmt(ref['held_back'])} (tuning F1 {ref['tuning'].f1.value:.3f})")
        for name, keep in subfamilies.items():
            gaps[name].append(print_choice(name, 17, ((row.label, r) for row, r in fair if keep(row)), ref_f1))
    print_gaps(gaps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
