"""Named, versioned replay profiles in the store and the adopted one (issue 26 item 6; docs/lab.md "Adoption")."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from test_promotion_support import demo_copy, promotion_store  # noqa: F401  (fixtures)

from core.cli import main as cli_main
from core.domain.errors import DomainError
from core.lab.adopt import BadLabReport, adopt_from_report, candidate
from core.lab.settings import Setting
from core.replay.profile_codec import ProfileFormatError, profile_from_dict, profile_to_dict
from core.replay.profiles import LAB_2026_12, REFERENCE_0_3_1, WORKBENCH
from core.store.engine import Store
from core.store.profile_repo import ProfileRefused, ProfileRepository, UnknownProfile
from core.store.review_repo import ReviewRepository

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"
TUNED = Setting(base="reference-0.3.1", threshold=0.7, alias_floor=0.55, read_failure_class=False,
                failure_gate_fallback=True)


def _report(*settings: Setting, chosen: str | None = None) -> dict[str, object]:
    """The parts of a lab report.json that adoption reads."""
    return {"scores": {"key": "k", "model_id": "all-MiniLM-L6-v2", "pairs": 10},
            "settings": [s.to_dict() for s in settings],
            "splits": {"failure_class_proxy": {"group_by": "failure_class", "seed": 26}},
            "choices": {"failure_class_proxy": {"truth": "failure_class_proxy", "chosen": chosen}}}


def test_every_field_of_a_profile_round_trips_through_its_json() -> None:
    profile = TUNED.profile("all-MiniLM-L6-v2")
    back = profile_from_dict(json.loads(json.dumps(profile_to_dict(profile))))
    assert back == profile
    assert back.matcher == profile.matcher  # compare=False on the profile: checked on its own


def test_a_field_added_to_the_profile_is_serialised_without_a_change_to_the_codec() -> None:
    data = profile_to_dict(WORKBENCH)
    assert set(data) == {f.name for f in dataclasses.fields(WORKBENCH)}


def test_a_stored_profile_naming_an_unknown_field_is_refused_in_one_line() -> None:
    data = dict(profile_to_dict(WORKBENCH), warp_factor=9)
    with pytest.raises(ProfileFormatError, match="unknown ReplayProfile field.*warp_factor"):
        profile_from_dict(data)


def test_a_store_adopts_the_shipped_lab_profile_until_a_team_adopts_another(promotion_store: Store) -> None:
    repo = ProfileRepository(promotion_store)
    assert repo.adopted_label() == "lab-2026-12"
    assert repo.adopted() == LAB_2026_12


def test_adopting_a_report_setting_writes_one_version_and_one_audit_event(promotion_store: Store) -> None:
    report = _report(Setting(), TUNED, chosen=TUNED.name)
    stored = adopt_from_report(promotion_store, report, "chosen:failure_class_proxy", "team", "lee")
    repo = ProfileRepository(promotion_store)
    assert stored.label == "team@1" and repo.adopted_label() == "team@1"
    assert repo.adopted() == TUNED.profile("all-MiniLM-L6-v2").with_(name="team@1")
    assert stored.split == {"group_by": "failure_class", "seed": 26} and not stored.tuned_on_all_data
    assert repo.lab_report("team@1") == report
    [event] = ReviewRepository(promotion_store).audit("replay_profile", "team@1")
    assert event.action == "adopt_profile" and event.actor == (promotion_store.login() or "lee")


def test_a_setting_picked_by_hand_is_marked_tuned_on_all_data(promotion_store: Store) -> None:
    stored = adopt_from_report(promotion_store, _report(Setting(), TUNED, chosen=None), "2", "team", "lee")
    assert stored.tuned_on_all_data and stored.split is None and stored.lab_setting == TUNED.name


def test_adopting_again_under_a_name_makes_its_next_version_and_older_versions_stay(promotion_store: Store) -> None:
    report = _report(Setting(), TUNED)
    adopt_from_report(promotion_store, report, TUNED.name, "team", "lee")
    adopt_from_report(promotion_store, report, Setting().name, "team", "lee")
    repo = ProfileRepository(promotion_store)
    assert repo.adopted_label() == "team@2"
    assert repo.resolve("team@1").threshold == 0.7 and repo.resolve("team").threshold is None
    assert [p.label for p in repo.list_profiles()] == ["reference-0.3.1", "workbench", "lab-2026-12", "team@1", "team@2"]


def test_the_built_in_profiles_cannot_be_replaced(promotion_store: Store) -> None:
    for name in ("workbench", "reference-0.3.1", "lab-2026-12"):
        with pytest.raises(ProfileRefused, match="built-in"):
            adopt_from_report(promotion_store, _report(TUNED), TUNED.name, name, "lee")
    repo = ProfileRepository(promotion_store)
    assert repo.resolve("reference-0.3.1") == REFERENCE_0_3_1 and len(repo.list_profiles()) == 3


def test_a_built_in_can_be_adopted_back(promotion_store: Store) -> None:
    adopt_from_report(promotion_store, _report(TUNED), TUNED.name, "team", "lee")
    ProfileRepository(promotion_store).adopt("reference-0.3.1", "lee", "back to the reference")
    assert ProfileRepository(promotion_store).adopted_label() == "reference-0.3.1"


def test_an_unknown_setting_or_label_is_one_clear_refusal(promotion_store: Store) -> None:
    with pytest.raises(BadLabReport, match="no setting named"):
        candidate(_report(TUNED), "nope")
    with pytest.raises(BadLabReport, match="no chosen setting under truth"):
        candidate(_report(TUNED), "chosen:expected_rule")
    with pytest.raises(UnknownProfile, match="no profile 'team@3'"):
        ProfileRepository(promotion_store).resolve("team@3")


def test_a_report_whose_setting_rebuilds_as_another_is_refused() -> None:
    report = _report(TUNED)
    report["settings"][0]["threshold"] = 0.5  # type: ignore[index]
    with pytest.raises(BadLabReport, match="rebuilds as"):
        candidate(report, TUNED.name)


def test_cli_adopts_from_a_lab_report_and_replay_then_runs_and_records_the_adopted_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "s.sqlite")
    assert cli_main(["import", str(DEMO), "--store", db]) == 0
    (tmp_path / "report.json").write_text(json.dumps(_report(Setting(), TUNED, chosen=TUNED.name)), encoding="utf-8")
    assert cli_main(["lab", "adopt", "--store", db, "--from", str(tmp_path / "report.json"),
                     "--setting", "chosen:failure_class_proxy", "--name", "team", "--reviewer", "lee"]) == 0
    assert "Stored as team@1" in capsys.readouterr().out
    assert cli_main(["replay", "--store", db, "--no-semantic", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["profile"] == "team@1"
    assert cli_main(["replay", "--store", db, "--profile", "workbench", "--no-semantic", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["profile"] == "workbench"
    assert cli_main(["profile", "list", "--store", db]) == 0
    assert "* team@1" in capsys.readouterr().out
    assert cli_main(["profile", "show", "team@1", "--store", db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["adopted"] and shown["profile"]["threshold"] == 0.7


def test_cli_bad_report_and_unknown_profile_are_one_line_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.sqlite")
    assert cli_main(["import", str(DEMO), "--store", db]) == 0
    (tmp_path / "bad.json").write_text("{\n  not json", encoding="utf-8")
    capsys.readouterr()
    assert cli_main(["lab", "adopt", "--store", db, "--from", str(tmp_path / "bad.json"), "--setting", "1",
                     "--name", "team", "--reviewer", "lee"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.json: line 2 not a lab report.json" in err[0]
    assert cli_main(["replay", "--store", db, "--profile", "team@9"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no profile 'team@9'" in err[0]


def test_refusals_are_domain_errors_so_every_surface_shows_one_line() -> None:
    assert issubclass(ProfileRefused, DomainError) and issubclass(BadLabReport, DomainError)


def test_the_report_says_when_its_run_is_not_from_the_adopted_profile(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.sqlite")
    assert cli_main(["import", str(DEMO), "--store", db]) == 0
    assert cli_main(["replay", "--store", db, "--no-semantic"]) == 0
    capsys.readouterr()
    assert cli_main(["report", "--store", db, "--md"]) == 0
    assert "adopted profile" not in capsys.readouterr().out  # nothing adopted: nothing to say
    (tmp_path / "report.json").write_text(json.dumps(_report(TUNED)), encoding="utf-8")
    assert cli_main(["lab", "adopt", "--store", db, "--from", str(tmp_path / "report.json"), "--setting", "1",
                     "--name", "team", "--reviewer", "lee"]) == 0
    capsys.readouterr()
    assert cli_main(["report", "--store", db, "--md"]) == 0
    assert ("profile: `lab-2026-12` (the store's adopted profile is `team@1`: this evidence is not from it)"
            in capsys.readouterr().out)
