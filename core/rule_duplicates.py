"""Rules that say the same thing: the same trigger and the same directive.

A corpus often carries several ``expected_rule`` copies of one sentence (one per trajectory
that produced it); each becomes its own candidate rule. Reviewers decide on them together.
Two rules are duplicates when their newest versions have the same trigger and directive
after case folding and whitespace collapsing (punctuation and wording still count: near
duplicates are the promotion gate's business, not this one's).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from core.store.dto import RuleInfo
from core.store.duplicate_key import normalise as _norm


def duplicate_key(trigger: str, directive: str) -> tuple[str, str]:
    return _norm(trigger), _norm(directive)


def duplicate_groups(rules: Iterable[RuleInfo]) -> Mapping[int, tuple[int, ...]]:
    """rule id -> every rule id of its group (itself included, ascending); only groups of two or more."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for rule in rules:
        groups[duplicate_key(rule.latest.trigger, rule.latest.directive)].append(rule.id)
    found: dict[int, tuple[int, ...]] = {}
    for ids in groups.values():
        if len(ids) > 1:
            members = tuple(sorted(ids))
            for rule_id in members:
                found[rule_id] = members
    return found


def store_duplicate_groups(store: object) -> Mapping[int, tuple[int, ...]]:
    from core.store.rule_repo import RuleRepository

    return duplicate_groups(RuleRepository(store).list_rules())  # type: ignore[arg-type]
