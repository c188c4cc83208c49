"""What each embedding target separates (issue 26; docs/lab.md "Third attempt").

For every ``SemanticTarget`` (and the default with the label read), the cosine of each proxy-judged
rule to the judged failures of its own domain: positives (its class) against negatives (other
classes), on the TUNING part of the lab's split (median, AUC). ``--after-choice`` adds, for the
target the lab chose, the share of positives and negatives clearing the 0.62 floor on both parts:
an explanation read after the choice, never an input to it.

    PYTHONPATH=. python benchmarks/lab_targets.py --store S [--after-choice]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab import store_inputs  # noqa: E402

from core.lab.scores import ScoredPairs  # noqa: E402
from core.lab.split import DEFAULT_HELD_BACK, DEFAULT_SEED, group_split, rule_groups  # noqa: E402
from core.lab.truths import failure_class_proxy  # noqa: E402
from core.matching.profile import SemanticTarget  # noqa: E402


def same_domain_cosines(scored: ScoredPairs, truth: object, rule_keys: set[str]) -> tuple[np.ndarray, np.ndarray]:
    col = {t.key: j for j, t in enumerate(scored.trajectories)}
    assert scored.cosine is not None
    pos: list[float] = []
    neg: list[float] = []
    for i, rule in enumerate(scored.rules):
        if rule.key not in rule_keys:
            continue
        for t in scored.trajectories:
            if t.key in truth.universe[rule.key] and t.domain == rule.domain:  # type: ignore[attr-defined]
                (pos if t.key in truth.positives[rule.key] else neg).append(  # type: ignore[attr-defined]
                    float(scored.cosine[i, col[t.key]]))
    return np.asarray(pos), np.asarray(neg)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--after-choice", action="store_true")
    args = parser.parse_args()
    rules, trajectories, embed = store_inputs(args.store)
    truth = failure_class_proxy(rules, trajectories)
    groups = rule_groups(rules, trajectories, "failure_class")
    split = group_split({k: groups[k] for k in truth.rules}, "failure_class", DEFAULT_HELD_BACK, DEFAULT_SEED)
    tuning = set(split.tuning)
    kinds = [(True, SemanticTarget.SIGNATURE_THEN_CLASSFREE)] + [(False, t) for t in SemanticTarget]
    for reads, target in kinds:
        scored = ScoredPairs.build(rules, trajectories, embed=embed, read_failure_class=reads, semantic_target=target)
        pos, neg = same_domain_cosines(scored, truth, tuning)
        auc = float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())
        print(f"tuning  {target.value:26s} reads failure_class={reads!s:5s}  positives n={len(pos)} "
              f"median {np.median(pos):.3f}  negatives n={len(neg)} median {np.median(neg):.3f}  AUC {auc:.3f}")
    if args.after_choice:
        scored = ScoredPairs.build(rules, trajectories, embed=embed, read_failure_class=False,
                                   semantic_target=SemanticTarget.CONDITION_VS_HAYSTACK)
        for part in ("tuning", "held_back"):
            pos, neg = same_domain_cosines(scored, truth, set(getattr(split, part)))
            print(f"{part:9s} condition_vs_haystack: positives clearing 0.62 {(pos >= 0.62).mean():.3f} of {len(pos)}, "
                  f"negatives {(neg >= 0.62).mean():.3f} of {len(neg)}")


if __name__ == "__main__":
    main()
