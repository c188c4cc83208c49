"""The agreement screen's Team page: export / import, assignments, inter-reviewer agreement and
adjudication.

A ruling names the ruling in force the lead saw (its id, read BEFORE the disagreements it is
shown with; 0: none). When another lead ruled in between, nothing is saved and the conflict
dialog (``cauterule_gui.review_conflicts``) shows their ruling: keep mine (rule again over
it), take theirs (drop mine and show theirs), or cancel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core.domain.errors import ConcurrentChangeError
from core.domain.labels import LabelText

from cauterule_gui.jobs.runner import JobHandle
from cauterule_gui.models import agreement_data
from cauterule_gui.models.agreement_result_models import rate_cell
from cauterule_gui.models.agreement_team_models import (
    JudgementDisagreementModel,
    LabelDisagreementModel,
    MergeConflictModel,
)
from cauterule_gui.panels.agreement.team_status import TeamStatusSection
from cauterule_gui.panels.base import bold, make_table
from cauterule_gui.plain_text import plain_label
from cauterule_gui.review_conflicts import ConflictDialog, ask_conflict, versions_for


class TeamPage(TeamStatusSection):
    """The Team page of ``AgreementPanel`` (a mixin: the widgets live on the panel)."""

    rulings_seen: dict[int, int] = {}  # trajectory pk -> ruling in force when the team view was read
    conflict_dialog: ConflictDialog | None = None

    def _build_team(self) -> QWidget:
        page = QWidget(self)
        self.export_button = QPushButton("Export my work…", page)
        self.export_button.setObjectName("teamExport")
        self.export_button.setToolTip("Write your labels, adjudications and judgements to a file for a teammate")
        self.export_button.clicked.connect(self.export_dialog)
        self.import_button = QPushButton("Import a reviewer's file…", page)
        self.import_button.setObjectName("teamImport")
        self.import_button.setToolTip("Merge another reviewer's export: conflicts are listed, nothing is overwritten")
        self.import_button.clicked.connect(self.import_dialog)
        self.team_refresh = QPushButton("Recompute agreement", page)
        self.team_refresh.clicked.connect(self.compute_team)
        self.merge_label = plain_label("", page)
        self.merge_label.setObjectName("teamMerge")
        self.merge_label.setWordWrap(True)
        self.conflict_model = MergeConflictModel(self)
        self.conflict_view = make_table(page, self.conflict_model, "teamConflicts", "Import conflicts",
                                        single=True, fit_columns=True)
        self.team_label = plain_label("", page)
        self.team_label.setObjectName("teamAgreement")
        self.team_label.setWordWrap(True)
        self.label_dis_model = LabelDisagreementModel(self)
        self.label_dis_view = make_table(page, self.label_dis_model, "teamLabelDisagreements", "Label disagreements",
                                         single=True, fit_columns=True)
        self.label_dis_view.selectionModel().currentRowChanged.connect(lambda *_a: self._on_disagreement())
        self.judgement_dis_model = JudgementDisagreementModel(self)
        self.judgement_dis_view = make_table(page, self.judgement_dis_model, "teamJudgementDisagreements",
                                             "Judgement disagreements", single=True, fit_columns=True)
        self.chosen_combo = QComboBox(page)
        self.chosen_combo.setObjectName("adjudicateChoice")
        self.chosen_combo.setAccessibleName("Ruling")
        self.chosen_combo.currentIndexChanged.connect(lambda _i: self._update_adjudicate())
        self.own_trigger = QLineEdit(page)
        self.own_trigger.setAccessibleName("Lead's trigger")
        self.own_trigger.setPlaceholderText("when … (only for a label you write)")
        self.own_directive = QLineEdit(page)
        self.own_directive.setAccessibleName("Lead's directive")
        self.own_directive.setPlaceholderText("do …")
        self.reason_edit = QLineEdit(page)
        self.reason_edit.setObjectName("adjudicateReason")
        self.reason_edit.setAccessibleName("Reason for the ruling")
        self.reason_edit.setPlaceholderText("why this is the ground truth (required)")
        self.reason_edit.textChanged.connect(lambda _t: self._update_adjudicate())
        self.adjudicate_button = QPushButton("Adjudicate", page)
        self.adjudicate_button.setObjectName("adjudicateButton")
        self.adjudicate_button.setToolTip("The ruling becomes the ground truth; every label stays in the history")
        self.adjudicate_button.clicked.connect(self.adjudicate_selected)
        self.adjudicate_button.setEnabled(False)

        buttons = QHBoxLayout()
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.import_button)
        buttons.addStretch(1)
        buttons.addWidget(self.team_refresh)
        ruling = QGroupBox("Adjudicate the selected trajectory (lead)", page)
        rl = QFormLayout(ruling)
        rl.addRow(plain_label("Ruling", ruling), self.chosen_combo)
        rl.addRow(plain_label("When", ruling), self.own_trigger)
        rl.addRow(plain_label("Do", ruling), self.own_directive)
        rl.addRow(plain_label("Reason", ruling), self.reason_edit)
        rl.addRow(plain_label("", ruling), self.adjudicate_button)
        inner = QWidget(page)
        layout = QVBoxLayout(inner)
        layout.addLayout(buttons)
        layout.addWidget(self._build_team_status(inner))  # assignments, live kappa / alpha
        layout.addWidget(self.merge_label)
        layout.addWidget(bold(plain_label("Import conflicts (kept as they are here)", inner)))
        layout.addWidget(self.conflict_view)
        layout.addWidget(self.team_label)
        layout.addWidget(bold(plain_label("Label disagreements", inner)))
        layout.addWidget(self.label_dis_view)
        layout.addWidget(ruling)
        layout.addWidget(bold(plain_label("Judgement disagreements (blind sessions)", inner)))
        layout.addWidget(self.judgement_dis_view)
        scroll = QScrollArea(page)
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        outer = QVBoxLayout(page)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        return page

    # == team =============================================================================
    def compute_team(self) -> JobHandle | None:
        self.compute_team_status()
        session = self.current_session()
        session_id = None if session is None else session.id
        def read(store: Any) -> tuple[dict[int, int], agreement_data.TeamView]:
            from core.store.row_versions import adjudications_in_force

            rulings = adjudications_in_force(store)  # first: a ruling made meanwhile is a conflict later
            return rulings, agreement_data.team_view(store, session_id)

        handle = self._db(read, "team agreement", key=f"agreement-team:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_team)
            handle.error.connect(self._failed("Could not compute team agreement"))
        return handle

    def _on_team(self, found: tuple[dict[int, int], agreement_data.TeamView]) -> None:
        self.rulings_seen, team = found
        self.last_team = team
        j, lab = team.judgements, team.labels
        lines = []
        if len(j.reviewers) < 2:
            lines.append("Judgements: fewer than two reviewers in this session (import a teammate's file).")
        else:
            stat = ""
            if j.cohen is not None and j.cohen.value is not None:
                ci = "" if j.cohen.ci is None else f" [{j.cohen.ci[0]:.2f}–{j.cohen.ci[1]:.2f}]"
                stat = f"; Cohen's κ {j.cohen.value:.2f}{ci}"
            elif j.fleiss is not None and j.fleiss.value is not None:
                stat = f"; Fleiss' κ {j.fleiss.value:.2f}"
            alpha = "—" if j.alpha.value is None else f"{j.alpha.value:.2f}"
            lines.append(f"Judgements ({', '.join(j.reviewers)}): {j.items} items judged by two or more; pairwise "
                         f"agreement {rate_cell(j.percent)}{stat}; Krippendorff's α {alpha}; "
                         f"{len(j.disagreements)} disagreement(s)")
        if lab.trajectories:
            lines.append(f"Labels ({', '.join(lab.reviewers)}): {lab.trajectories} trajectories labelled by two or "
                         f"more; comparator agreement {rate_cell(lab.agreement)} ({lab.agreement_basis}); identical "
                         f"{rate_cell(lab.identical)}; {len(lab.disagreements)} disagreement(s)")
        else:
            lines.append("Labels: no trajectory is labelled by two reviewers yet.")
        self.team_label.setText("\n".join(lines))
        selected = self._selected_disagreement()
        self.label_dis_model.set_rows(lab.disagreements)
        self.judgement_dis_model.set_rows(j.disagreements)
        if selected is not None:
            for row, item in enumerate(lab.disagreements):
                if item.trajectory_pk == selected.trajectory_pk:
                    self.label_dis_view.selectRow(row)
        self._on_disagreement()

    def _selected_disagreement(self) -> Any:
        index = self.label_dis_view.currentIndex()
        return self.label_dis_model.row_at(index.row()) if index.isValid() else None

    def _on_disagreement(self) -> None:
        item = self._selected_disagreement()
        self.chosen_combo.blockSignals(True)
        self.chosen_combo.clear()
        if item is not None:
            for reviewer, sentence in item.labels.items():
                self.chosen_combo.addItem(f"{reviewer}'s label: {sentence or '(no rule expected)'}", reviewer)
            self.chosen_combo.addItem("A label I write (below)", None)
        self.chosen_combo.blockSignals(False)
        self._update_adjudicate()

    def _update_adjudicate(self) -> None:
        item = self._selected_disagreement()
        own = item is not None and self.chosen_combo.currentData() is None
        self.own_trigger.setEnabled(own)
        self.own_directive.setEnabled(own)
        self.adjudicate_button.setEnabled(item is not None and bool(self.reason_edit.text().strip()))

    def adjudicate_selected(self) -> JobHandle | None:
        item = self._selected_disagreement()
        reason = self.reason_edit.text().strip()
        lead = self.identity.require(self)
        services = self._services()
        if item is None or not reason or not lead or services is None:
            return None
        chosen: str | LabelText = self.chosen_combo.currentData() or LabelText(self.own_trigger.text(),
                                                                               self.own_directive.text())
        pk = item.trajectory_pk
        seen = versions_for(services.store).expected("ruling", pk, self.rulings_seen.get(pk, 0))
        return self._rule(lead, pk, chosen, reason, seen)

    def _rule(self, lead: str, pk: int, chosen: str | LabelText, reason: str, seen: int | None) -> JobHandle | None:
        from core.agreement.team import adjudicate

        handle = self._op(lambda store: (store, adjudicate(store, lead, pk, chosen, reason, expected_current=seen)),
                          "adjudicate", {"agreement", "labels"})
        if handle is not None:
            handle.result.connect(lambda found: self._on_adjudicated(pk, found))
            not_recorded = self._failed("The ruling was not recorded")
            handle.error.connect(lambda failure: self._ruling_conflict(failure.exception, lead, pk, chosen, reason)
                                 if isinstance(failure.exception, ConcurrentChangeError) else not_recorded(failure))
        return handle

    def _ruling_conflict(self, error: ConcurrentChangeError, lead: str, pk: int, chosen: str | LabelText,
                         reason: str) -> None:
        """Another lead ruled on the trajectory since it was shown: the lead chooses."""
        self.message.setText(f"The ruling was not recorded: {error}")

        def keep_mine(found: int) -> None:
            self.conflict_dialog = None
            self._rule(lead, pk, chosen, reason, found)

        def take_theirs() -> None:
            self.conflict_dialog = None
            self.reason_edit.clear()
            self.message.setText(f"Kept {error.by or 'the other lead'}'s ruling; yours was dropped.")
            self.compute_team()

        def cancel() -> None:
            self.conflict_dialog = None
            self.message.setText("Nothing recorded; your ruling is still in the form.")

        mine = chosen if isinstance(chosen, str) else f'"{chosen.trigger}" -> "{chosen.directive}"'
        self.conflict_dialog = ask_conflict(self, error, f"{lead} rules {mine} ({reason})",
                                            keep_mine=keep_mine, take_theirs=take_theirs, cancel=cancel)

    def _on_adjudicated(self, pk: int, found: Any) -> None:
        store, ruling = found
        versions_for(store).note("ruling", pk, ruling.id)  # the lead's next ruling here builds on this one
        self.reason_edit.clear()
        self.message.setText("Ruling recorded: it is now the ground truth for this trajectory (history kept).")
        self.adjudicated.emit(pk)
        self.compute_team()

    def export_dialog(self) -> JobHandle | None:
        reviewer = self.identity.require(self)
        if not reviewer:
            return None
        path, _ = QFileDialog.getSaveFileName(self, "Export my work", f"{reviewer}-workbench.json",
                                              "Workbench team export (*.json)")
        return self.export_to(Path(path)) if path else None

    def export_to(self, path: Path) -> JobHandle | None:
        reviewer = self.reviewer
        if not reviewer:
            return None
        handle = self._db(lambda store: agreement_data.export_work(store, reviewer, path), "team export")
        if handle is not None:
            handle.result.connect(lambda counts: self.merge_label.setText(
                f"Exported {', '.join(f'{n} {k}' for k, n in counts.items())} to {path}"))
            handle.error.connect(self._failed("The export failed"))
        return handle

    def import_dialog(self) -> JobHandle | None:
        path, _ = QFileDialog.getOpenFileName(self, "Import a reviewer's work", "", "Workbench team export (*.json)")
        return self.import_from(Path(path)) if path else None

    def import_from(self, path: Path) -> JobHandle | None:
        importer = self.identity.require(self)
        if not importer:
            return None
        handle = self._op(lambda store: agreement_data.import_work(store, path, importer), "team import",
                          {"agreement", "labels", "decisions", "marks"})
        if handle is not None:
            handle.result.connect(self._on_merged)
            handle.error.connect(self._failed("The import failed"))
        return handle

    def _on_merged(self, report: Any) -> None:
        self.last_merge = report
        added = ", ".join(f"{n} {k}" for k, n in report.added.items()) or "nothing new"
        same = sum(report.unchanged.values())
        text = f"Imported: {added}; {same} already here; {len(report.conflicts)} conflict(s), nothing overwritten."
        if report.unmatched:
            text += f" {len(report.unmatched)} label(s) for trajectories this store lacks were kept unattached: " \
                    + "; ".join(report.unmatched[:5])
        if report.refused:  # a key over the store's limits: that entry only, the others were merged
            text += f" {len(report.refused)} entr{'y' if len(report.refused) == 1 else 'ies'} refused: " \
                    + "; ".join(str(r) for r in report.refused[:5])
        self.merge_label.setText(text)
        self.conflict_model.set_rows(report.conflicts)
        self.refresh()
        self.compute_team()
