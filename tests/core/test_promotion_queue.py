"""The promotion queue: order, gates, near-duplicates and conflicts on constructed cases."""

from __future__ import annotations

import pytest
from test_promotion_support import Builder, promotion_store  # noqa: F401  (fixtures)

from core.decisions import waive
from core.promotion import (
    Gate,
    approve,
    conflicts_among_approved,
    defer,
    promotion_queue,
    reject,
    set_agreement_gate,
)
from core.promotion.gates import marks_agreement_gate
from core.promotion.similarity import Similarity, lexical
from core.store.engine import Store
from core.store.review_repo import ReviewRepository


@pytest.fixture()
def board(promotion_store: Store) -> tuple[Builder, dict[str, int], int]:
    b = Builder(promotion_store)
    b.trajectories("F-1", "F-2", "F-3", "F-4")
    b.trajectories("S-1", success=True)
    rules = {
        "approved": b.rule("c/a.yaml", "when git push is rejected as non-fast-forward", "pull --rebase then push"),
        "duplicate": b.rule("c/b.yaml", "when a git push gets rejected as non fast forward", "rebase onto the remote"),
        "conflict": b.rule("c/c.yaml", "when the remote refuses the upload", "force push to overwrite the remote branch"),
        "agrees": b.rule("c/d.yaml", "when the remote refuses the upload of commits", "pull with rebase then push again"),
        "elsewhere": b.rule("c/e.yaml", "when terraform cannot acquire the state lock", "wait and retry the plan"),
        "failing": b.rule("c/f.yaml", "pip install requirements", "pin the versions"),
    }
    run = b.run([
        (rules["approved"], "pass", {"prevented": ["F-1", "F-2"]}),
        (rules["duplicate"], "pass", {"prevented": ["F-1"]}),
        (rules["conflict"], "pass", {"prevented": ["F-1", "F-2"], "near_miss": ["F-3"]}),
        (rules["agrees"], "pass", {"prevented": ["F-1", "F-2"]}),
        (rules["elsewhere"], "pass", {"prevented": ["F-4"]}),
        (rules["failing"], "fail", {"prevented": ["F-3"], "broken": ["S-1"]}),
    ])
    approve(b.store, rules["approved"], run, "ana", "the reference case")
    return b, rules, run


def _by_rule(store: Store, **kw: object) -> dict[int, object]:
    return {i.rule_id: i for i in promotion_queue(store, similarity=lexical(), **kw).items}  # type: ignore[arg-type]


def test_passing_undecided_rules_come_first(board: tuple[Builder, dict[str, int], int]) -> None:
    b, rules, run = board
    defer(b.store, rules["agrees"], "ana", "wait for more data", run_id=run)
    reject(b.store, rules["elsewhere"], "ana", "too narrow")
    order = [i.rule_id for i in promotion_queue(b.store, similarity=lexical()).items]
    r = rules
    assert order == [r["duplicate"], r["conflict"], r["failing"], r["agrees"], r["approved"], r["elsewhere"]]


def test_near_duplicate_of_an_approved_rule_is_found_and_says_its_method(
    board: tuple[Builder, dict[str, int], int]
) -> None:
    b, rules, _run = board
    items = _by_rule(b.store)
    dup = items[rules["duplicate"]].gate("duplicates")  # type: ignore[attr-defined]
    assert dup.state == "warn" and dup.data["method"] == "lexical"
    assert [m["standing_id"] for m in dup.data["matches"]] == ["R-001"]
    assert items[rules["elsewhere"]].gate("duplicates").state == "pass"  # type: ignore[attr-defined]
    assert items[rules["approved"]].gate("duplicates").state == "pass"  # itself is not a duplicate


def test_conflict_is_overlapping_matches_with_a_different_directive(board: tuple[Builder, dict[str, int], int]) -> None:
    b, rules, _run = board
    items = _by_rule(b.store)
    conflict = items[rules["conflict"]].gate("conflicts")  # type: ignore[attr-defined]
    assert conflict.state == "warn"
    [found] = conflict.data["conflicts"]
    assert found["other"] == "R-001" and found["shared"] == ["F-1", "F-2"]
    assert items[rules["agrees"]].gate("conflicts").state == "pass"  # same trajectories, same advice
    assert items[rules["elsewhere"]].gate("conflicts").state == "pass"  # different trajectories


def test_conflicts_among_approved_rules(board: tuple[Builder, dict[str, int], int]) -> None:
    b, rules, run = board
    assert conflicts_among_approved(b.store) == []
    approve(b.store, rules["conflict"], run, "ana", "approved anyway, to test")
    [pair] = conflicts_among_approved(b.store)
    assert {pair["label"], pair["other"]} == {"R-001", "R-002"} and pair["shared"] == ["F-1", "F-2"]


