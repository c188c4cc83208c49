"""A stored profile keeps the replay choices added with the lab's sweeps (recall scope, no-domain
fallback, per-domain margins): what is adopted is what replays."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from core.replay.profile_codec import ProfileFormatError, profile_from_dict, profile_to_dict
from core.replay.profiles import LAB_2026_12, REFERENCE_0_3_1, WORKBENCH


def test_scopes_and_per_domain_margins_survive_the_store_codec() -> None:
    chosen = replace(WORKBENCH, recall_scope="corpus", unscoped_pool="none", precision_scope="corpus",
                     domain_margins=(("git", 0.2), ("python", 0.05)))
    back = profile_from_dict(profile_to_dict(chosen))
    assert back == chosen and hash(back) == hash(chosen)


def test_the_shipped_profiles_survive_the_store_codec() -> None:
    for profile in (LAB_2026_12, WORKBENCH, REFERENCE_0_3_1):
        assert profile_from_dict(profile_to_dict(profile)) == profile


@pytest.mark.parametrize(("field", "value", "expected"), [
    ("twin_rules", "x", "expected a finite number or null"),
    ("twin_rules", True, "expected a finite number or null"),
    ("margin", "0.1", "expected a finite number"),
    ("threshold", float("nan"), "expected a finite number or null"),
    ("pool_policy", "fast", "expected one of 'runner', 'exclude_first'"),
    ("min_sample", 2.5, "expected a whole number"),
    ("semantic", "yes", "expected true or false"),
])
def test_a_stored_value_of_the_wrong_type_is_refused_in_one_line(field: str, value: object, expected: str) -> None:
    with pytest.raises(ProfileFormatError, match=f"field '{field}' is .*; {re.escape(expected)}$"):
        profile_from_dict(dict(profile_to_dict(LAB_2026_12), **{field: value}))


def test_a_matcher_value_of_the_wrong_type_is_refused_too() -> None:
    data = profile_to_dict(LAB_2026_12)
    data["matcher"] = dict(data["matcher"], semantic_floor="high")
    with pytest.raises(ProfileFormatError, match="field 'semantic_floor' is 'high'"):
        profile_from_dict(data)


@pytest.mark.parametrize("cosine", [0.0, -0.5, 1.5])
def test_a_twin_cosine_outside_0_to_1_is_refused(cosine: float) -> None:
    with pytest.raises(ProfileFormatError, match="twin_rules is a cosine in"):
        profile_from_dict(dict(profile_to_dict(LAB_2026_12), twin_rules=cosine))
