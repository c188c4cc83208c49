"""Metrics tab: cross-session repeat failures (reference §9.2). Pick a baseline and an
intervention file (or the demo), a window, whether history is carried into it; the card
plots failures and repeats per session for both arms and lists the 0.3.1 numbers with exact
counts, Wilson intervals and a per-class table. Reading the session files and counting run
on the CPU pool (``executor.compute``: files, not the store); the measurement is then kept
for ``report`` with an ``executor.op`` (kind ``measurements``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from matplotlib.figure import Figure
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.loop.cross_session import SessionFileError, compare, parse_window, read_sessions

from cauterule_gui.jobs.runner import JobContext, JobHandle, JobPool, JobRunner
from cauterule_gui.plain_text import plain_label
from cauterule_gui.plots.figure_card import FigureCard

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor

DEMO_DIR = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "cross-session"


def draw_sessions(figure: Figure, data: dict[str, Any]) -> None:
    """Bars: failures per session per arm; hatched part: repeats (window only); shaded window."""
    figure.clear()
    ax = figure.add_subplot(1, 1, 1)
    result = data.get("result")
    if not result:
        ax.text(0.5, 0.5, "No session files loaded", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    sessions = sorted({int(s) for arm in ("baseline", "intervention")
                       for s in result[arm]["failures_per_session"]})
    width = 0.38
    for offset, arm, colour in ((-width / 2, "baseline", "#7f7f7f"), (width / 2, "intervention", "#1f77b4")):
        per = result[arm]["failures_per_session"]
        ax.bar([s + offset for s in sessions], [per.get(str(s), 0) for s in sessions], width, label=f"{arm} failures",
               color=colour, zorder=2)
    window = result.get("window") or sessions
    if window:
        ax.axvspan(min(window) - 0.5, max(window) + 0.5, color="#ffd54f", alpha=0.3, label="measured window", zorder=0)
    b, i = result["baseline"]["repeat_rate"], result["intervention"]["repeat_rate"]
    ax.set_title(f"repeat rate in window: baseline {b['k']}/{b['n']}, intervention {i['k']}/{i['n']}; "
                 f"reduction {result['reduction']:.2f} (target {result['target']:.2f})", fontsize=9)
    ax.set_xlabel("session")
    ax.set_ylabel("failures")
    ax.set_xticks(sessions)
    ax.legend(fontsize=8, loc="upper right")
    figure.tight_layout()


def compute(baseline: Path, intervention: Path, window_text: str, carry: bool) -> dict[str, Any]:
    window = parse_window(window_text)
    result = compare(read_sessions(baseline), read_sessions(intervention), window, carry_history=carry)
    return result.to_dict() | {"baseline_file": str(baseline), "intervention_file": str(intervention)}


class CrossSessionCard(QWidget):
    def __init__(self, runner: JobRunner, parent: QWidget | None = None, db: DatabaseExecutor | None = None) -> None:
        """``db``: the window's executor, to keep the measurement in the store (standalone: not kept)."""
        super().__init__(parent)
        self.setObjectName("crossSessionCard")
        self._runner, self._db = runner, db
        self.result: dict[str, Any] | None = None
        self.baseline_edit, self.intervention_edit = QLineEdit(self), QLineEdit(self)
        self.baseline_edit.setObjectName("crossSessionBaseline")
        self.intervention_edit.setObjectName("crossSessionIntervention")
        self.window_edit = QLineEdit("4-5", self)
        self.window_edit.setObjectName("crossSessionWindow")
        self.window_edit.setToolTip("sessions measured, e.g. 4-5 or 4,5; empty: every session")
        self.carry_box = QCheckBox("Carry history into the window (0.3.1 restarts at the window)", self)
        self.demo_button = QPushButton("Load demo", self)
        self.demo_button.clicked.connect(self.load_demo)
        self.compute_button = QPushButton("Compute", self)
        self.compute_button.setObjectName("crossSessionCompute")
        self.compute_button.clicked.connect(self.run)
        self.carry_box.toggled.connect(lambda _on: self.run() if self.result else None)
        pick_b, pick_i = QPushButton("…", self), QPushButton("…", self)
        pick_b.clicked.connect(lambda: self._pick(self.baseline_edit))
        pick_i.clicked.connect(lambda: self._pick(self.intervention_edit))
        grid = QGridLayout()
        grid.addWidget(plain_label("Baseline sessions:", self), 0, 0)
        grid.addWidget(self.baseline_edit, 0, 1)
        grid.addWidget(pick_b, 0, 2)
        grid.addWidget(plain_label("Intervention sessions:", self), 1, 0)
        grid.addWidget(self.intervention_edit, 1, 1)
        grid.addWidget(pick_i, 1, 2)
        bar = QHBoxLayout()
        bar.addWidget(plain_label("Window:", self))
        bar.addWidget(self.window_edit)
        bar.addWidget(self.carry_box, 1)
        bar.addWidget(self.demo_button)
        bar.addWidget(self.compute_button)
        self.card = FigureCard("cross_session", "Cross-session repeat failures (§9.2)",
                               draw_sessions, (7.0, 2.8), self)
        self.card.draw({})
        self.summary = plain_label("Load a baseline and an intervention file of {session, failure_class, success} "
                                   "records (JSONL), or the demo.", self)
        self.summary.setObjectName("crossSessionSummary")
        self.summary.setWordWrap(True)
        self.classes = QTableWidget(0, 3, self)
        self.classes.setObjectName("crossSessionClasses")
        self.classes.setHorizontalHeaderLabels(["Failure class", "Baseline repeats / failures",
                                                "Intervention repeats / failures"])
        self.classes.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.classes.verticalHeader().hide()
        self.classes.horizontalHeader().setStretchLastSection(True)
        self.classes.setMaximumHeight(180)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(grid)
        layout.addLayout(bar)
        layout.addWidget(self.card, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.classes)

    def _pick(self, edit: QLineEdit) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Session records", edit.text(), "JSON lines (*.jsonl *.ndjson)")
        if path:
            edit.setText(path)

    def load_demo(self) -> Any:
        self.baseline_edit.setText(str(DEMO_DIR / "baseline.sessions.ndjson"))
        self.intervention_edit.setText(str(DEMO_DIR / "intervention.sessions.ndjson"))
        return self.run()

    def run(self) -> Any:
        baseline, intervention = Path(self.baseline_edit.text().strip()), Path(self.intervention_edit.text().strip())
        if not self.baseline_edit.text().strip() or not self.intervention_edit.text().strip():
            self.summary.setText("Choose both files first.")
            return None
        window, carry = self.window_edit.text(), self.carry_box.isChecked()
        self.compute_button.setEnabled(False)
        self.summary.setText("Counting…")
        handle: JobHandle | None
        if self._db is not None:
            handle = self._db.compute(lambda: compute(baseline, intervention, window, carry), self._computed,
                                      name="cross-session", key=f"cross-session:{id(self)}", on_error=self._failed)
        else:
            def job(_ctx: JobContext) -> dict[str, Any]:
                return compute(baseline, intervention, window, carry)

            handle = self._runner.submit(job, name="cross-session", pool=JobPool.CPU, key=f"cross-session:{id(self)}")
            handle.result.connect(self.show_result)
            handle.error.connect(lambda f: self._failed(f.exception or RuntimeError(f.message)))
        if handle is None:
            self.compute_button.setEnabled(True)
            return None
        handle.finished.connect(lambda: self.compute_button.setEnabled(True))
        return handle

    def _computed(self, data: dict[str, Any]) -> None:
        self.show_result(data)
        if self._db is not None:
            from core.loop.saved import save_cross_session

            # `report` shows the last measurement beside the run.
            self._db.op(lambda s: save_cross_session(s.store, data), kinds={"measurements"}, initiator=self,
                        name="keep the cross-session measurement")

    def _failed(self, error: BaseException) -> None:
        if isinstance(error, SessionFileError):
            self.summary.setText("Cannot read the session files:\n" + "\n".join(str(i) for i in error.issues[:8]))
        else:
            self.summary.setText(f"Cannot compute: {error}")

    def show_result(self, result: dict[str, Any]) -> None:
        self.result = result
        self.card.draw({"result": result})
        b, i = result["baseline"], result["intervention"]

        def rate(r: dict[str, Any]) -> str:
            if r["value"] is None:
                return f"{r['k']}/{r['n']} (not measured)"
            return f"{r['k']}/{r['n']} = {r['value']:.2f} [{r['ci_low']:.2f}, {r['ci_high']:.2f}]"

        self.summary.setText(
            f"Repeats in window {result['window'] or 'all'}: baseline {rate(b['repeat_rate'])}, intervention "
            f"{rate(i['repeat_rate'])}; reduction {result['reduction']:.3f} — target {result['target']:.2f} "
            f"{'met' if result['meets_target'] else 'not met'}. Failures in window: {b['failures']} → {i['failures']}. "
            f"History carried: {'yes' if result['carry_history'] else 'no (as 0.3.1)'}.")
        rows = result["per_class"]
        self.classes.setRowCount(len(rows))
        for n, r in enumerate(rows):
            for col, text in enumerate((r["failure_class"], f"{r['baseline_repeats']} / {r['baseline_failures']}",
                                        f"{r['intervention_repeats']} / {r['intervention_failures']}")):
                self.classes.setItem(n, col, QTableWidgetItem(text))
        self.classes.resizeColumnsToContents()
        self.classes.resizeRowsToContents()
