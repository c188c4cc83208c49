"""Stratified, seeded sampling of replay's decisions (pure: no store).

Strata are replay verdicts (``verdict:pass`` / ``verdict:fail`` / ``verdict:inconclusive``,
one item per rule) and evidence buckets (``evidence:prevented`` / ``broken`` / ``near_miss`` /
``missed``, one item per rule x trajectory), optionally split by corpus.

Allocation of the session size across strata:

* ``proportional``: Hamilton (largest remainder) shares of the population; then every stratum
  is raised to ``min(minimum, its population)``, taking the items from the strata with the
  largest allocations above their own minimum.
* ``equal``: as even as possible, water-filling (a stratum smaller than its share gives the
  rest to the others).
* If the minimums alone exceed the size, the allocation is equal.

Within a stratum items are sorted by a stable key and drawn with ``random.Random(f"{seed}/
{stratum}")``, so one stratum's draw does not depend on another's size; the final order is a
seeded shuffle, so strata (which would reveal replay's answer) are interleaved.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence

from core.domain.agreement import PopulationItem

ALLOCATIONS = ("proportional", "equal")


def _equal(populations: Mapping[str, int], size: int) -> dict[str, int]:
    alloc = {s: 0 for s in populations}
    remaining = size
    order = sorted(populations)
    while remaining > 0:
        open_strata = [s for s in order if alloc[s] < populations[s]]
        if not open_strata:
            break
        for stratum in open_strata:
            if remaining == 0:
                break
            alloc[stratum] += 1
            remaining -= 1
    return alloc


def _proportional(populations: Mapping[str, int], size: int, minimum: int) -> dict[str, int]:
    total = sum(populations.values())
    ideal = {s: size * p / total for s, p in populations.items()}
    alloc = {s: int(v) for s, v in ideal.items()}
    leftover = size - sum(alloc.values())
    for stratum in sorted(populations, key=lambda s: (-(ideal[s] - alloc[s]), s))[:leftover]:
        alloc[stratum] += 1
    floors = {s: min(minimum, p) for s, p in populations.items()}
    deficit = 0
    for stratum, floor in floors.items():
        if alloc[stratum] < floor:
            deficit += floor - alloc[stratum]
            alloc[stratum] = floor
    while deficit > 0:
        donors = [s for s in populations if alloc[s] > floors[s]]
        donor = max(donors, key=lambda s: (alloc[s] - floors[s], alloc[s], s))
        alloc[donor] -= 1
        deficit -= 1
    return alloc


def allocate(populations: Mapping[str, int], size: int, allocation: str = "proportional", minimum: int = 2) -> dict[str, int]:
    """How many items each stratum gets; the total is ``min(size, population)``."""
    if allocation not in ALLOCATIONS:
        raise ValueError(f"unknown allocation {allocation!r}; expected one of {ALLOCATIONS}")
    populations = {s: p for s, p in populations.items() if p > 0}
    size = min(size, sum(populations.values()))
    if size <= 0:
        return {s: 0 for s in populations}
    if allocation == "equal" or sum(min(minimum, p) for p in populations.values()) > size:
        return _equal(populations, size)
    return _proportional(populations, size, max(0, minimum))


def stratified_sample(
    population: Sequence[PopulationItem], size: int, seed: int, allocation: str = "proportional", minimum: int = 2,
) -> tuple[list[PopulationItem], dict[str, dict[str, int]]]:
    """The sampled items in presentation order, and per stratum {population, sampled}."""
    by_stratum: dict[str, list[PopulationItem]] = defaultdict(list)
    for item in population:
        by_stratum[item.stratum].append(item)
    counts = allocate({s: len(items) for s, items in by_stratum.items()}, size, allocation, minimum)
    chosen: list[PopulationItem] = []
    for stratum in sorted(by_stratum):
        items = sorted(by_stratum[stratum], key=lambda i: i.sort_key)
        rng = random.Random(f"{seed}/{stratum}")
        chosen.extend(rng.sample(items, counts.get(stratum, 0)))
    chosen.sort(key=lambda i: (i.stratum, i.sort_key))
    random.Random(f"{seed}/order").shuffle(chosen)
    strata = {s: {"population": len(items), "sampled": counts.get(s, 0)} for s, items in sorted(by_stratum.items())}
    return chosen, strata
