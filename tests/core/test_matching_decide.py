"""Prefilter, domain guard and context: the decision around the score (§4.3, §4.7)."""

from __future__ import annotations

import pytest

from core.matching import (
    RuleText,
    TrajectoryViews,
    context_status,
    decide,
    domain_conflict,
    prefilter_reason,
    trajectory_domain_group,
    trigger_domain_group,
)


def _views(**fields: object) -> TrajectoryViews:
    record: dict[str, object] = {"task": "push the branch", "success": False, "steps": []}
    record.update(fields)
    return TrajectoryViews.from_record(record)


@pytest.mark.parametrize(
    ("trigger", "context", "reason"),
    [
        ("", (), "empty"),
        ("   \n", ("git",), "empty"),
        ("step_1", (), "degenerate"),
        ("  STEP 2 ", ("git",), "degenerate"),  # degenerate even with context
        ("a", (), "too_short"),
        ("a ! b", (), "too_short"),
        ("a", ("git",), None),
        ("error", (), "generic"),
        ("Error:", (), "generic"),  # #766: punctuation cannot slip past
        ("timeout.", (), "generic"),
        ("error", ("git",), None),
        ("replica", (), None),
        ("git push", (), None),
        ("error error", (), "generic"),  # one distinct word
    ],
)
def test_prefilter_reason(trigger: str, context: tuple[str, ...], reason: str | None) -> None:
    assert prefilter_reason(trigger, context) == reason


@pytest.mark.parametrize(
    ("trigger", "group"),
    [
        ("docker build fails", "containers"),
        ("when pytest cannot import", "python"),
        ("git or docker", "vcs"),  # first in the known-domain order wins
        ("docker or git", "vcs"),
        ("specificity of capital", None),  # whole tokens only (#691)
        ("selenium element missing", None),  # selenium is a group, not a trigger domain
        ("k8s pod crash", None),
    ],
)
def test_trigger_domain_group(trigger: str, group: str | None) -> None:
    assert trigger_domain_group(trigger) == group


def test_trajectory_domain_group_uses_first_class_segment_case_insensitively() -> None:
    assert trajectory_domain_group(_views(failure_class="Selenium/element")) == "browser"
    assert trajectory_domain_group(_views(failure_class="unknown/x")) is None
    assert trajectory_domain_group(_views()) is None


def test_domain_conflict_needs_both_groups_known_and_different() -> None:
    git = _views(failure_class="git/push/non-fast-forward")
    assert domain_conflict("docker push fails", git)
    assert not domain_conflict("pip push fails", _views(failure_class="python/import"))
    assert not domain_conflict("push fails", git)
    assert not domain_conflict("docker push fails", _views())


def test_domain_guard_blocks_failures_only() -> None:
    failure = _views(task="docker push the branch", failure_class="git/push")
    success = _views(task="docker push the branch", failure_class="git/push", success=True)
    assert decide(RuleText("docker push"), failure, 0.6).blocked_by == "domain_guard"
    assert decide(RuleText("docker push"), success, 0.6).matched


def test_context_matches_by_haystack_containment_or_domain_equality() -> None:
    views = _views(task="git push to main", domain="DevOps")
    assert context_status(("GIT", "dev-ops", "devops", "!!!"), views) == (2, 4)
    assert decide(RuleText("git push", ("git",)), views, 0.6).matched
    blocked = decide(RuleText("git push", ("git", "kubernetes")), views, 0.6)
    assert blocked.blocked_by == "context" and blocked.score == 1.0


def test_below_threshold_is_reported() -> None:
    decision = decide(RuleText("remote branch diverged"), _views(task="remote push"), 0.6)
    assert decision.blocked_by == "below_threshold" and 0 < decision.score < 0.6
