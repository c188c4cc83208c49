"""The welcome panel: the three workflows a new reviewer can start on the demo store."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QFrame, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from cauterule_gui.plain_text import plain_label

WORKFLOWS = (
    ("review", "Review candidate rules",
     "See each candidate rule beside the trajectories replay says it prevented, broke, nearly matched or "
     "missed, with the matched text highlighted. Approve, reject or defer with one key."),
    ("label", "Label ground truth",
     "Write the rule each trajectory should produce (expected_rule) and see, as you type, what the "
     "extraction-accuracy metrics will say."),
    ("agreement", "Run an agreement session",
     "Judge a blind, stratified sample of replay's verdicts; get agreement, Cohen's kappa and Wilson "
     "intervals, and the gate that decides whether replay may promote without a human."),
)


class WelcomePanel(QWidget):
    workflow_chosen = Signal(str)  # review | label | agreement
    show_at_start_changed = Signal(bool)

    def __init__(self, store_description: str, show_at_start: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomePanel")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 36, 48, 36)
        title = plain_label("Welcome to CauterRule Workbench", self)
        font = title.font()
        font.setPointSize(font.pointSize() + 8)
        font.setBold(True)
        title.setFont(font)
        layout.addWidget(title)
        self.store_label = plain_label(store_description, self)
        self.store_label.setWordWrap(True)
        layout.addWidget(self.store_label)
        layout.addSpacing(18)
        self.buttons: dict[str, QPushButton] = {}
        for key, heading, text in WORKFLOWS:
            card = QFrame(self)
            card.setFrameShape(QFrame.Shape.StyledPanel)
            row = QHBoxLayout(card)
            button = QPushButton(heading, card)
            button.setMinimumWidth(260)
            button.setAccessibleName(heading)
            button.clicked.connect(lambda _c=False, k=key: self.workflow_chosen.emit(k))
            self.buttons[key] = button
            description = plain_label(text, card)
            description.setWordWrap(True)
            row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            row.addWidget(description, 1)
            layout.addWidget(card)
        layout.addStretch(1)
        self.show_at_start = QCheckBox("Show this page at start-up", self)
        self.show_at_start.setChecked(show_at_start)
        self.show_at_start.toggled.connect(self.show_at_start_changed)
        layout.addWidget(self.show_at_start)

    def set_store_description(self, text: str) -> None:
        self.store_label.setText(text)
