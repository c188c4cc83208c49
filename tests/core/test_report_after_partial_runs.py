"""Replaying part of the store never breaks the report or the Metrics tab's numbers (issue 24 item 1).

The report and the metrics read the last complete picture -- the newest complete run of every
rule -- and name the newer runs of chosen rules they leave out; a metric whose floor cannot be
measured (one rule, a tiny store) is withheld with the reason, never fatal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from core.decisions.whatif import save_whatif_edit
from core.importing import import_paths
from core.metrics.ruler.suite import check_ruler
from core.replay.profiles import WORKBENCH
from core.replaying import materialise_expected_rules, run_replay
from core.report import build_report, report_markdown
from core.store.engine import Store, open_store
from core.store.rule_repo import RuleRepository

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"
LEXICAL = WORKBENCH.with_(semantic=False)


def _metrics_and_report(store: Store, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """What the Metrics tab computes (ruler + report) and what ``report --md`` prints; both must succeed."""
    report = build_report(store, ruler=check_ruler(store))
    report_markdown(report)
    capsys.readouterr()
    code = main(["report", "--store", str(store.path), "--md"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "# Replay report" in out
    return report


@pytest.fixture()
def demo_store(tmp_path: Path) -> Store:
    store = open_store(tmp_path / "s.sqlite")
    import_paths(store, [DEMO])
    materialise_expected_rules(store)
    return store


def test_full_then_one_rule_then_whatif_then_full_keeps_report_and_metrics(
    demo_store: Store, capsys: pytest.CaptureFixture[str],
) -> None:
    rule_id = RuleRepository(demo_store).list_rules()[0].id
    full = run_replay(demo_store, LEXICAL).run_id
    assert _metrics_and_report(demo_store, capsys)["run"]["read"]["run_id"] == full

    one_rule = run_replay(demo_store, LEXICAL, rule_ids=[rule_id]).run_id
    read = _metrics_and_report(demo_store, capsys)["run"]["read"]
    assert read["run_id"] == full and read["covers_every_rule"]
    assert [r["id"] for r in read["newer_partial_runs"]] == [one_rule]

    edit = save_whatif_edit(demo_store, rule_id, "when git push is rejected", "pull and rebase first", "ana")
    whatif = run_replay(demo_store, LEXICAL, rule_ids=[edit.rule_id]).run_id
    read = _metrics_and_report(demo_store, capsys)["run"]["read"]
    assert read["run_id"] == full and [r["id"] for r in read["newer_partial_runs"]] == [whatif, one_rule]

    again = run_replay(demo_store, LEXICAL).run_id
    read = _metrics_and_report(demo_store, capsys)["run"]["read"]
    assert read["run_id"] == again and read["newer_partial_runs"] == []


def test_the_report_says_which_run_it_read(demo_store: Store) -> None:
    full = run_replay(demo_store, LEXICAL).run_id
    rule_id = RuleRepository(demo_store).list_rules()[0].id
    one_rule = run_replay(demo_store, LEXICAL, rule_ids=[rule_id]).run_id
    markdown = report_markdown(build_report(demo_store))
    line = next(row for row in markdown.splitlines() if row.startswith("- read:"))
    assert f"run #{full}, the newest complete run of every rule" in line
    assert f"#{one_rule} (1 rule)" in line


def test_a_run_saved_before_the_coverage_marker_is_judged_by_its_size(demo_store: Store) -> None:
    full = run_replay(demo_store, LEXICAL).run_id
    rule_id = RuleRepository(demo_store).list_rules()[0].id
    one_rule = run_replay(demo_store, LEXICAL, rule_ids=[rule_id]).run_id
    with demo_store.session() as session:  # as an older Workbench saved them: no rule_selection
        from sqlalchemy import text

        for run_id in (full, one_rule):
            config = json.loads(session.execute(text("SELECT config_json FROM replay_run WHERE id = :i"),
                                                {"i": run_id}).scalar_one())
            config.pop("rule_selection")
            session.execute(text("UPDATE replay_run SET config_json = :c WHERE id = :i"),
                            {"c": json.dumps(config), "i": run_id})
    assert build_report(demo_store)["run"]["read"]["run_id"] == full


def test_only_a_one_rule_run_withholds_its_rates_and_says_why(
    demo_store: Store, capsys: pytest.CaptureFixture[str],
) -> None:
    rule_id = RuleRepository(demo_store).list_rules()[0].id
    run_replay(demo_store, LEXICAL, rule_ids=[rule_id])
    report = _metrics_and_report(demo_store, capsys)
    assert not report["run"]["read"]["covers_every_rule"]
    rates = [m for m in report["metrics"] if m["key"].startswith("pass_rate@")]
    assert rates and all(m["value"] is None and "withheld: its floor cannot be measured" in m["label"]
                         and "fewer than 2 rules" in m["label"] for m in rates)


def _tiny_corpus(root: Path, layout: dict[str, int]) -> Path:
    """``layout``: folder -> how many demo failure records it gets (real records, fewer of them)."""
    records = [line for f in sorted((DEMO / "failures").glob("*.jsonl")) for line in f.read_text().splitlines()
               if line.strip()]
    taken = 0
    for folder, count in layout.items():
        (root / folder).mkdir(parents=True)
        (root / folder / "records.jsonl").write_text("\n".join(records[taken:taken + count]) + "\n")
        taken += count
    return root


@pytest.mark.parametrize("layout", [{"failures": 1}, {"failures": 2, "nearmiss": 1, "adversarial": 1, "successes": 1}],
                         ids=["one-trajectory", "five-in-four-folders"])
def test_a_tiny_store_has_a_report_and_metrics(
    tmp_path: Path, layout: dict[str, int], capsys: pytest.CaptureFixture[str],
) -> None:
    store = open_store(tmp_path / "s.sqlite")
    import_paths(store, [_tiny_corpus(tmp_path / "corpus", layout)])
    materialise_expected_rules(store)
    run_replay(store, LEXICAL)
    report = _metrics_and_report(store, capsys)
    for metric in report["metrics"]:
        assert metric["value"] is None or metric["floor"]["value"] is not None, metric["key"]


def test_the_pass_rate_figure_withholds_a_rate_without_its_floor(demo_store: Store) -> None:
    from matplotlib.figure import Figure

    from core.metrics.ruler.figures import draw_pass_rates

    run_replay(demo_store, LEXICAL, rule_ids=[RuleRepository(demo_store).list_rules()[0].id])
    figure = Figure()
    draw_pass_rates(figure, build_report(demo_store))
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert any(t.startswith("withheld: its floor cannot be measured") for t in texts), texts
