"""The Lab tab: run the calibration lab as a job, read its figures per truth, adopt a setting.

The sweep (``core.lab.run.run_lab``) runs on the CPU pool with progress and cancel: scoring,
then each setting (cancel is honoured between settings, and during scoring through the progress
callback). Its curves are drawn and rasterised in the same job (``figure_card.render``), so the
GUI thread only shows pixels. Semantic settings embed through a replay child
(``RemoteEmbedder``): the window process never loads the model.

The table shows one truth and one part of its split at a time (chosen row and reference
first). *Adopt…* stores the selected setting (default: the lab's choice) as the next version of
a named profile and makes it the store's adopted profile (``core.lab.adopt``): on a team store
only a lead may, and the button says so. Everything shown from the store or a record is plain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.lab.adopt import Candidate
from core.lab.report import draw_curves
from core.store.profile_repo import DEFAULT_PROFILE

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.jobs.runner import JobCancelled, JobContext, JobFailure, JobHandle, JobPool, JobRunner
from cauterule_gui.models.lab_model import PARTS, LabTableModel, choice_text, lab_rows
from cauterule_gui.plain_text import plain_label
from cauterule_gui.plots.figure_card import FigureCard, RenderedFigure, render
from cauterule_gui.reviewer import ReviewerIdentity

#: other seeds' splits the choice rule is re-run on (is the choice one split's luck?); a read of
#: every setting each, a tenth of a sweep or so
RESPLITS = 9

CURVES_SIZE = (12.0, 3.6)  # inches at 100 dpi: three panels side by side, fits 1280 px
LEAD_ONLY = "Only a lead may adopt a replay profile on a team store (this login is a reviewer)."


def _draw(fig: Any, report: dict[str, Any]) -> None:
    draw_curves(fig, report["result"], report["truth"], report.get("part", "tuning"))
    fig.subplots_adjust(top=0.80, bottom=0.14)  # the figure's title clear of the panels' titles


@dataclass(frozen=True)
class LabOutput:
    result: dict[str, Any]  # LabResult.to_dict()
    curves: dict[str, RenderedFigure]  # truth -> its curves (truths with data only)
    semantic_note: str | None


def lab_job(store: Any, store_path: Any, semantic: bool, group_by: str, ctx: JobContext) -> LabOutput:
    """Off the GUI thread: read the store's rules and trajectories, sweep, draw the curves."""
    from core.embeddings import EmbeddingUnavailable
    from core.lab.judgements import reviewer_judgements
    from core.lab.run import LabCancelled, run_lab
    from core.replaying import load_inputs

    inputs = load_inputs(store, include_expected_rules=True)
    if not inputs.rules or not inputs.trajectories:
        raise LookupError("the store has no rules or no trajectories to calibrate on (import a corpus first; "
                          "replay with expected_rule candidates to sweep those too)")
    embed, note = None, None
    if semantic:
        from cauterule_gui.jobs.remote_embedder import RemoteEmbedder

        try:
            embed = RemoteEmbedder(store=store_path).load()
        except EmbeddingUnavailable as error:
            note = f"semantic settings ran lexically: {error}"

    def progress(phase: str, done: int, total: int) -> None:
        ctx.raise_if_cancelled()  # scoring has no cancel check of its own: stop at its next progress
        ctx.progress(done, total, phase)

    try:
        result = run_lab(inputs.rules, inputs.trajectories, embed=embed, judgements=reviewer_judgements(store),
                         group_by=group_by, progress=progress, cancel=ctx.cancel_event,
                         resplits=RESPLITS).to_dict()
    except LabCancelled:
        raise JobCancelled() from None
    curves = {truth: render(_draw, CURVES_SIZE, {"result": result, "truth": truth})
              for truth, described in result["truths"].items() if not described["empty"]}
    return LabOutput(result, curves, note)


