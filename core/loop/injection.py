"""Where a rule fires at injection time (reference §12.2, "three unrelated matchers").

Replay scores rules with the fuzzy matcher; at injection, 0.3.1's
``cauterule.injection.matcher.match_rules`` fires a rule when its trigger is a
case-insensitive substring of the task, every ``when.context`` item appears in the task (or
in a string filter value), and each optional filter passes (tool, error, tags, taxonomy):
there is no domain filter. This module re-implements that matcher and compares the pool it
fires on with replay's prevented / broken sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from core.stats.wilson import Rate


@dataclass(frozen=True)
class InjectionRule:
    trigger: str
    context: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    taxonomy: str | None = None


@dataclass(frozen=True)
class InjectionFilters:
    """Optional filters, each skipped when None (the reference's ``**context``)."""

    tool: str | None = None
    error: str | None = None
    tags: tuple[str, ...] | None = None
    taxonomy: str | None = None

    def strings(self) -> list[str]:
        return [v for v in (self.tool, self.error, self.taxonomy) if isinstance(v, str)]


def fires(task: str, rule: InjectionRule, filters: InjectionFilters = InjectionFilters()) -> bool:
    trigger = rule.trigger.lower()
    task_lower = task.lower()
    if not trigger or trigger not in task_lower:
        return False
    for item in rule.context:
        needle = item.lower()
        if needle not in task_lower and not any(needle in v.lower() for v in filters.strings()):
            return False
    # A context-less rule carries no tool constraint (#503).
    if filters.tool is not None and rule.context and not any(c.lower() == filters.tool.lower() for c in rule.context):
        return False
    if filters.error is not None:
        error = filters.error.lower()
        if trigger not in error and not any(c.lower() in error for c in rule.context):
            return False
    if filters.tags is not None and not (rule.tags and set(rule.tags) & set(filters.tags)):
        return False
    return filters.taxonomy is None or (rule.taxonomy is not None and rule.taxonomy == filters.taxonomy)


def match_rules(task: str, rules: Sequence[InjectionRule], filters: InjectionFilters = InjectionFilters()
                ) -> list[int]:
    """Indexes of the rules that fire on ``task``, in input order."""
    return [i for i, rule in enumerate(rules) if fires(task, rule, filters)]


@dataclass(frozen=True)
class PoolItem:
    pk: int
    task: str
    success: bool
    lowered: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        # Lower-cased once per trajectory, not once per (rule, trajectory) pair.
        object.__setattr__(self, "lowered", self.task.lower())


def fires_unfiltered(item: PoolItem, trigger: str, context: tuple[str, ...]) -> bool:
    """``fires(item.task, rule)`` with no filters, on pre-lowered text (same answer, faster)."""
    return bool(trigger) and trigger in item.lowered and all(c in item.lowered for c in context)


@dataclass(frozen=True)
class InjectionOverlap:
    """The trajectories injection would fire on, against replay's buckets for the same rule.

    precision = fired failures / (fired failures + fired successes), the source trajectory
    excluded: how often the rule is injected where something went wrong. Replay's precision
    uses its own (domain-scoped) pool and fuzzy scores; this one uses the pool where the rule
    will really fire (§5.3, the critique of the pool choice)."""

    fired: tuple[int, ...]
    fired_failures: int
    fired_successes: int
    also_prevented: tuple[int, ...]  # fired and replay says prevented
    also_broken: tuple[int, ...]  # fired and replay says broken
    fired_only: tuple[int, ...]  # fired, replay left it alone (no_effect / near miss / out of pool)
    prevented_not_fired: tuple[int, ...]  # replay prevented it, injection would not fire
    broken_not_fired: tuple[int, ...]
    precision: Rate = field(default_factory=lambda: Rate.of(0, 0))

    def to_dict(self) -> dict[str, object]:
        return {
            "fired": len(self.fired), "fired_failures": self.fired_failures, "fired_successes": self.fired_successes,
            "also_prevented": len(self.also_prevented), "also_broken": len(self.also_broken),
            "fired_only": len(self.fired_only), "prevented_not_fired": len(self.prevented_not_fired),
            "broken_not_fired": len(self.broken_not_fired), "precision": self.precision.to_dict(),
        }


def overlap(rule: InjectionRule, pool: Iterable[PoolItem], prevented: Iterable[int], broken: Iterable[int],
            source_pk: int | None = None) -> InjectionOverlap:
    prevented_set, broken_set = set(prevented), set(broken)
    trigger, context = rule.trigger.lower(), tuple(c.lower() for c in rule.context)
    # Inlined fires_unfiltered (hot loop: rules x trajectories).
    fired: list[PoolItem] = [] if not trigger else [
        t for t in pool if trigger in t.lowered and t.pk != source_pk and all(c in t.lowered for c in context)]
    fired_pks = {t.pk for t in fired}
    failures = sum(1 for t in fired if not t.success)
    return InjectionOverlap(
        fired=tuple(sorted(fired_pks)), fired_failures=failures, fired_successes=len(fired) - failures,
        also_prevented=tuple(sorted(fired_pks & prevented_set)), also_broken=tuple(sorted(fired_pks & broken_set)),
        fired_only=tuple(sorted(fired_pks - prevented_set - broken_set)),
        prevented_not_fired=tuple(sorted(prevented_set - fired_pks)),
        broken_not_fired=tuple(sorted(broken_set - fired_pks)),
        precision=Rate.of(failures, len(fired)),
    )
