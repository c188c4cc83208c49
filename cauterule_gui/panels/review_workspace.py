"""The Review tab's layout: rules table on top; evidence board and trajectory below."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtWidgets import QSplitter, QWidget

from cauterule_gui.models.rule_table_model import RuleTableModel
from cauterule_gui.panels.evidence_panel import EvidencePanel
from cauterule_gui.panels.rule_table_panel import RuleTablePanel
from cauterule_gui.panels.trajectory_viewer import TrajectoryViewerPanel


class ReviewWorkspace(QSplitter):
    def __init__(self, rule_model: RuleTableModel, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setObjectName("reviewSplitter")
        self.rules = RuleTablePanel(rule_model)
        self.evidence = EvidencePanel()
        self.viewer = TrajectoryViewerPanel(title="Evidence trajectory")
        self.viewer.text.setObjectName("evidenceText")
        self.viewer.text.setAccessibleName("Evidence trajectory text")
        self.lower = QSplitter(Qt.Orientation.Horizontal, self)
        self.lower.setObjectName("evidenceSplitter")
        self.lower.addWidget(self.evidence)
        self.lower.addWidget(self.viewer)
        self.lower.setChildrenCollapsible(False)
        self.lower.setStretchFactor(0, 1)
        self.lower.setStretchFactor(1, 1)
        self.lower.setSizes([760, 760])  # the evidence table needs its columns
        self.addWidget(self.rules)
        self.addWidget(self.lower)
        self.setChildrenCollapsible(False)
        self.setStretchFactor(0, 2)
        self.setStretchFactor(1, 3)
        self.setSizes([330, 520])
        self.setContentsMargins(6, 6, 6, 0)

    def save_state(self) -> tuple[QByteArray, QByteArray]:
        return self.saveState(), self.lower.saveState()

    def restore_state(self, outer: QByteArray | None, lower: QByteArray | None) -> None:
        if outer is not None:
            self.restoreState(outer)
        if lower is not None:
            self.lower.restoreState(lower)
