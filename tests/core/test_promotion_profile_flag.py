"""An approval made under another profile than the store's adopted one is flagged for a second look (issue 26)."""

from __future__ import annotations

from pathlib import Path

from test_promotion_support import demo_copy, promotion_store  # noqa: F401  (fixtures)

from core.cli import main as cli_main
from core.importing import import_paths
from core.lab.settings import Setting
from core.promotion import approve, stale_approvals
from core.promotion.queue import promotion_queue
from core.replay.profiles import profile_by_name
from core.replaying import run_replay
from core.store.engine import Store
from core.store.profile_repo import ProfileRepository
from core.store.rule_repo import RuleRepository

LEXICAL = profile_by_name("workbench").with_(semantic=False)
RULE = "candidates/C-05-k8s-pod-oomkilled.yaml"


def _approved(store: Store, demo: Path) -> int:
    import_paths(store, [demo])
    run = run_replay(store, LEXICAL, include_expected_rules=False)
    rule = next(r.id for r in RuleRepository(store).list_rules() if r.origin == RULE)
    approve(store, rule, run.run_id, "ana", "both OOMKilled failures prevented, nothing broken")
    return rule


def _adopt_team_profile(store: Store) -> str:
    profile = Setting(base="reference-0.3.1", semantic=False, threshold=0.7).profile()
    return ProfileRepository(store).add("team", profile, "lee").label


def test_an_approval_under_the_adopted_profile_is_not_flagged(promotion_store: Store, demo_copy: Path) -> None:
    _approved(promotion_store, demo_copy)
    assert stale_approvals(promotion_store) == []


def test_before_any_adoption_an_approval_under_another_built_in_is_not_flagged(
    promotion_store: Store, demo_copy: Path
) -> None:
    import_paths(promotion_store, [demo_copy])
    run = run_replay(promotion_store, profile_by_name("reference-0.3.1"), include_expected_rules=False)
    rule = next(r.id for r in RuleRepository(promotion_store).list_rules() if r.origin == RULE)
    approve(promotion_store, rule, run.run_id, "ana", "prevents both OOMKilled failures", allow_non_pass=True)
    assert stale_approvals(promotion_store) == []


def test_adopting_another_profile_flags_the_approval_made_under_the_old_one(
    promotion_store: Store, demo_copy: Path
) -> None:
    _approved(promotion_store, demo_copy)
    label = _adopt_team_profile(promotion_store)
    [report] = stale_approvals(promotion_store)
    assert report.stale and report.profile_changed
    assert report.summary.startswith(f"approved under profile workbench; evidence now from {label} — look again")


def test_the_promotion_queue_words_the_flag(promotion_store: Store, demo_copy: Path) -> None:
    rule = _approved(promotion_store, demo_copy)
    label = _adopt_team_profile(promotion_store)
    item = next(i for i in promotion_queue(promotion_store).items if i.rule_id == rule)
    assert item.wording == f"approved, approved under profile workbench; evidence now from {label} — look again"


def test_re_approving_on_a_run_of_the_adopted_profile_clears_the_flag(promotion_store: Store, demo_copy: Path) -> None:
    rule = _approved(promotion_store, demo_copy)
    _adopt_team_profile(promotion_store)
    run = run_replay(promotion_store, ProfileRepository(promotion_store).adopted(), include_expected_rules=False)
    approve(promotion_store, rule, run.run_id, "ana", "still prevents both under the team profile",
            allow_non_pass=True)
    assert [r for r in stale_approvals(promotion_store) if r.profile_changed] == []


def test_the_promotions_cli_prints_the_flag(tmp_path: Path, demo_copy: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from core.store.engine import open_store

    db = tmp_path / "s.sqlite"
    store = open_store(db)
    try:
        _approved(store, demo_copy)
        label = _adopt_team_profile(store)
    finally:
        store.close()
    capsys.readouterr()
    assert cli_main(["promotions", "--store", str(db), "--no-semantic"]) == 0
    assert f"approved under profile workbench; evidence now from {label} — look again" in capsys.readouterr().out
