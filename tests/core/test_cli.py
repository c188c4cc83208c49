"""The headless CLI: import, replay, report, export — clear output, no tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main
from core.store.engine import open_store

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_import_json_lists_corpora_rejections_and_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "import", str(DEMO), "--store", str(tmp_path / "s.sqlite"), "--json")
    summary = json.loads(out)
    assert code == 0
    assert summary["corpora"]["failures"]["role"] == "extraction"
    assert summary["rejections"] == [] and summary["rules_imported"] == 8


def test_replay_json_names_origin_buckets_and_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s.sqlite")
    _run(capsys, "import", str(DEMO), "--store", store)
    code, out, _ = _run(
        capsys, "replay", "--store", store, "--profile", "reference-0.3.1", "--from-expected-rule", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["run"]["profile"] == "reference-0.3.1" and data["run"]["pairs"] > 0
    expected = [r for r in data["rules"] if r["kind"] == "expected_rule"]
    assert expected and all(":" in r["origin"] for r in expected)  # file:line for JSONL
    c01 = next(r for r in data["rules"] if r["origin"].endswith("C-01-git-push-non-ff.yaml"))
    assert c01["verdict"] == "pass" and "DF-GIT-001-push-non-ff" in c01["prevented"]
    assert {"precision_ci", "recall_ci", "recall_pool", "precision_pool", "missed"} <= set(c01)


def test_report_markdown_and_json_agree_on_rates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s.sqlite")
    _run(capsys, "import", str(DEMO), "--store", store)
    _run(capsys, "replay", "--store", store, "--profile", "reference-0.3.1", "--from-expected-rule")
    _code, out, _ = _run(capsys, "report", "--store", store, "--json")
    report = json.loads(out)
    _code, markdown, _ = _run(capsys, "report", "--store", store, "--md")
    row = report["corpora"]["failures"]
    assert f"{row['rate']['k']}/{row['rate']['n']}" in markdown
    assert row["rate_label"] == "acceptance_rate"


def test_report_without_a_run_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    open_store(tmp_path / "s.sqlite").close()  # an empty store (a missing one is refused: test_store_arguments)
    code, _out, err = _run(capsys, "report", "--store", str(tmp_path / "s.sqlite"))
    assert code == 1 and "no complete replay run" in err


def test_exporting_an_unknown_corpus_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    open_store(tmp_path / "s.sqlite").close()
    code, _out, err = _run(
        capsys, "export-trajectories", "--store", str(tmp_path / "s.sqlite"), "--corpus", "nope", "--out", str(tmp_path)
    )
    assert code == 1 and "no corpus named 'nope'" in err


def test_a_bad_threshold_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _run(capsys, "replay", "--store", str(tmp_path / "s.sqlite"), "--threshold", "3")
    assert code == 2 and "threshold" in err
