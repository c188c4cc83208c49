"""On a team store a lead adopts a replay profile and a reviewer cannot (issue 26; core.store.profile_repo)."""

from __future__ import annotations

import pytest
from red_team import TeamStore, team_store  # noqa: F401  (fixture)

from core.replay.profiles import WORKBENCH
from core.store.engine import open_store
from core.store.profile_repo import ProfileRefused, ProfileRepository
from core.store.review_repo import ReviewRepository


def test_a_reviewer_is_refused_in_one_line_and_nothing_is_written(team_store: TeamStore) -> None:
    store = open_store(team_store.login("bo"))
    try:
        repo = ProfileRepository(store)
        before = repo.adopted_label()
        assert not repo.may_adopt()
        with pytest.raises(ProfileRefused, match="only a lead may adopt"):
            repo.add("bo-profile", WORKBENCH.with_(threshold=0.5), "bo")
        with pytest.raises(ProfileRefused, match="only a lead may adopt"):
            repo.adopt("reference-0.3.1", "bo")
        assert repo.adopted_label() == before
        assert "bo-profile" not in {p.name for p in repo.list_profiles()}
    finally:
        store.close()


def test_a_lead_adopts_in_their_own_name_with_an_audit_event(team_store: TeamStore) -> None:
    store = open_store(team_store.login("lena"))
    try:
        repo = ProfileRepository(store)
        stored = repo.add("lena-profile", WORKBENCH.with_(threshold=0.5), "someone else")
        assert repo.adopted_label() == stored.label == "lena-profile@1"
        assert stored.created_by == "lena"
        [event] = ReviewRepository(store).audit("replay_profile", stored.label)
        assert event.actor == "lena" and event.action == "adopt_profile"
    finally:
        store.close()
