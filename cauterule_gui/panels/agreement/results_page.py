"""The agreement screen's Results page: agreement, κ, confusion matrices, per-stratum rates, the gate."""

from __future__ import annotations

from typing import Any

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QVBoxLayout,
    QWidget,
)

from core.domain.agreement import GATE_FAIL, GATE_PASS

from cauterule_gui import theme
from cauterule_gui.jobs.runner import JobHandle
from cauterule_gui.models.agreement_result_models import AgreementStratumModel, rate_cell, scope_lines, stratum_rows
from cauterule_gui.panels.agreement.common import (
    session_title,
)
from cauterule_gui.panels.base import bold, make_table
from cauterule_gui.plain_text import plain_label
from cauterule_gui.plots.confusion import draw_confusion


class ResultsPage:
    """The Results page of ``AgreementPanel`` (a mixin: the widgets live on the panel)."""

    def _build_results(self) -> QWidget:
        page = QWidget(self)
        self.results_page = page
        self.results_title = bold(plain_label("No session selected.", page))
        self.results_title.setObjectName("resultsTitle")
        self.mode_label = plain_label("", page)
        self.mode_label.setObjectName("resultsMode")
        self.mode_label.setWordWrap(True)
        self.gate_label = bold(plain_label("", page), 2)
        self.gate_label.setObjectName("resultsGate")
        self.gate_label.setAutoFillBackground(True)
        self.gate_label.setWordWrap(True)
        self.agreement_label = plain_label("", page)
        self.agreement_label.setObjectName("resultsAgreement")
        self.kappa_label = plain_label("", page)
        self.kappa_label.setObjectName("resultsKappa")
        self.kappa_label.setWordWrap(True)
        self.extra_label = plain_label("", page)
        self.extra_label.setObjectName("resultsExtra")
        self.extra_label.setWordWrap(True)
        self.figure = Figure(figsize=(8.0, 3.4), dpi=100)
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setParent(page)
        self.canvas.setMinimumHeight(260)
        self.canvas.setAccessibleName("Confusion matrices: replay (rows) against the human (columns)")
        self.strata_model = AgreementStratumModel(self)
        self.strata_view = make_table(page, self.strata_model, "resultsStrata", "Agreement per stratum",
                                      single=True, fit_columns=True)
        self.unblinded_box = QGroupBox("Unblinded workspace marks (made with replay's answer on screen; "
                                       "reported apart, never in the blind result or the gate)", page)
        self.unblinded_label = plain_label("", self.unblinded_box)
        self.unblinded_label.setObjectName("resultsUnblinded")
        self.unblinded_label.setWordWrap(True)
        box = QVBoxLayout(self.unblinded_box)
        box.addWidget(self.unblinded_label)

        numbers = QVBoxLayout()
        for widget in (self.results_title, self.mode_label, self.gate_label, self.agreement_label, self.kappa_label,
                       self.extra_label):
            numbers.addWidget(widget)
        numbers.addWidget(self.strata_view, 1)
        upper = QHBoxLayout()
        upper.addLayout(numbers, 2)
        upper.addWidget(self.canvas, 3)
        layout = QVBoxLayout(page)
        layout.addLayout(upper, 1)
        layout.addWidget(self.unblinded_box)
        return page

    # == results ==========================================================================
    def load_results(self) -> JobHandle | None:
        session = self.current_session()
        if session is None:
            self.results_title.setText("No session selected.")
            return None
        from core.agreement.results import session_result

        handle = self._db(lambda store: session_result(store, session.id), "agreement results",
                          key=f"agreement-results:{id(self)}")
        if handle is not None:
            handle.result.connect(self.show_result)
            handle.error.connect(self._failed("Could not compute the results"))
        return handle

    def show_result(self, result: Any) -> None:
        self.last_result = result
        info, comparison = result.session, result.comparison
        self.results_title.setText(session_title(info) + f" · seed {info.seed} · gate {info.gate:.2f}")
        progress = ", ".join(f"{r} {c}/{result.size}" for r, c in result.progress.items()) or "nobody yet"
        if info.blind:
            self.mode_label.setText(f"Blind session: every reviewer committed before seeing replay's answer. "
                                    f"Judged: {progress}.")
        else:
            self.mode_label.setText(f"UNBLINDED session: replay's answer was on screen. Reported apart; it never "
                                    f"feeds the gate. Judged: {progress}.")
        gate = comparison.gate
        state = {GATE_PASS: "PASS", GATE_FAIL: "FAIL"}.get(gate.state, "NOT ENOUGH DATA")
        prefix = "Gate" if info.blind else "Gate (not used: unblinded)"
        self.gate_label.setText(f"{prefix} {gate.threshold:.2f}: {state} — {gate.reason}")
        swatch = theme.swatch({GATE_PASS: "pass", GATE_FAIL: "fail"}.get(gate.state, "inconclusive"))
        if swatch is not None:
            palette = self.gate_label.palette()
            palette.setColor(self.gate_label.backgroundRole(), swatch.background)
            palette.setColor(self.gate_label.foregroundRole(), swatch.foreground)
            self.gate_label.setPalette(palette)
        abstained = f"; {comparison.abstained} can't tell (left out)" if comparison.abstained else ""
        self.agreement_label.setText(f"Percent agreement: {rate_cell(comparison.agreement)} (Wilson 95%){abstained}")
        kappa = comparison.kappa
        if kappa.value is None:
            self.kappa_label.setText(f"Cohen's κ: — ({kappa.note or 'not enough data'})")
        else:
            ci = "" if kappa.ci is None else f" [{kappa.ci[0]:.2f}–{kappa.ci[1]:.2f}]"
            # The core says why an interval is absent or one-sided (too few items, perfect agreement).
            why = getattr(kappa, "interval_note", None)
            method = why if why else kappa.method
            self.kappa_label.setText(f"Cohen's κ: {kappa.value:.2f}{ci} ({method}; replay as rater 2; "
                                     f"{kappa.n} item{'s' if kappa.n != 1 else ''})")
        weighted = result.population_weighted
        lines = [f"Population-weighted agreement: {weighted:.2f}" if weighted is not None else
                 "Population-weighted agreement: —"]
        lines.extend(scope_lines(result))
        if len(result.per_reviewer) > 1:
            lines.extend(f"{r}: {rate_cell(c.agreement)}" for r, c in result.per_reviewer.items())
        self.extra_label.setText("\n".join(lines))
        self.strata_model.set_rows(stratum_rows(result))
        draw_confusion(self.figure, comparison.per_kind, dark=theme.is_dark(self.palette()))
        self.canvas.draw_idle()
        marks = result.unblinded
        self.unblinded_label.setText(
            f"{marks.right} right, {marks.wrong} wrong, {marks.cant_tell} can't tell · agreement "
            f"{rate_cell(marks.agreement)} · {marks.note}" if marks.marks else
            "No unblinded marks for this run.")
        self.results_shown.emit(result)
