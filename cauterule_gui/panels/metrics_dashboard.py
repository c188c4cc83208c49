"""The metrics dashboard: every number with its floor, its denominator and its ruler.

Figures: pass rate per corpus (Wilson bars, labelled acceptance_rate / false_accept_rate,
floors); extraction sub-metrics side by side with floors; safety on rejection corpora
(replay alone, and separately the oracle override); human-vs-replay confusion matrix and
kappa per session; the ruler (floors, canaries, mutation drops). Each exports to PNG/SVG.

The numbers are computed off the GUI thread by :func:`dashboard_data` through the window's
database executor (``query_cancellable``, on the CPU pool: a plain core call,
``check_ruler`` + ``build_report``); only drawing happens here. Starting a refresh
supersedes the previous one, and a result computed for a store the window has since
switched away from is dropped by the executor. Built alone (tests, the external ruler
check) the panel makes its own executor over the services it was given.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from core.metrics.ruler import figures

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.jobs.runner import JobRunner
from cauterule_gui.plain_text import plain_label
from cauterule_gui.plots.figure_card import FigureCard, RenderedFigure
from cauterule_gui.services import StoreServices

ONE_COLUMN_BELOW = 1500  # px of panel width
LAYOUT = {  # name -> (row, column, column span)
    "pass_rates": (0, 0, 1),
    "extraction": (0, 1, 1),
    "safety": (1, 0, 1),
    "human_vs_replay": (1, 1, 1),
    "ruler": (2, 0, 2),
}


@dataclass(frozen=True)
class DashboardImages:
    """What the dashboard's job returns: the report and every figure already rendered."""

    report: dict[str, Any]
    figures: dict[str, RenderedFigure]


def dashboard_data(store: Any, run_id: int | None = None, semantic: bool = False,
                   cancel: Any = None) -> dict[str, Any]:
    """Everything the dashboard draws, as the report dict (with the ruler). Core work, except
    that the semantic comparators' vectors come from a replay child through the store's
    vector cache (``RemoteEmbedder``): the window process never loads the embedding model."""
    from core.embeddings import EmbeddingUnavailable
    from core.metrics.ruler.suite import check_ruler
    from core.report import build_report

    from cauterule_gui.jobs.remote_embedder import RemoteEmbedder

    embed, note = None, None
    if semantic:
        try:
            embed = RemoteEmbedder(store=store.path).load()
        except EmbeddingUnavailable as error:
            note = str(error)
    if cancel is not None and cancel.is_set():
        raise InterruptedError("cancelled")
    suite = check_ruler(store, run_id, embed=embed, semantic_note=note)
    if cancel is not None and cancel.is_set():
        raise InterruptedError("cancelled")
    return build_report(store, run_id, ruler=suite)


