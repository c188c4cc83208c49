"""Injection matcher: parity with cauterule.injection.matcher.match_rules on the shared
corpus (with and without filters), then the overlap with replay's buckets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from loop_corpus import shared_records

from core.loop.injection import InjectionFilters, InjectionRule, PoolItem, fires, match_rules, overlap


def _standing(i: int, rule: InjectionRule) -> Any:
    from cauterule.models.rule import Provenance, RuleDo, RuleWhen, StandingRule

    return StandingRule(
        id=f"R-{i}", when=RuleWhen(trigger=rule.trigger, context=rule.context), do=RuleDo(directive="d"),
        confidence=0.9, provenance=Provenance("t", "test", "2026-01-01T00:00:00Z", 1), status="active",
        promoted_at="2026-01-01T00:00:00Z", tags=rule.tags, taxonomy=rule.taxonomy,
    )


def _rules(shared_corpus: Path, records: tuple[tuple[str, dict[str, Any]], ...]) -> list[InjectionRule]:
    rules = []
    for path in sorted(shared_corpus.rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("when"), dict) and data["when"].get("trigger"):
            when = data["when"]
            rules.append(InjectionRule(str(when["trigger"]), tuple(map(str, when.get("context") or ())),
                                       tuple(map(str, data.get("tags") or ())), data.get("taxonomy")))
    # Rules that do fire somewhere: two task words as the trigger, the record's domain as
    # context, its tags and failure class as tags / taxonomy.
    for n, (_w, d) in enumerate(records[::3]):
        words = str(d["task"]).split()
        if len(words) >= 3:
            rules.append(InjectionRule(" ".join(words[1:3]), (str(d["domain"]),) if n % 2 and d.get("domain") else (),
                                       tuple(d.get("tags") or ()), d.get("failure_class")))
        if d.get("expected_rule"):
            rules.append(InjectionRule(str(d["expected_rule"])))
    return rules


def _filters(d: dict[str, Any]) -> InjectionFilters:
    steps = [s for s in d.get("steps") or [] if isinstance(s, dict)]
    errors = [s.get("error") for s in steps if s.get("error")]
    return InjectionFilters(tool=steps[0].get("tool") if steps else None, error=errors[0] if errors else None,
                            tags=tuple(d.get("tags") or ()), taxonomy=d.get("failure_class"))


@pytest.mark.external
def test_injection_matches_reference_on_the_shared_corpus(shared_corpus: Path) -> None:
    from cauterule.injection.matcher import match_rules as reference

    records = shared_records(str(shared_corpus))
    rules = _rules(shared_corpus, records)
    standing = [_standing(i, r) for i, r in enumerate(rules)]
    fired = fired_filtered = 0
    for _where, d in records:
        task = str(d["task"])
        ours = match_rules(task, rules)
        assert ours == [int(r.id[2:]) for r in reference(task, standing)]
        f = _filters(d)
        ours_f = match_rules(task, rules, f)
        ref_f = reference(task, standing, **{k: v for k, v in vars(f).items() if v is not None})
        assert ours_f == [int(r.id[2:]) for r in ref_f]
        fired, fired_filtered = fired + len(ours), fired_filtered + len(ours_f)
    assert fired > 100 and 0 < fired_filtered < fired  # both paths were really exercised


def test_a_context_less_rule_ignores_the_tool_filter() -> None:
    assert fires("git push to main", InjectionRule("git push"), InjectionFilters(tool="docker"))
    assert not fires("git push to main", InjectionRule("git push", ("git",)), InjectionFilters(tool="docker"))


def test_context_items_may_come_from_a_filter_value() -> None:
    rule = InjectionRule("push", ("rejected",))
    assert not fires("push the branch", rule)
    assert fires("push the branch", rule, InjectionFilters(error="remote rejected"))


def test_overlap_counts_fired_pool_against_replay_buckets() -> None:
    pool = [PoolItem(1, "git push failed", False), PoolItem(2, "git push ok", True),
            PoolItem(3, "git push again", False), PoolItem(4, "deploy", False), PoolItem(5, "git push src", False)]
    result = overlap(InjectionRule("GIT PUSH"), pool, prevented=[1, 4], broken=[2], source_pk=5)
    assert result.fired == (1, 2, 3)
    assert (result.also_prevented, result.also_broken, result.fired_only) == ((1,), (2,), (3,))
    assert result.prevented_not_fired == (4,)
    assert (result.precision.k, result.precision.n) == (2, 3)


@pytest.mark.external
def test_the_fast_unfiltered_path_agrees_with_fires(shared_corpus: Path) -> None:
    from core.loop.injection import fires_unfiltered

    records = shared_records(str(shared_corpus))
    rules = _rules(shared_corpus, records)
    for i, (_w, d) in enumerate(records):
        item = PoolItem(i, str(d["task"]), False)
        for rule in rules[:: 7]:
            assert fires_unfiltered(item, rule.trigger.lower(), tuple(c.lower() for c in rule.context)) == fires(
                item.task, rule)