class AdoptDialog(QDialog):
    """Says what adopting changes (plain text) and asks for the profile's name."""

    def __init__(self, explanation: str, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Adopt a replay profile")
        self.explanation = plain_label(explanation, self)
        self.explanation.setWordWrap(True)
        self.name_edit = QLineEdit(name, self)
        self.name_edit.setPlaceholderText("profile name, e.g. team")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Adopt")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.explanation)
        layout.addWidget(plain_label("Profile name (a new version if it exists):", self))
        layout.addWidget(self.name_edit)
        layout.addWidget(buttons)
        self.setMinimumWidth(560)


def ask_profile_name(parent: QWidget, candidate: Candidate, current: str) -> str | None:
    dialog = AdoptDialog(candidate.describe("NAME", current), "team", parent)
    return dialog.name_edit.text().strip() or None if dialog.exec() == QDialog.DialogCode.Accepted else None


class LabPanel(QWidget):
    lab_finished = Signal(object)  # LabOutput
    adopted = Signal(str)  # the adopted profile's label

    def __init__(self, db: DatabaseExecutor, runner: JobRunner, identity: ReviewerIdentity,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._db, self._runner, self._identity = db, runner, identity
        self.output: LabOutput | None = None
        self.handle: JobHandle | None = None
        self.may_adopt = True
        self.adopted_label = DEFAULT_PROFILE
        # Asked for the new profile's name (tests answer it; the window shows AdoptDialog).
        self.ask_name: Callable[[Candidate, str], str | None] = lambda c, cur: ask_profile_name(self, c, cur)

        self.run_button = QPushButton("&Run lab", self)
        self.run_button.setToolTip("Score every rule × trajectory pair once, sweep the settings, read each against "
                                   "every ground truth (a job: the window stays usable)")
        self.run_button.clicked.connect(lambda _c=False: self.run())
        self.cancel_button = QPushButton("Ca&ncel", self)
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(lambda _c=False: self.cancel())
        self.semantic_box = QCheckBox("Semantic", self)
        self.semantic_box.setToolTip("Sweep semantic settings with the embedding model (loaded in a replay child)")
        self.group_combo = QComboBox(self)
        for group in ("failure_class", "corpus", "family"):
            self.group_combo.addItem(f"split by {group}", group)
        self.progress = QProgressBar(self)
        self.progress.setTextVisible(True)
        self.progress.setFormat("idle")
        self.adopt_button = QPushButton("&Adopt…", self)
        self.adopt_button.setEnabled(False)
        self.adopt_button.clicked.connect(lambda _c=False: self.adopt())
        bar = QHBoxLayout()
        for widget in (self.run_button, self.cancel_button, self.semantic_box, self.group_combo):
            bar.addWidget(widget)
        bar.addWidget(self.progress, 1)
        bar.addWidget(self.adopt_button)

        self.status = plain_label("Not run yet. Run the lab to sweep replay settings against the ground truths.", self)
        self.status.setWordWrap(True)
        self.truth_combo = QComboBox(self)
        self.part_combo = QComboBox(self)
        for part, label in PARTS:
            self.part_combo.addItem(label, part)
        self.truth_combo.currentIndexChanged.connect(lambda _i: self._show_truth())
        self.part_combo.currentIndexChanged.connect(lambda _i: self._show_truth())
        pick = QHBoxLayout()
        pick.addWidget(plain_label("Truth:", self))
        pick.addWidget(self.truth_combo, 1)
        pick.addWidget(plain_label("Part:", self))
        pick.addWidget(self.part_combo, 1)
        self.choice = plain_label("", self)
        self.choice.setWordWrap(True)
        self.choice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.model = LabTableModel(self)
        self.table = QTableView(self)
        self.table.setObjectName("labSettings")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # names differ at both ends
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.curves = FigureCard("lab_curves", "Curves (tuning part)", _draw, CURVES_SIZE, self)
        self.curves.image.setText("Run the lab to draw the curves.")
        # The curves are scaled to the space they have (whole at 1280×800), never widening the window.
        self.curves.image.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self._curves_image: QImage | None = None
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.splitterMoved.connect(lambda _p, _i: self._fit_curves())
        splitter.addWidget(self.table)
        splitter.addWidget(self.curves)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.status)
        layout.addLayout(pick)
        layout.addWidget(self.choice)
        layout.addWidget(splitter, 1)

    def reset(self) -> None:
        """The window switched store: nothing shown belongs to the new one (a running sweep is cancelled)."""
        self.cancel()
        self.output = None
        self.model.set_rows([])
        self.choice.setText("")
        self.truth_combo.clear()
        self._curves_image = None
        self.curves.image.setText("Run the lab to draw the curves.")
        self._update_adopt()
        self.refresh()

    # -- the store's profile and the reviewer's role ---------------------------------------
    def refresh(self) -> JobHandle | None:
        """Read the adopted profile and whether this login may adopt (off the GUI thread)."""
        from core.store.profile_repo import ProfileRepository

        def read(services: Any) -> tuple[str, bool]:
            repo = ProfileRepository(services.store)
            return repo.adopted_label(), repo.may_adopt()

        return self._db.query(read, self._show_role, name="lab: adopted profile", key="lab-role")

    def _show_role(self, found: tuple[str, bool]) -> None:
        self.adopted_label, self.may_adopt = found
        self.adopt_button.setToolTip("Store the selected setting as a named profile and adopt it" if self.may_adopt
                                     else LEAD_ONLY)
        self._update_adopt()
        if self.output is None:
            self.status.setText(f"Adopted profile: {self.adopted_label}. Not run yet: run the lab to sweep replay "
                                "settings against the ground truths.")

    def _update_adopt(self) -> None:
        self.adopt_button.setEnabled(self.output is not None and self.may_adopt and not self.running)

    # -- the sweep ------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.handle is not None and self.handle.running

    def run(self) -> JobHandle | None:
        services = self._db.services()
        if services is None or self.running:
            return None
        store, path = services.store, services.path
        semantic, group_by = self.semantic_box.isChecked(), str(self.group_combo.currentData())
        handle = self._runner.submit(lambda ctx: lab_job(store, path, semantic, group_by, ctx), name="lab sweep",
                                     pool=JobPool.CPU, key=f"lab:{id(self)}")
        self.handle = handle
        handle.progress.connect(self._on_progress)
        handle.result.connect(lambda output, s=services: self._on_done(output, s))
        handle.error.connect(self._on_error)
        handle.cancelled.connect(lambda: self.status.setText("Lab cancelled; nothing was kept."))
        handle.finished.connect(self._on_finished)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self._update_adopt()
        self.progress.setRange(0, 0)
        self.progress.setFormat("starting…")
        self.status.setText("Running the lab: scoring every pair once, then sweeping the settings…")
        return handle

    def cancel(self) -> None:
        if self.handle is not None and self.handle.running:
            self.handle.cancel()
            self.progress.setFormat("cancelling…")

    def _on_progress(self, done: int, total: int, phase: str) -> None:
        if self.handle is not None and self.handle.cancel_event.is_set():
            return
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.setFormat(f"{phase}: {done:,} / {total:,}" + (" settings" if phase == "sweep" else " pairs"))

    def _on_done(self, output: LabOutput, services: Any) -> None:
        if self._db.services() is not services:
            return  # the window switched store while the lab ran: its figures are not this store's
        self.output = output
        result = output.result
        self.truth_combo.blockSignals(True)
        self.truth_combo.clear()
        for name, truth in result["truths"].items():
            self.truth_combo.addItem(f"{name} ({'proxy' if truth['proxy'] else 'labels'}; "
                                     f"{'no data' if truth['empty'] else str(truth['rules']) + ' rules'})", name)
        self.truth_combo.blockSignals(False)
        self._show_truth()
        seconds = result["seconds"]
        self.status.setText(f"{len(result['settings'])} settings over {result['scores']['pairs']:,} pairs scored once "
                            f"(scoring {seconds.get('scoring', 0.0):.1f} s, sweep {seconds.get('sweep', 0.0):.1f} s; "
                            f"model {result['scores']['model_id'] or 'none: semantic settings ran lexically'}). Adopted profile: "
                            f"{self.adopted_label}." + (f" {output.semantic_note}" if output.semantic_note else ""))
        self.lab_finished.emit(output)

    def _on_error(self, failure: JobFailure) -> None:
        self.status.setText(f"The lab did not run: {failure.message or failure.exc_type}")

    def _on_finished(self) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(0 if self.output is None else 1)
        self.progress.setFormat("done" if self.output is not None else "idle")
        self._update_adopt()

    def _show_truth(self) -> None:
        if self.output is None or self.truth_combo.currentData() is None:
            return
        truth, part = str(self.truth_combo.currentData()), str(self.part_combo.currentData())
        self.model.set_rows(lab_rows(self.output.result, truth, part))
        self.choice.setText(choice_text(self.output.result, truth))
        rendered = self.output.curves.get(truth)
        if rendered is not None:
            self.curves.show_rendered(rendered)
            self._curves_image = self.curves.image.pixmap().toImage()
            self._fit_curves()
        else:  # setText clears the previous truth's picture
            self._curves_image = None
            self.curves.image.setText(f"No curves: {truth} has no data (n = 0).")
        if self.model.rowCount():
            self.table.selectRow(0)

    def _fit_curves(self) -> None:
        if self._curves_image is None:
            return
        size = self.curves.image.contentsRect().size()
        if size.width() < 10 or size.height() < 10:
            return
        self.curves.image.setPixmap(QPixmap.fromImage(self._curves_image).scaled(
            size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation))

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        self._fit_curves()

    # -- adoption -------------------------------------------------------------------------
    def selected_setting(self) -> int | None:
        """The report row number of the selected setting (the chosen one is first, selected by default)."""
        row = self.model.row_at(self.table.currentIndex().row())
        return None if row is None else row.number

    def adopt(self) -> JobHandle | None:
        from core.lab.adopt import adopt_from_report, candidate

        number = self.selected_setting()
        if self.output is None or number is None:
            return None
        if not self.may_adopt:
            self.status.setText(LEAD_ONLY)
            return None
        actor = self._identity.require(self)
        if not actor:
            return None
        report = self.output.result
        chosen = candidate(report, str(number))
        name = self.ask_name(chosen, self.adopted_label)
        if not name:
            return None

        def write(services: Any) -> str:
            return adopt_from_report(services.store, report, str(number), name, actor).label

        return self._db.op(write, self._on_adopted, kinds={"promotion", "replay"}, name="adopt profile",
                           initiator=self, on_error=self._adopt_failed)

    def _on_adopted(self, label: str) -> None:
        self.adopted_label = label
        self.status.setText(f"Adopted {label}: replays that name no profile now run it; approvals made under "
                            "another profile are flagged in the Promotion tab for a second look.")
        self.adopted.emit(label)

    def _adopt_failed(self, error: BaseException) -> None:
        text = str(error)
        if "permission denied" in text or "row-level security" in text:
            text = LEAD_ONLY
        self.status.setText(f"Not adopted: {text}")
