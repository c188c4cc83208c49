"""The harness is itself tested: a blind comparator is flagged, exact match is flagged as
over-sensitive on benign reformatting, a working comparator drops by the injected share."""

from __future__ import annotations

import re

import pytest

from core.metrics.ruler import comparators as C
from core.metrics.ruler import mutations as M
from core.metrics.ruler.harness import Comparator, PairCanary, Row, check, derangement, floor_of, thresholded
from core.metrics.ruler.model import (
    BLIND_BELOW,
    Floor,
    MetricWithFloor,
    MissingFloorError,
    displayed,
)

TRIGGERS = [
    ("git push fails with non-fast-forward", "git", "git/push/non-fast-forward"),
    ("git merge fails with conflicts", "git", "git/merge"),
    ("git push fails with LFS error", "git", "git/lfs"),
    ("docker build fails with package not found", "docker", "docker/build/package-not-found"),
    ("docker network not found", "docker", "docker/network"),
    ("python import fails with ModuleNotFoundError", "python", "python/import/module-not-found"),
    ("pip install fails with version conflict", "python", "python/pip/version-conflict"),
    ("terraform plan fails with state lock", "deploy", "deploy/terraform/state-lock"),
    ("kubectl apply fails with NotFound", "deploy", "deploy/kubectl/crd-not-found"),
    ("a script fails with permission denied", "shell", "shell/permission-denied"),
]
PARAPHRASES = {"git push fails with non-fast-forward": ["the remote rejected the push because the branch is behind"]}


def rows() -> list[Row]:
    return [
        Row(t, t, d, {"id": f"r{i}", "domain": d, "klass": "/".join(fc.split("/")[:2]), "failure_class": fc,
                      "rule": t})
        for i, (t, d, fc) in enumerate(TRIGGERS)
    ]


def mutations() -> list[M.Mutation]:
    return M.trigger_mutations(lambda row: PARAPHRASES.get(row.ref, []))


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def typed_comparator() -> Comparator:
    """Equality after the normalisation the consumer applies: the seed's 'typed comparison'."""
    return Comparator("normalised_equal", "normalised equality", "", 1.0,
                      thresholded(lambda a, b: float(_norm(a) == _norm(b)), 1.0), "pass_rate", C.SURFACE)


def by_name(report, name):
    return next(m for m in report.mutations if m.mutation == name)


def test_a_constant_comparator_is_flagged_blind_to_every_harmful_mutation() -> None:
    report = check(C.constant_comparator(), rows(), mutations())
    blind = {f.mutation for f in report.flags if f.kind == "blind"}
    assert blind == {"other_error_class", "other_domain", "tool_swap"}
    # ... and its floor equals its value: shuffled pairs score exactly like correct ones.
    assert report.floor.value == pytest.approx(report.value)


def test_exact_match_is_flagged_over_sensitive_on_benign_reformatting() -> None:
    report = check(C.exact_match_comparator(), rows(), mutations())
    over = {f.mutation for f in report.flags if f.kind == "over_sensitive"}
    assert over == {"case", "punctuation", "whitespace"}
    assert all(by_name(report, m).observed_drop == pytest.approx(by_name(report, m).injected_rate) for m in over)


def test_a_working_comparator_drops_by_the_injected_share_and_holds_on_benign_changes() -> None:
    report = check(typed_comparator(), rows(), mutations())
    for name in ("case", "punctuation", "whitespace"):
        assert by_name(report, name).observed_drop == 0.0
    for name in ("other_error_class", "other_domain", "tool_swap"):
        drop = by_name(report, name)
        assert drop.k == 3 and drop.n == 10 and drop.injected_rate == pytest.approx(0.3)
        assert drop.observed_drop == pytest.approx(drop.injected_rate)  # baseline 1.0: drop == k/n
        assert drop.sensitivity == pytest.approx(1.0)
    assert not report.flags
    assert report.value == 1.0 and report.floor.value == 0.0


def test_token_f1_holds_on_surface_changes_and_is_honestly_blind_to_a_tool_swap() -> None:
    report = check(C.token_f1_comparator(), rows(), mutations())
    assert {f.mutation for f in report.flags} == {"tool_swap"}
    assert by_name(report, "tool_swap").sensitivity < BLIND_BELOW
    # Paraphrase is out of token_f1's contract (it grades surface form): noted, not flagged.
    assert any(n.startswith("paraphrase: moves on") or "paraphrase" in n for n in report.notes)


def test_directive_f1_is_blind_to_the_opposite_directive() -> None:
    directives = ["pull before pushing", "install the missing package", "run terraform force-unlock",
                  "create the network first", "chmod +x the script", "pin compatible versions"]
    drows = [Row(d, d, f"g{i}", {"id": f"d{i}", "klass": f"k{i}", "domain": f"g{i}", "rule": d})
             for i, d in enumerate(directives)]
    report = check(C.directive_f1_comparator(), drows, M.directive_mutations(lambda r: []),
                   [PairCanary("opposite", "must_fail", "hand", "do not pull before pushing", "pull before pushing")])
    assert {f.mutation for f in report.flags} == {"opposite_directive"}
    assert report.canary_failures and report.canary_failures[0].got == "pass"


def test_floors_use_a_derangement_that_never_pairs_a_group_with_itself() -> None:
    rs = rows()
    perm = derangement(rs, seed=7)
    assert perm is not None and sorted(perm) == list(range(len(rs)))
    assert all(rs[perm[i]].group != rs[i].group for i in range(len(rs)))
    assert derangement(rs, seed=7) == perm  # seeded
    floor = floor_of(C.token_f1_comparator(), rs, seed=7)
    assert floor.n == len(rs) and floor.value is not None and floor.value < 0.35


def test_a_metric_with_no_floor_cannot_be_displayed() -> None:
    with pytest.raises(MissingFloorError):
        displayed("token_f1@x", "token_f1", 0.6, None)
    with pytest.raises(MissingFloorError):
        MetricWithFloor("token_f1@x", "token_f1", 0.6, None)  # type: ignore[arg-type]
    with pytest.raises(MissingFloorError):
        displayed("token_f1@x", "token_f1", 0.6, Floor(None, "shuffled", 0, 1))
    # Not measured beside not measured is honest and allowed.
    assert displayed("token_f1@x", "token_f1", None, Floor(None, "shuffled", 0, 1)).value is None


def test_mutations_are_what_they_say() -> None:
    assert M.negate("pull before pushing") == "do not pull before pushing"
    assert M.negate("do not pull before pushing") == "pull before pushing"
    assert M.swap_tool("git push fails") == "svn push fails"
    assert M.swap_tool("nothing to swap") is None
    assert M.punctuate("git push fails with non-fast-forward") == "git, push fails with non fast forward."
    record = {"task": "Push", "steps": [{"error": "a"}, {"error": "b"}], "failure_class": "git/push"}
    upper = M.map_record_text(record, str.upper)
    assert upper["task"] == "PUSH" and upper["failure_class"] == "git/push" and record["task"] == "Push"
