"""A stored profile keeps the replay choices added with the lab's sweeps (recall scope, no-domain
fallback, per-domain margins): what is adopted is what replays."""

from __future__ import annotations

from dataclasses import replace

from core.replay.profile_codec import profile_from_dict, profile_to_dict
from core.replay.profiles import WORKBENCH


def test_scopes_and_per_domain_margins_survive_the_store_codec() -> None:
    chosen = replace(WORKBENCH, recall_scope="corpus", unscoped_pool="none", precision_scope="corpus",
                     domain_margins=(("git", 0.2), ("python", 0.05)))
    back = profile_from_dict(profile_to_dict(chosen))
    assert back == chosen and hash(back) == hash(chosen)
