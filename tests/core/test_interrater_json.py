"""The JSON shape of every statistic (keys, order, rounding), against golden files.

``tests/fixtures/golden/interrater.json`` was generated once from these examples and checked
by hand against the textbook values named beside each case (kappa 0.4 of the Wikipedia table,
Fleiss' 0.210, alpha 0.743 of Krippendorff 2011, the Wilson intervals of 7/10 and 1/3). To regenerate
after a deliberate change: ``WORKBENCH_REGOLDEN=1 pytest tests/core/test_interrater_json.py``,
then check the diff by hand again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from core.metrics.interrater import confusion_matrix, grouped_kappa, percent_agreement
from core.metrics.multirater import fleiss_kappa, krippendorff_alpha_nominal
from core.stats.wilson import Rate

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "golden" / "interrater.json"

A = ["y"] * 25 + ["n"] * 25
B = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15  # Wikipedia's 50 proposals: kappa 0.4
FLEISS = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
          [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
ALPHA = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None], [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]


def _cases() -> dict[str, Any]:
    return {
        "rate_7_of_10": Rate.of(7, 10).to_dict(),
        "rate_empty": Rate.of(0, 0).to_dict(),
        "rate_1_of_3": Rate.of(1, 3).to_dict(),  # rounded to 4 places: 0.3333 [0.0615, 0.7923]
        "percent_agreement": percent_agreement(A, B).to_dict(),
        "confusion_matrix": confusion_matrix(A, B, ["y", "n"]).to_dict(),
        "cohen_kappa": grouped_kappa({"only": (A, B)}).to_dict(),
        "kappa_undefined": grouped_kappa({"only": (["y"] * 3, ["y"] * 3)}).to_dict(),
        "grouped_kappa": grouped_kappa({"g1": (A, B), "g2": (["p", "f", "p", "p"], ["p", "f", "f", "p"])},
                                       reps=200, seed=1).to_dict(),
        "fleiss_kappa": fleiss_kappa(FLEISS, bootstrap=200, seed=1).to_dict(),
        "fleiss_empty": fleiss_kappa([]).to_dict(),
        "alpha": krippendorff_alpha_nominal(ALPHA, bootstrap=200, seed=1).to_dict(),
        "alpha_no_pairs": krippendorff_alpha_nominal([["a", None], [None, "b"]]).to_dict(),
    }


def test_every_statistic_serialises_to_its_golden_json() -> None:
    # json round trip: tuples become lists and key order is kept, as the CLI prints them.
    got = json.loads(json.dumps(_cases()))
    if os.environ.get("WORKBENCH_REGOLDEN") == "1":
        GOLDEN.write_text(json.dumps(got, indent=2) + "\n", encoding="utf-8")
        pytest.skip("golden file rewritten: check its diff by hand")
    want = json.loads(GOLDEN.read_text(encoding="utf-8"))
    for name in want:
        assert list(got[name]) == list(want[name]), f"{name}: keys or their order changed"
        assert got[name] == want[name], name
    assert set(got) == set(want)
