"""The report: floors beside every metric, self-describing header, Markdown numbers equal to
the JSON, figures written next to report.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.importing import import_paths
from core.metrics.ruler.model import MissingFloorError
from core.plain import markdown_text
from core.replay.profiles import WORKBENCH
from core.replaying import materialise_expected_rules, run_replay
from core.report import build_report, metrics_from_report, report_markdown, write_report
from core.store.engine import Store, open_store

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = open_store(tmp_path_factory.mktemp("report") / "s.sqlite")
    import_paths(store, [DEMO])
    materialise_expected_rules(store)
    run_replay(store, WORKBENCH.with_(semantic=False))
    return store


@pytest.fixture(scope="module")
def written(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report(demo_store, None, tmp_path_factory.mktemp("out"), semantic=False)


def test_every_displayed_metric_has_a_floor(demo_store: Store) -> None:
    report = build_report(demo_store)
    keys = {m["key"] for m in report["metrics"]}
    for name in report["corpora"]:
        assert {f"pass_rate@{name}", f"decisive_rate@{name}"} <= keys
    for name, acc in report["extraction_accuracy"].items():
        assert {f"{p}@{name}" for p in ("token_f1", "semantic_f1", "directive_f1", "token_agree", "agreement")} <= keys
        assert set(acc["floors"]) == {"token_f1", "semantic_f1", "directive_f1", "token_agree", "agreement"}
    assert {"human_vs_replay.agreement", "human_vs_replay.kappa"} <= keys
    for m in report["metrics"]:
        assert m["floor"] is not None
        if m["value"] is not None:
            assert m["floor"]["value"] is not None, m["key"]
    measured = report["extraction_accuracy"]["failures"]
    assert measured["n"] == 2 and measured["floors"]["token_f1"]["value"] < measured["token_f1"]


def test_the_old_keys_still_work(demo_store: Store) -> None:
    report = build_report(demo_store)
    row = report["corpora"]["failures"]
    assert {"role", "rate_label", "n", "verdicts", "reasons", "rate", "decisive_rate"} <= set(row)
    assert report["safety"]["note"] and "corpora" in report["safety"]
    assert {"id", "profile", "model", "semantic", "corpus_hash", "config_hash", "thresholds"} <= set(report["run"])


def test_a_report_whose_metric_lost_its_floor_cannot_be_rendered(demo_store: Store) -> None:
    report = build_report(demo_store)
    report["metrics"][0]["floor"] = None
    with pytest.raises(MissingFloorError):
        report_markdown(report)
    with pytest.raises(MissingFloorError):
        metrics_from_report(report)


def _fmt(v: float | None) -> str:
    return "not measured" if v is None else f"{v:.3f}"


def test_markdown_numbers_equal_the_json(written: Path) -> None:
    report = json.loads((written.parent / "report.json").read_text())
    markdown = written.read_text()
    for m in report["metrics"]:
        line = next(row for row in markdown.splitlines() if row.startswith(f"| `{m['key']}` |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1] == _fmt(m["value"]), m["key"]
        assert cells[4] == _fmt(m["floor"]["value"]), m["key"]
        if m["k"] is not None:
            assert cells[2] == f"{m['k']}/{m['n']}"
        if m["ci_low"] is not None:
            assert cells[3] == f"[{m['ci_low']:.3f}, {m['ci_high']:.3f}]"
    # The per-corpus table shows the same rate and floor as the JSON.
    row = report["corpora"]["failures"]
    rate = row["rate"]
    line = next(row for row in markdown.splitlines() if row.startswith("| failures |"))
    assert f"{rate['k']}/{rate['n']} = {rate['value']:.3f} [{rate['ci_low']:.3f}, {rate['ci_high']:.3f}]" in line
    assert f"| {_fmt(row['rate_floor']['value'])} |" in line
    # Every number in the ruler table comes from the JSON.
    for m in report["ruler"]["metrics"]:
        assert f"| {markdown_text(m['label'])} | {_fmt(m['value'])} | {_fmt(m['floor']['value'])} | " \
               f"{m['canaries']['passed']}/{m['canaries']['total']} |" in markdown


def test_the_report_is_self_describing(written: Path) -> None:
    markdown = written.read_text()
    report = json.loads((written.parent / "report.json").read_text())
    run = report["run"]
    assert f"profile: `{run['profile']}`" in markdown
    assert run["corpus_hash"] in markdown and "thresholds:" in markdown
    assert "pools: recall" in markdown and "precision" in markdown
    assert re.search(r"model: ", markdown) and "extraction comparator:" in markdown
    assert "## The ruler" in markdown and "## Every metric with its floor" in markdown


def test_figures_are_written_next_to_the_report(written: Path) -> None:
    report = json.loads((written.parent / "report.json").read_text())
    names = {f["name"] for f in report["figures"]}
    assert names == {"pass_rates", "extraction", "safety", "human_vs_replay", "ruler"}
    for f in report["figures"]:
        assert (written.parent / f["png"]).read_bytes().startswith(b"\x89PNG")
        assert b"<svg" in (written.parent / f["svg"]).read_bytes()[:2000]
        assert f"]({f['png']})" in written.read_text()
