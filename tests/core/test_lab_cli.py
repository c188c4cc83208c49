"""``lab --store DB [--json] [--out DIR] [--no-semantic]`` on the demo corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main as cli_main

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("lab") / "s.sqlite")
    assert cli_main(["import", str(DEMO), "--store", path]) == 0
    return path


def test_json_names_every_truth_with_its_n_and_the_split_and_null_where_there_is_no_data(
    demo_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert cli_main(["lab", "--store", demo_db, "--no-semantic", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["truths"]) == {"failure_class_proxy", "expected_rule", "reviewers"}
    assert data["truths"]["failure_class_proxy"]["proxy"] is True
    assert data["truths"]["reviewers"]["empty"] is True
    assert data["choices"]["reviewers"]["reason"] == "no data for this truth"
    reviewers = data["settings"][0]["readouts"]["reviewers"]["held_back"]
    assert reviewers["f1"] == {"value": None, "k": 0, "n": 0, "ci": None, "floor": None}
    assert data["splits"]["failure_class_proxy"]["group_by"] == "failure_class"
    assert len(data["settings"]) >= 50


def test_out_writes_the_markdown_report_and_the_curves(demo_db: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["lab", "--store", demo_db, "--no-semantic", "--out", str(tmp_path / "lab")]) == 0
    report = (tmp_path / "lab" / "report.md").read_text(encoding="utf-8")
    assert "failure_class_proxy" in report and "PROXY" in report and "floor" in report
    assert list((tmp_path / "lab").glob("curves_*.png"))
    out = capsys.readouterr().out
    assert "held-back" in out


def test_an_empty_store_is_one_line_on_stderr_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from core.store.engine import open_store

    open_store(tmp_path / "empty.sqlite").close()  # an empty store (a missing --store path is refused earlier)
    assert cli_main(["lab", "--store", str(tmp_path / "empty.sqlite"), "--no-semantic"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")


def test_reviewers_blind_answers_in_the_store_become_the_reviewers_truth(tmp_path: Path) -> None:
    from core.agreement.session import commit_judgement, create_session, next_item
    from core.lab.judgements import reviewer_judgements
    from core.lab.truths import reviewer_truth
    from core.replaying import load_inputs
    from core.store.engine import open_store
    from core.store.replay_repo import ReplayRepository

    path = str(tmp_path / "judged.sqlite")
    assert cli_main(["import", str(DEMO), "--store", path]) == 0
    assert cli_main(["replay", "--store", path, "--no-semantic", "--from-expected-rule"]) == 0
    store = open_store(Path(path))
    try:
        latest = ReplayRepository(store).latest_complete_run()
        assert latest is not None
        run = latest.id
        session = create_session(store, run, "lead", size=12, seed=3)
        judged: set[tuple[str, int]] = set()
        while (item := next_item(store, session.id, "ana")) is not None:
            on_failure = bool(item.scope_choices)
            commit_judgement(store, item.item_id, "ana", "prevents" if on_failure else item.choices[0],
                             scope="in_scope" if on_failure else None)
            if on_failure:
                judged.add((str(item.rule_version), int(item.trajectory_pk or -1)))
        assert judged, "the session asks about some failure"
        inputs = load_inputs(store, include_expected_rules=True)
        truth = reviewer_truth(reviewer_judgements(store), inputs.trajectories)
        rule_keys = {r.key for r in inputs.rules}
        assert not truth.empty and set(truth.rules) <= rule_keys
        assert {(r, t) for r, keys in truth.positives.items() for t in keys} == judged
    finally:
        store.close()


def test_the_report_reads_the_proxy_beside_the_reference_with_its_label_withheld(demo_db: str, tmp_path: Path) -> None:
    assert cli_main(["lab", "--store", demo_db, "--no-semantic", "--out", str(tmp_path / "lab")]) == 0
    report = (tmp_path / "lab" / "report.md").read_text(encoding="utf-8")
    proxy = report.split("## Choice under `failure_class_proxy`", 1)[1].split("## ", 1)[0].replace("\\", "")
    assert "(circular: reads failure_class" in proxy
    assert "reference-0.3.1 no-failure-class sem" in proxy and "(the reference, label withheld)" in proxy


def test_resplits_print_how_often_the_choice_rule_beats_the_reference(demo_db: str, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert cli_main(["lab", "--store", demo_db, "--no-semantic", "--resplits", "2", "--out", str(tmp_path / "lab")]) == 0
    out = capsys.readouterr().out
    assert "re-splits (2 other seeds, the same choice rule on each tuning part)" in out
    report = (tmp_path / "lab" / "report.md").read_text(encoding="utf-8")
    assert "| seed | chosen on its tuning part |" in report
    rows = json.loads((tmp_path / "lab" / "report.json").read_text(encoding="utf-8"))["choices"]
    assert [r["seed"] for r in rows["failure_class_proxy"]["resplits"]] == [1, 2]


@pytest.mark.parametrize("value", ["-1", "51", "two"])
def test_a_resplit_count_out_of_range_is_a_usage_error(demo_db: str, value: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli_main(["lab", "--store", demo_db, "--no-semantic", "--resplits", value])
    assert stop.value.code == 2
    assert "--resplits: must be a whole number from 0 to 50" in capsys.readouterr().err
