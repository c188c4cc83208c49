"""Team agreement online: assign a blind session's items to reviewers, follow it live.

A lead gives each item of a session to ``per_item`` of the team's reviewers::

    plan = assign(store, "3", ["ana", "bo", "cy"], per_item=2, assigned_by="lea")
    team_status(store, "3")   # progress per reviewer, pairwise Cohen's kappa, Krippendorff's alpha

Balanced and reproducible: the items are shuffled with the seed (the session's own unless
given) and dealt round-robin, item ``i`` to the ``per_item`` reviewers after the previous
item's, so the reviewers' loads differ by at most one, every item has distinct reviewers and
every reviewer shares items with their neighbours in the (seeded) reviewer order. Once a
session is assigned, ``core.agreement.session.next_item`` offers each reviewer only their own
items. Assigning again replaces the assignments (judgements already committed stay).

The figures come from the committed judgements of the assigned reviewers (of everyone who
judged, for a session nobody assigned); ``cant_tell`` counts as missing, as in
``core.agreement.team``. On a team store each reviewer sees other reviewers' judgements only
of the items they committed themselves (the blind rule), so a lead's view is the complete one.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from core.domain.agreement import CANT_TELL
from core.domain.names import checked_name
from core.metrics.interrater import KappaResult, grouped_kappa
from core.metrics.multirater import AlphaResult, krippendorff_alpha_nominal
from core.store.agreement_repo import AgreementRepository
from core.store.assignment_repo import AssignmentRepository
from core.store.engine import Store


@dataclass(frozen=True)
class AssignmentPlan:
    session_id: int
    per_item: int
    seed: int
    items: dict[str, tuple[int, ...]]  # reviewer -> ordinals

    def loads(self) -> dict[str, int]:
        return {r: len(o) for r, o in self.items.items()}


@dataclass(frozen=True)
class ReviewerProgress:
    reviewer: str
    assigned: int | None  # None: the session is not assigned (the reviewer may judge every item)
    judged: int


@dataclass(frozen=True)
class PairKappa:
    a: str
    b: str
    kappa: KappaResult  # over the items both judged decisively (value None when undefined)


@dataclass(frozen=True)
class TeamStatus:
    session_id: int
    per_item: int | None
    reviewers: tuple[str, ...]
    progress: tuple[ReviewerProgress, ...]
    items: int  # the session's size
    multi_judged: int  # items with decisive judgements from at least two of the reviewers
    pairs: tuple[PairKappa, ...]
    alpha: AlphaResult  # Krippendorff's alpha (nominal), missing judgements allowed

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session_id, "per_item": self.per_item, "reviewers": list(self.reviewers),
            "items": self.items, "multi_judged": self.multi_judged,
            "progress": [p.__dict__ for p in self.progress],
            "pairs": [{"a": p.a, "b": p.b, "kappa": p.kappa.to_dict()} for p in self.pairs],
            "alpha": self.alpha.to_dict(),
        }


def _reviewer_list(reviewers: Sequence[str]) -> list[str]:
    names = [r.strip() for r in reviewers if r.strip()]
    if not names:
        raise ValueError("name at least one reviewer to assign items to")
    for name in names:
        # The check every stored reviewer name meets (an oversized or NUL name would fail the
        # insert on PostgreSQL; a control character would reach tables and terminals).
        checked_name(name)
    twice = sorted({r for r in names if names.count(r) > 1})
    if twice:
        raise ValueError(f"reviewer named more than once: {', '.join(twice)}")
    return names


def deal(ordinals: Sequence[int], reviewers: Sequence[str], per_item: int, seed: int) -> dict[str, tuple[int, ...]]:
    """The balanced, seeded round-robin of the module docstring (pure: no store)."""
    names = _reviewer_list(reviewers)
    if not 1 <= per_item <= len(names):
        raise ValueError(f"--per-item must be between 1 and the number of reviewers ({len(names)}), got {per_item}")
    rng = random.Random(seed)
    order, items = sorted(names), list(ordinals)
    rng.shuffle(order)
    rng.shuffle(items)
    dealt: dict[str, list[int]] = {r: [] for r in names}
    for i, ordinal in enumerate(items):
        for j in range(per_item):
            dealt[order[(i * per_item + j) % len(order)]].append(ordinal)
    return {r: tuple(sorted(o)) for r, o in dealt.items()}


def assign(
    store: Store, session: int | str, reviewers: Sequence[str], per_item: int, assigned_by: str, seed: int | None = None,
) -> AssignmentPlan:
    """Assign every item of ``session`` to ``per_item`` of ``reviewers`` (replacing earlier assignments)."""
    assigned_by = checked_name(assigned_by, "name of whoever assigns")
    if not assigned_by:
        raise ValueError("an assignment needs the name of whoever assigns")
    info = AgreementRepository(store).session(session)
    repo = AssignmentRepository(store)
    seed = info.seed if seed is None else int(seed)
    items = deal(repo.ordinals(info.id), reviewers, per_item, seed)
    repo.replace(info.id, per_item, [(o, r) for r, ordinals in items.items() for o in ordinals], assigned_by.strip())
    return AssignmentPlan(info.id, per_item, seed, items)


def assigned_items(store: Store, session: int | str, reviewer: str) -> list[int]:
    """The ordinals assigned to ``reviewer`` (empty when the session is not assigned or they have none)."""
    info = AgreementRepository(store).session(session)
    return [o for o, _r in AssignmentRepository(store).assignments(info.id, reviewer)]


def team_status(store: Store, session: int | str) -> TeamStatus:
    """Progress and inter-rater figures of a session, from the committed judgements (see the module docstring)."""
    agreement = AgreementRepository(store)
    info = agreement.session(session)
    repo = AssignmentRepository(store)
    per_item = repo.per_item(info.id)
    assigned: dict[str, set[int]] = defaultdict(set)
    for ordinal, reviewer in repo.assignments(info.id):
        assigned[reviewer].add(ordinal)
    judgements = agreement.judgements(info.id)
    if per_item is not None:
        judgements = [j for j in judgements if j.ordinal in assigned.get(j.reviewer, set())]
        reviewers = tuple(sorted(assigned))
    else:
        reviewers = tuple(sorted({j.reviewer for j in judgements}))
    judged: dict[str, int] = defaultdict(int)
    units: dict[int, dict[str, str]] = defaultdict(dict)
    kind: dict[int, str] = {}
    for j in judgements:
        judged[j.reviewer] += 1
        kind[j.ordinal] = j.kind
        if j.answer != CANT_TELL:
            units[j.ordinal][j.reviewer] = j.answer
    ordered = sorted(units)
    pairs = []
    for a, b in combinations(reviewers, 2):
        groups: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
        for u in ordered:
            if a in units[u] and b in units[u]:
                groups[kind[u]][0].append(units[u][a])
                groups[kind[u]][1].append(units[u][b])
        pairs.append(PairKappa(a, b, grouped_kappa(dict(groups))))
    data = [[units[u].get(r) for u in ordered] for r in reviewers]
    return TeamStatus(
        session_id=info.id, per_item=per_item, reviewers=reviewers,
        progress=tuple(ReviewerProgress(r, len(assigned[r]) if per_item is not None else None, judged[r])
                       for r in reviewers),
        items=info.size, multi_judged=sum(1 for u in ordered if len(units[u]) >= 2), pairs=tuple(pairs),
        alpha=krippendorff_alpha_nominal(data),
    )
