"""Stratified, seeded sampling: allocation rules, reproducibility, interleaved order."""

from __future__ import annotations

from core.agreement.sampling import allocate, stratified_sample
from core.domain.agreement import PopulationItem


def _population(sizes: dict[str, int]) -> list[PopulationItem]:
    items = []
    for stratum, n in sizes.items():
        kind = "verdict" if stratum.startswith("verdict") else "evidence"
        for i in range(n):
            items.append(PopulationItem(kind, i, f"rule-{stratum}-{i:03d}", 1, "t", "d", None, None, None,
                                        stratum.split(":")[1], stratum))
    return items


def test_proportional_allocation_with_a_minimum_per_stratum() -> None:
    pops = {"verdict:pass": 100, "verdict:fail": 10, "evidence:broken": 1, "evidence:prevented": 49}
    # Shares of 32 out of 160: 20, 2, 0.2, 9.8 -> Hamilton 20, 2, 0, 10. Raising "fail" to 3 and
    # "broken" to its 1 item takes 2 from the largest allocation above its minimum ("pass").
    alloc = allocate(pops, 32, "proportional", minimum=3)
    assert alloc == {"verdict:pass": 18, "verdict:fail": 3, "evidence:broken": 1, "evidence:prevented": 10}
    assert allocate(pops, 32, "proportional", minimum=0) == {
        "verdict:pass": 20, "verdict:fail": 2, "evidence:broken": 0, "evidence:prevented": 10,
    }


def test_equal_allocation_fills_small_strata_first() -> None:
    alloc = allocate({"a": 100, "b": 2, "c": 50}, 30, "equal")
    assert alloc == {"a": 14, "b": 2, "c": 14}
    # Minimums that cannot all be met fall back to equal shares.
    assert sum(allocate({"a": 5, "b": 5, "c": 5}, 4, "proportional", minimum=2).values()) == 4


def test_size_is_capped_by_the_population() -> None:
    assert sum(allocate({"a": 3, "b": 4}, 100).values()) == 7


def test_same_seed_same_items_same_order_and_strata_interleaved() -> None:
    population = _population({"verdict:pass": 40, "verdict:fail": 20, "evidence:broken": 30})
    first, strata = stratified_sample(population, 30, seed=42)
    again, _ = stratified_sample(list(reversed(population)), 30, seed=42)
    assert first == again
    other, _ = stratified_sample(population, 30, seed=43)
    assert other != first
    assert strata == {"evidence:broken": {"population": 30, "sampled": 10},
                      "verdict:fail": {"population": 20, "sampled": 7},
                      "verdict:pass": {"population": 40, "sampled": 13}}
    # Presentation order must not group a stratum (it would reveal replay's answer).
    runs = sum(1 for a, b in zip(first, first[1:]) if a.stratum != b.stratum)
    assert runs >= 10
