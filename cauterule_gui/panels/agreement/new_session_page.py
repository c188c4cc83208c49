"""The agreement screen's New session page: sizing (half-width → n), preview and create a blind session."""

from __future__ import annotations

import secrets
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.agreement.sizing import expected_half_width, n_for_half_width
from core.domain.agreement import SessionInfo

from cauterule_gui.jobs.runner import JobHandle
from cauterule_gui.models import agreement_data
from cauterule_gui.panels.agreement.common import (
    TAB_JUDGE,
    session_title,
)
from cauterule_gui.plain_text import plain_label


class NewSessionPage:
    """The New session page of ``AgreementPanel`` (a mixin: the widgets live on the panel)."""

    # == construction =====================================================================
    def _build_new(self) -> QWidget:
        page = QWidget(self)
        self.run_combo = QComboBox(page)
        self.run_combo.setObjectName("agreementRun")
        self.run_combo.setAccessibleName("Replay run")
        self.run_combo.currentIndexChanged.connect(lambda _i: self._preview_timer.start())
        self.half_width = QDoubleSpinBox(page)
        self.half_width.setObjectName("agreementHalfWidth")
        self.half_width.setAccessibleName("Target confidence-interval half-width")
        self.half_width.setRange(0.01, 0.49)
        self.half_width.setSingleStep(0.01)
        self.half_width.setDecimals(3)
        self.half_width.setValue(0.10)
        self.half_width.setPrefix("± ")
        self.assumed_p = QDoubleSpinBox(page)
        self.assumed_p.setObjectName("agreementAssumedP")
        self.assumed_p.setAccessibleName("Assumed agreement")
        self.assumed_p.setRange(0.5, 0.99)
        self.assumed_p.setSingleStep(0.05)
        self.assumed_p.setValue(0.80)
        self.assumed_p.setToolTip("The agreement you expect; the gate (0.80) is where the decision is hardest. "
                                  "0.5 gives the widest, most conservative interval.")
        self.needed_label = plain_label("", page)
        self.needed_label.setObjectName("agreementNeeded")
        self.size_spin = QSpinBox(page)
        self.size_spin.setObjectName("agreementSize")
        self.size_spin.setAccessibleName("Items to judge (n chosen)")
        self.size_spin.setRange(1, 100_000)
        self.size_label = plain_label("", page)
        self.size_label.setObjectName("agreementExpected")
        self.seed_spin = QSpinBox(page)
        self.seed_spin.setObjectName("agreementSeed")
        self.seed_spin.setAccessibleName("Seed")
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setValue(secrets.randbelow(2**31))
        self.seed_spin.setToolTip("The same run, seed and settings always draw the same items in the same order")
        self.allocation = QComboBox(page)
        self.allocation.setAccessibleName("Allocation across strata")
        self.allocation.addItem("Proportional (at least 2 per stratum)", "proportional")
        self.allocation.addItem("Equal (over-samples rare strata)", "equal")
        self.gate_spin = QDoubleSpinBox(page)
        self.gate_spin.setObjectName("agreementGate")
        self.gate_spin.setAccessibleName("Gate")
        self.gate_spin.setRange(0.5, 1.0)
        self.gate_spin.setSingleStep(0.05)
        self.gate_spin.setValue(0.80)
        self.blind_box = QCheckBox("Blind: replay's answer stays hidden until I commit my judgement", page)
        self.blind_box.setObjectName("agreementBlind")
        self.blind_box.setChecked(True)
        self.blind_box.setToolTip("An unblinded session shows replay's answer up front; it is reported apart "
                                  "and never feeds the gate")
        self.name_edit = QLineEdit(page)
        self.name_edit.setAccessibleName("Session name")
        self.name_edit.setPlaceholderText("optional, e.g. “release 2.4 audit”")
        self.preview_label = plain_label("", page)
        self.preview_label.setObjectName("agreementPreview")
        self.preview_label.setWordWrap(True)
        self.create_button = QPushButton("Create session", page)
        self.create_button.setObjectName("agreementCreate")
        self.create_button.clicked.connect(self.create_session)
        for spin in (self.half_width, self.assumed_p):
            spin.valueChanged.connect(lambda _v: self._update_sizing(follow_target=True))
        self.size_spin.valueChanged.connect(lambda _v: self._on_size_typed())
        self.seed_spin.valueChanged.connect(lambda _v: self._preview_timer.start())
        self.allocation.currentIndexChanged.connect(lambda _i: self._preview_timer.start())

        form = QFormLayout()
        form.addRow(plain_label("Replay run", page), self.run_combo)
        form.addRow(plain_label("Target 95% half-width", page), self.half_width)
        form.addRow(plain_label("Assumed agreement p", page), self.assumed_p)
        form.addRow(plain_label("", page), self.needed_label)
        form.addRow(plain_label("Items to judge (n)", page), self.size_spin)
        form.addRow(plain_label("", page), self.size_label)
        form.addRow(plain_label("Seed", page), self.seed_spin)
        form.addRow(plain_label("Allocation", page), self.allocation)
        form.addRow(plain_label("Gate", page), self.gate_spin)
        form.addRow(plain_label("Name", page), self.name_edit)
        form.addRow(plain_label("", page), self.blind_box)
        layout = QVBoxLayout(page)
        layout.addLayout(form)
        layout.addWidget(self.preview_label)
        layout.addWidget(self.create_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(1)
        return page

    # == new session ======================================================================
    def _update_sizing(self, follow_target: bool = False) -> None:
        target, p = self.half_width.value(), self.assumed_p.value()
        needed = n_for_half_width(target, p)
        population = self.population
        offer = f" · the run offers {population} items" if population is not None else ""
        self.needed_label.setText(f"n needed for ±{target:.3f} at p = {p:.2f}: {needed}{offer}")
        if follow_target:
            self._size_typed = False
            self.size_spin.blockSignals(True)
            self.size_spin.setValue(min(needed, population) if population else needed)
            self.size_spin.blockSignals(False)
            self._preview_timer.start()
        n = self.size_spin.value()
        if population is not None and n > population:
            n = population
        width = expected_half_width(n, p)
        capped = " (capped: the run has no more items)" if population is not None and self.size_spin.value() > population \
            else ""
        self.size_label.setText(f"with n = {n} the expected half-width is ±{width:.3f}{capped}" if width is not None
                                else "")

    def _on_size_typed(self) -> None:
        self._size_typed = True  # a typed n is kept when the run's size arrives
        self._update_sizing()
        self._preview_timer.start()

    def preview(self) -> JobHandle | None:
        run_id = self.run_combo.currentData()
        if run_id is None:
            return None
        size, seed, allocation = self.size_spin.value(), self.seed_spin.value(), self.allocation.currentData()
        handle = self._db(lambda store: agreement_data.preview(store, run_id, size, seed, allocation),
                          "agreement preview", key=f"agreement-preview:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_preview)
            handle.error.connect(lambda f: self.preview_label.setText(f"Cannot sample this run: {f.message}"))
        return handle

    def _on_preview(self, preview: Any) -> None:
        first = self.population is None
        self.population = preview.plan.population
        self._update_sizing(follow_target=first and not self._size_typed)
        strata = ", ".join(f"{s.split(':', 1)[1].replace('_', '-')} ({s.split(':')[0]}) {v['sampled']} of "
                           f"{v['population']}" for s, v in preview.strata.items())
        self.preview_label.setText(f"Sample of {preview.plan.size} items, stratified by replay's verdicts and "
                                   f"evidence buckets: {strata}.")

    def create_session(self) -> JobHandle | None:
        run_id = self.run_combo.currentData()
        creator = self.identity.require(self)
        if run_id is None or not creator:
            self.message.setText("Choose a complete replay run and give your reviewer name first.")
            return None
        from core.agreement.session import create_session

        target, p, size = self.half_width.value(), self.assumed_p.value(), self.size_spin.value()
        from_target = not self._size_typed  # n came from the target: the session records the target
        options: dict[str, Any] = dict(
            size=None if from_target else size, target_half_width=target if from_target else None, assumed_p=p,
            seed=self.seed_spin.value(), allocation=self.allocation.currentData(), blind=self.blind_box.isChecked(),
            gate=self.gate_spin.value(), name=self.name_edit.text().strip() or None,
        )

        def job(store: Any) -> SessionInfo:
            return create_session(store, run_id, creator, **options)

        self.create_button.setEnabled(False)
        handle = self._op(job, "create agreement session", {"agreement"})
        if handle is not None:
            handle.result.connect(self._on_created)
            handle.error.connect(self._failed("The session was not created"))
            handle.finished.connect(lambda: self.create_button.setEnabled(True))
        return handle

    def _on_created(self, info: SessionInfo) -> None:
        self.message.setText(f"Created {session_title(info)}. Judge it now, or later: it is saved.")
        self.session_created.emit(info)
        self._want_session = info.id
        self.seed_spin.setValue(secrets.randbelow(2**31))  # the next session draws afresh
        self.tabs.setCurrentIndex(TAB_JUDGE)
        self.refresh()
