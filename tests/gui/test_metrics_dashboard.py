"""The metrics dashboard: every panel renders on the demo store, figures export, no jobs leak."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.importing import import_paths
from core.replay.profiles import WORKBENCH
from core.replaying import materialise_expected_rules, run_replay

from cauterule_gui.jobs import JobRunner
from cauterule_gui.panels.metrics_dashboard import MetricsDashboardPanel
from cauterule_gui.services import StoreServices

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture
def demo_replayed(services: StoreServices) -> StoreServices:
    import_paths(services.store, [DEMO])
    materialise_expected_rules(services.store)
    run_replay(services.store, WORKBENCH.with_(semantic=False))
    return services


def _load(qtbot: Any, panel: MetricsDashboardPanel) -> dict[str, Any]:
    with qtbot.waitSignal(panel.data_loaded, timeout=60_000) as blocker:
        panel.refresh()
    return blocker.args[0]


def test_all_panels_render_on_the_demo_store(qtbot: Any, demo_replayed: StoreServices, runner: JobRunner) -> None:
    panel = MetricsDashboardPanel(demo_replayed, runner)
    qtbot.addWidget(panel)
    panel.resize(1400, 1000)
    panel.show()
    report = _load(qtbot, panel)
    assert set(panel.cards) == {"pass_rates", "extraction", "safety", "human_vs_replay", "ruler"}
    for name, card in panel.cards.items():
        assert card.figure.axes, f"{name} drew nothing"
        texts = [t.get_text() for ax in card.figure.axes for t in ax.texts]
        assert all("nan" not in t.lower() for t in texts), name
    # Labels carry the rate's meaning and its denominator.
    pass_texts = [t.get_text() for t in panel.cards["pass_rates"].figure.axes[0].texts]
    row = report["corpora"]["failures"]
    assert f"acceptance_rate  {row['rate']['k']}/{row['rate']['n']}" in pass_texts
    # Human-vs-replay is honestly "not measured" on a store without judgements.
    human_texts = " ".join(t.get_text() for ax in panel.cards["human_vs_replay"].figure.axes for t in ax.texts)
    assert "not measured" in human_texts
    assert "flagged" in panel.status.text()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=5000)


def test_every_figure_exports_png_and_svg(qtbot: Any, demo_replayed: StoreServices, runner: JobRunner,
                                          tmp_path: Path) -> None:
    panel = MetricsDashboardPanel(demo_replayed, runner)
    qtbot.addWidget(panel)
    _load(qtbot, panel)
    written = panel.export_all(tmp_path / "figs")
    assert len(written) == 10
    for path in written:
        data = path.read_bytes()
        if path.suffix == ".png":
            assert data.startswith(b"\x89PNG")
        else:
            assert b"<svg" in data[:2000]
    one = panel.cards["ruler"].export(tmp_path / "ruler_only.svg")
    assert one.exists()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=5000)


def test_a_store_without_a_run_says_not_measured(qtbot: Any, services: StoreServices, runner: JobRunner) -> None:
    panel = MetricsDashboardPanel(services, runner)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.refresh_failed, timeout=30_000):
        panel.refresh()
    assert "Not measured" in panel.status.text()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=5000)


def test_a_second_refresh_supersedes_the_first(qtbot: Any, demo_replayed: StoreServices, runner: JobRunner) -> None:
    panel = MetricsDashboardPanel(demo_replayed, runner)
    qtbot.addWidget(panel)
    first = panel.refresh()
    with qtbot.waitSignal(panel.data_loaded, timeout=60_000):
        panel.refresh()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=10_000)
    assert first.outcome in ("cancelled", "result")


def test_figures_computed_for_a_store_switched_away_from_are_dropped(
        qtbot: Any, demo_replayed: StoreServices, runner: JobRunner) -> None:
    """The dashboard's read goes through the window's executor: when the window switches store
    while the figures compute, they describe a store no panel shows and never reach the panel."""
    from cauterule_gui.db.executor import DatabaseExecutor

    shown: dict[str, StoreServices | None] = {"services": demo_replayed}
    db = DatabaseExecutor(runner, lambda: shown["services"])
    panel = MetricsDashboardPanel(demo_replayed, runner, db=db)
    qtbot.addWidget(panel)
    loaded: list[object] = []
    panel.data_loaded.connect(loaded.append)
    handle = panel.refresh()
    assert handle is not None
    shown["services"] = None  # the store closed before the result could reach the GUI thread
    qtbot.waitUntil(lambda: not handle.running, timeout=60_000)
    assert handle.outcome == "result"  # it did compute ...
    assert loaded == [] and panel.report is None  # ... and the executor dropped it


def test_the_dashboard_reads_through_the_executor(qtbot: Any, demo_replayed: StoreServices,
                                                  runner: JobRunner) -> None:
    """A refresh with no store behind the executor (the window is closing) starts no job."""
    from cauterule_gui.db.executor import DatabaseExecutor

    db = DatabaseExecutor(runner, lambda: demo_replayed)
    db.close()
    panel = MetricsDashboardPanel(demo_replayed, runner, db=db)
    qtbot.addWidget(panel)
    assert panel.refresh() is None
    assert not runner.is_busy()


def test_figures_are_drawn_off_the_gui_thread(qtbot: Any, demo_replayed: StoreServices, runner: JobRunner) -> None:
    """Issue 24 item 9: drawing the figures froze the window 0.45-1.2 s. Every figure is drawn
    and rasterised by the dashboard's job; the GUI thread only shows the pixels."""
    import threading

    panel = MetricsDashboardPanel(demo_replayed, runner)
    qtbot.addWidget(panel)
    panel.resize(1280, 800)
    panel.show()
    drawn_on: list[str] = []
    for card in panel.cards.values():
        original = card._draw

        def spy(figure: Any, report: dict[str, Any], original: Any = original) -> None:
            drawn_on.append(threading.current_thread().name)
            original(figure, report)

        card._draw = spy
    _load(qtbot, panel)
    gui = threading.main_thread().name
    assert len(drawn_on) == len(panel.cards) and gui not in drawn_on
    for card in panel.cards.values():
        assert card.rendered is not None and card.rendered.thread != gui
        assert not card.image.pixmap().isNull() and card.figure.axes  # shown, and exportable
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=5000)