class MetricsDashboardPanel(QWidget):
    """Standalone panel: ``MetricsDashboardPanel(services, runner)``; call ``refresh()``."""

    data_loaded = Signal(object)  # the report dict
    refresh_failed = Signal(str)

    def __init__(self, services: StoreServices, runner: JobRunner, parent: QWidget | None = None, *,
                 run_id: int | None = None, semantic: bool = False, db: DatabaseExecutor | None = None) -> None:
        super().__init__(parent)
        self._services = services
        self._runner = runner
        self._db = db if db is not None else DatabaseExecutor(runner, lambda: services, self)
        self.run_id = run_id
        self.report: dict[str, Any] | None = None
        self._handle: Any = None

        self.status = plain_label("Not loaded yet.", self)
        self.status.setObjectName("metricsStatus")
        # The run summary can be a long line (every flagged comparator): it wraps, and it may
        # never widen the window (it once forced 1,802 px and pushed the Export buttons off).
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.status.setMinimumWidth(200)
        self.semantic_box = QCheckBox("Semantic comparators", self)
        self.semantic_box.setToolTip("Score the ruler's semantic comparators too (loads the embedding model)")
        self.semantic_box.setChecked(semantic)
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.clicked.connect(self.refresh)
        self.export_all_button = QPushButton("Export all figures…", self)
        self.export_all_button.clicked.connect(self._export_all_dialog)
        self.export_all_button.setEnabled(False)
        bar = QHBoxLayout()
        bar.addWidget(self.status, 1)
        for widget in (self.semantic_box, self.refresh_button, self.export_all_button):
            bar.addWidget(widget, 0, Qt.AlignmentFlag.AlignTop)

        self.cards: dict[str, FigureCard] = {}
        body = QWidget(self)
        self._grid = QGridLayout(body)
        for name, (draw, size) in figures.FIGURES.items():
            self.cards[name] = FigureCard(name, figures.TITLES[name], draw, size, body)
        from cauterule_gui.loop.cross_session_card import CrossSessionCard  # §9.2 card (H15)

        self.cross_session = CrossSessionCard(runner, body, db=db)
        self.columns = 0
        self._arrange(2)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        self.scroll = scroll
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(scroll, 1)

    # -- layout ---------------------------------------------------------------------------
    def _arrange(self, columns: int) -> None:
        """Two figures side by side from ONE_COLUMN_BELOW px up; one per row below that, where
        side by side the figures' text would overlap (their drawings have a natural size)."""
        if columns == self.columns:
            return
        self.columns = columns
        for card in (*self.cards.values(), self.cross_session):
            self._grid.removeWidget(card)
        for index, (name, card) in enumerate(self.cards.items()):
            if columns == 2:
                row, col, span = LAYOUT[name]
                self._grid.addWidget(card, row, col, 1, span)
            else:
                self._grid.addWidget(card, index, 0, 1, 1)
        last = max(r for r, _c, _s in LAYOUT.values()) + 1 if columns == 2 else len(self.cards)
        self._grid.addWidget(self.cross_session, last, 0, 1, columns)  # the loop's card (H15) closes the page

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        self._arrange(2 if self.width() >= ONE_COLUMN_BELOW else 1)

    # -- data -----------------------------------------------------------------------------
    def refresh(self) -> Any:
        """Recompute off the GUI thread (superseding a running refresh); draw when it returns.
        Returns the job, or None when the executor has no store (the window is closing)."""
        run_id, semantic = self.run_id, self.semantic_box.isChecked()
        cards = dict(self.cards)

        def job(services: StoreServices, cancel: Any) -> DashboardImages:
            report = dashboard_data(services.store, run_id, semantic, cancel)
            # The figures are drawn and rasterised here too, off the GUI thread (issue 24 item 9).
            return DashboardImages(report, {name: card.render(report) for name, card in cards.items()})

        handle = self._db.query_cancellable(job, self._show_images, name="metrics dashboard",
                                            key=f"dashboard:{id(self)}", on_error=self._on_error, heavy=True)
        if handle is None:
            return None
        self.status.setText("Computing metrics, floors and the ruler…")
        self.refresh_button.setEnabled(False)
        handle.finished.connect(lambda: self.refresh_button.setEnabled(True))
        self._handle = handle
        return handle

    def _on_error(self, error: BaseException) -> None:
        message = str(error)
        if isinstance(error, LookupError):
            self.status.setText(f"Not measured: {message}. Run replay first.")
        else:
            self.status.setText(f"Could not compute the metrics: {type(error).__name__}: {message}")
        self.refresh_failed.emit(message)

    def _show_images(self, images: DashboardImages) -> None:
        for name, rendered in images.figures.items():
            self.cards[name].show_rendered(rendered)
        self._show_summary(images.report)

    def show_report(self, report: dict[str, Any]) -> None:
        """Draw every figure here and show the report (callers without a job; the dashboard's
        own refresh renders off the GUI thread)."""
        for card in self.cards.values():
            card.draw(report)
        self._show_summary(report)

    def _show_summary(self, report: dict[str, Any]) -> None:
        self.report = report
        run = report["run"]
        ruler = report.get("ruler") or {}
        flagged = ruler.get("flagged") or []
        self.status.setText(
            f"Run {run['id']} (profile {run['profile']}"
            + (f", not the adopted {run['adopted_profile']}" if run.get("adopted_profile") else "")
            + f", semantic {run['semantic']}), {run['rules']} rules, "
            f"corpus {run['corpus_hash'][:12]}; ruler: semantic {ruler.get('semantic', '—')}, "
            f"{len(flagged)} comparator(s) flagged" + (f": {', '.join(flagged)}" if flagged else "")
            + (f". Read {run['read']['description']}" if run.get("read") else "")  # which run(s), core's words
        )
        self.status.setToolTip(self.status.text())
        self.export_all_button.setEnabled(True)
        self.data_loaded.emit(report)

    # -- export ---------------------------------------------------------------------------
    def export_all(self, out_dir: Path) -> list[Path]:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        written = []
        for name, card in self.cards.items():
            written.append(card.export(out_dir / f"{name}.png"))
            written.append(card.export(out_dir / f"{name}.svg"))
        return written

    def _export_all_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export all figures to")
        if folder:
            self.export_all(Path(folder))
