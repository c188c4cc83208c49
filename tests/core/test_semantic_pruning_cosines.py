"""Replay's cosines are multiplied many rules at a time, ahead of the chunks that read them:
each chunk still gets its own rows, equal to a direct product up to BLAS's last bit."""

from __future__ import annotations

import numpy as np
import pytest

from core.matching import semantic as msemantic
from core.replay import matcher_bridge as mb


def _cosines(n_rules: int, n_traj: int, seed: int = 3) -> mb.SemanticCosines:
    """Trajectories share texts (rows of a small table), some have none (-1)."""
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((12, 16)).astype(np.float32)
    return mb.SemanticCosines(trigger_vecs=rng.standard_normal((n_rules, 16)).astype(np.float32), table=table,
                              primary_rows=rng.integers(-1, 12, n_traj), secondary_rows=rng.integers(-1, 12, n_traj),
                              unique_texts=12)


def _expanded(semantic: mb.SemanticCosines) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every trajectory's own primary and secondary vectors (zeros for -1), and which have one."""
    padded = np.vstack([semantic.table, np.zeros((1, semantic.table.shape[1]), dtype=np.float32)])
    return padded[semantic.primary_rows], padded[semantic.secondary_rows], semantic.secondary_rows >= 0


def _direct(semantic: mb.SemanticCosines, lo: int, hi: int) -> np.ndarray:
    return msemantic.cosine_matrix(semantic.trigger_vecs[lo:hi], *_expanded(semantic))


def test_chunks_read_the_rows_of_their_own_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mb, "COSINE_PAIRS", 5 * 40)  # five rules per product over 40 trajectories
    semantic = _cosines(23, 40)
    bounds = [(0, 1), (1, 3), (3, 7), (7, 8), (8, 16), (16, 23)]  # growing chunks, as replay asks
    for lo, hi in bounds:
        got = semantic.block(lo, hi)
        assert got.shape == (hi - lo, 40)
        np.testing.assert_allclose(got, _direct(semantic, lo, hi), rtol=0, atol=1e-12)
    np.testing.assert_allclose(semantic.block(2, 4), _direct(semantic, 2, 4), rtol=0, atol=1e-12)  # going back


def test_one_product_serves_the_chunks_it_covers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mb, "COSINE_PAIRS", 8 * 40)
    semantic = _cosines(20, 40)
    semantic.block(0, 1)
    assert semantic.targets is not None
    products: list[int] = []
    inner = semantic.targets.cosines
    object.__setattr__(semantic.targets, "cosines", lambda vecs: products.append(len(vecs)) or inner(vecs))
    for lo in range(1, 20):
        semantic.block(lo, lo + 1)
    assert products == [8, 4]  # rules 8..15 and 16..19 (clipped at the end); 1..7 were computed with 0
    assert semantic.block(19, 20).shape == (1, 40)


def test_a_chunk_may_change_its_cosines_without_changing_the_next_chunks() -> None:
    semantic = _cosines(6, 30)
    first = semantic.block(0, 2)
    expected = semantic.block(0, 2).copy()
    first[:] = -1.0
    assert np.array_equal(semantic.block(0, 2), expected)


def test_a_chunk_wider_than_the_budget_is_computed_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mb, "COSINE_PAIRS", 10)
    semantic = _cosines(9, 40)
    np.testing.assert_allclose(semantic.block(0, 9), _direct(semantic, 0, 9), rtol=0, atol=1e-12)


def test_shared_texts_are_multiplied_once_and_give_every_trajectory_its_cosine() -> None:
    semantic = _cosines(5, 300)
    targets = msemantic.CosineTargets.of_table(semantic.table, semantic.primary_rows, semantic.secondary_rows)
    assert targets.secondary is not None
    assert (len(targets.primary), len(targets.secondary)) == (13, 12)  # 12 texts (and "none" for primary)
    np.testing.assert_allclose(targets.cosines(semantic.trigger_vecs), _direct(semantic, 0, 5), rtol=0, atol=1e-12)


def test_orthogonal_and_missing_targets_give_exactly_0() -> None:
    """An exact 0 switches the blend to lexical weights, so it must survive the spreading."""
    table = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], dtype=np.float32)
    targets = msemantic.CosineTargets.of_table(table, np.array([1, -1, 2, 0]), np.array([-1, 1, -1, 2]))
    assert targets.cosines(np.array([[1.0, 0.0]])).tolist() == [[0.0, 0.0, 0.0, 1.0]]
