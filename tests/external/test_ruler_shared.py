"""The ruler and the dashboard on the shared CauterRule corpus.

Renders every dashboard panel offscreen and saves a PNG under the test's tmp_path; checks
that ``write_report`` numbers equal the JSON there too, and that the numbers docs/ruler.md
quotes still hold (lexical profile, seed 20260913).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.importing import import_paths
from core.replay.profiles import WORKBENCH
from core.replaying import materialise_expected_rules, run_replay
from core.store.engine import Store, open_store

pytestmark = pytest.mark.external


@pytest.fixture(scope="module")
def shared_store(shared_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = open_store(tmp_path_factory.mktemp("shared") / "s.sqlite")
    import_paths(store, [shared_corpus])
    materialise_expected_rules(store)
    run_replay(store, WORKBENCH.with_(semantic=False))
    return store


def test_ruler_on_the_shared_corpus(shared_store: Store) -> None:
    from core.metrics.ruler import check_ruler

    suite = check_ruler(shared_store)
    by = {r.metric: r for r in suite.reports}
    # Paraphrase-diversity set present: the matcher's paraphrase mutation is assessable.
    para = next(m for m in by["match_decision"].mutations if m.mutation == "paraphrase")
    assert para.applicable >= 15 and para.sensitivity is not None
    for r in suite.reports:
        assert r.floor.value is not None, r.metric
    assert {f.mutation for f in by["directive_f1"].flags} == {"opposite_directive"}
    assert "tool_swap" in {f.mutation for f in by["match_decision"].flags}


def test_report_numbers_equal_the_json_on_the_shared_corpus(shared_store: Store, tmp_path: Path) -> None:
    from core.report import write_report

    path = write_report(shared_store, None, tmp_path, semantic=False)
    report = json.loads((tmp_path / "report.json").read_text())
    markdown = path.read_text()
    for m in report["metrics"]:
        line = next(row for row in markdown.splitlines() if row.startswith(f"| `{m['key']}` |"))
        value = "not measured" if m["value"] is None else f"{m['value']:.3f}"
        floor = "not measured" if m["floor"]["value"] is None else f"{m['floor']['value']:.3f}"
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert (cells[1], cells[4]) == (value, floor), m["key"]


def test_dashboard_renders_every_panel_offscreen(qtbot: Any, shared_store: Store, qapp: Any, tmp_path: Path) -> None:
    from PySide6.QtCore import QCoreApplication

    from core.store.corpus_repo import CorpusRepository
    from core.store.replay_repo import ReplayRepository
    from core.store.result_repo import ResultRepository
    from core.store.review_repo import ReviewRepository
    from core.store.rule_repo import RuleRepository

    from cauterule_gui.jobs import JobRunner
    from cauterule_gui.panels.metrics_dashboard import MetricsDashboardPanel
    from cauterule_gui.services import StoreServices

    # Tests never write into the checkout: the committed screenshots come from packaging/screenshots.py.
    screenshot = tmp_path / "dashboard.png"
    services = StoreServices(shared_store, CorpusRepository(shared_store), RuleRepository(shared_store),
                             ReplayRepository(shared_store), ReviewRepository(shared_store),
                             ResultRepository(shared_store))
    runner = JobRunner()
    try:
        panel = MetricsDashboardPanel(services, runner)
        qtbot.addWidget(panel)
        panel.resize(1700, 1900)
        panel.show()
        with qtbot.waitSignal(panel.data_loaded, timeout=120_000):
            panel.refresh()
        for name, card in panel.cards.items():
            assert card.figure.axes, name
        body = panel.scroll.widget()
        body.resize(body.sizeHint().expandedTo(panel.scroll.viewport().size()))
        QCoreApplication.sendPostedEvents()  # the layout requests of the resize, before the grab
        assert panel.grab().save(str(screenshot)) or body.grab().save(str(screenshot))
        assert screenshot.stat().st_size > 10_000
    finally:
        assert runner.shutdown(10_000)