def test_verdict_and_broken_gates(board: tuple[Builder, dict[str, int], int]) -> None:
    b, rules, run = board
    item = _by_rule(b.store)[rules["failing"]]
    assert item.gate("verdict").state == "fail" and "blocked_by_broken" in item.gate("verdict").detail  # type: ignore[attr-defined]
    broken = item.gate("broken_reviewed")  # type: ignore[attr-defined]
    assert broken.state == "fail" and broken.data["unreviewed"] == ["S-1"]
    waive(b.store, "bo", b.result_id(run, rules["failing"]), b.pks["S-1"], "log echo only")
    assert _by_rule(b.store, reviewer="ana")[rules["failing"]].gate("broken_reviewed").state == "fail"  # type: ignore[attr-defined]
    assert _by_rule(b.store, reviewer="bo")[rules["failing"]].gate("broken_reviewed").state == "pass"  # type: ignore[attr-defined]
    assert _by_rule(b.store)[rules["failing"]].gate("broken_reviewed").state == "pass"  # type: ignore[attr-defined]


def _mark(b: Builder, run: int, rule: int, right: int, wrong: int, cant_tell: int = 0) -> None:
    review = ReviewRepository(b.store)
    result = b.result_id(run, rule)
    tids = list(b.pks.values())
    for i, mark in enumerate(["right"] * right + ["wrong"] * wrong + ["cant_tell"] * cant_tell):
        review.mark(f"r{i // len(tids)}", result, tids[i % len(tids)], "prevented", mark)


def test_agreement_gate_is_not_measured_without_marks_then_pass_or_fail(
    board: tuple[Builder, dict[str, int], int]
) -> None:
    b, rules, run = board
    gate = _by_rule(b.store)[rules["duplicate"]].gate("agreement")  # type: ignore[attr-defined]
    assert gate.state == "not_measured" and gate.data["unblinded_marks"]["n"] == 0
    _mark(b, run, rules["duplicate"], right=8, wrong=2, cant_tell=3)
    gate = marks_agreement_gate(b.store, run)
    assert gate.state == "fail" and gate.data["n"] == 10 and gate.data["cant_tell"] == 3
    _mark(b, run, rules["conflict"], right=25, wrong=0)
    gate = marks_agreement_gate(b.store, run)
    # 33/35 = 0.94, Wilson low 0.81 >= 0.80
    assert gate.state == "pass" and gate.data["right"] == 33 and gate.data["ci_low"] >= 0.80


def test_unblinded_marks_alone_never_decide_the_default_gate(
    board: tuple[Builder, dict[str, int], int]
) -> None:
    b, rules, run = board
    _mark(b, run, rules["conflict"], right=40, wrong=0)
    gate = _by_rule(b.store)[rules["duplicate"]].gate("agreement")  # type: ignore[attr-defined]
    assert gate.state == "not_measured" and gate.data["unblinded_marks"]["right"] == 40


def test_agreement_gate_can_be_replaced(board: tuple[Builder, dict[str, int], int]) -> None:
    b, rules, _run = board
    previous = set_agreement_gate(lambda store, run_id: Gate("agreement", "pass", "blind session #1", {}))
    try:
        assert _by_rule(b.store)[rules["duplicate"]].gate("agreement").detail == "blind session #1"  # type: ignore[attr-defined]
    finally:
        set_agreement_gate(previous)


def test_semantic_similarity_is_used_when_given() -> None:
    import numpy as np

    vectors = {"a": [1.0, 0.0], "b": [0.96, 0.28], "c": [0.0, 1.0]}
    sim = Similarity("semantic", lambda texts: np.array([vectors[t] for t in texts], dtype=np.float32))
    scores = sim.matrix(["a"], ["b", "c"])
    assert scores[0, 0] == pytest.approx(0.96) and scores[0, 1] == pytest.approx(0.0)


@pytest.mark.slow
def test_semantic_near_duplicate_with_the_real_model(promotion_store: Store) -> None:
    from core.promotion.similarity import auto

    sim = auto(promotion_store)
    if sim.method != "semantic":
        pytest.skip(f"no embedding model: {sim.note}")
    b = Builder(promotion_store)
    b.trajectories("F-1", "F-2")
    approved = b.rule("c/a.yaml", "when a Kubernetes pod is killed for running out of memory", "raise the limit")
    paraphrase = b.rule("c/b.yaml", "when a k8s pod gets OOM-killed because memory ran out", "raise memory")
    unrelated = b.rule("c/c.yaml", "when terraform cannot acquire the state lock", "wait and retry")
    run = b.run([(approved, "pass", {"prevented": ["F-1"]}), (paraphrase, "pass", {"prevented": ["F-1"]}),
                 (unrelated, "pass", {"prevented": ["F-2"]})])
    approve(b.store, approved, run, "ana", "ok")
    items = {i.rule_id: i for i in promotion_queue(b.store, similarity=sim).items}
    assert items[paraphrase].gate("duplicates").state == "warn"
    assert items[paraphrase].gate("duplicates").data["method"] == "semantic"
    assert items[unrelated].gate("duplicates").state == "pass"
