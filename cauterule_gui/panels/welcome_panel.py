"""The welcome page: where to start (import your corpus, or try the demo store), the next
step for the open store, and the three workflows."""

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


START_ACTIONS = (
    ("import", "Import a corpus folder…", "Your CauterRule trajectories and candidate rules (JSONL, rule YAML)."),
    ("demo", "Open the demo store", "A separate store with the bundled demo corpus: try everything without "
                                    "mixing demo rules into your own store."),
)


def next_step(corpora: int, has_results: bool, unreviewed: int) -> tuple[str, str]:
    """(action key, sentence) for the open store: what a reviewer does next."""
    if corpora == 0:
        return "import", "Next step: import a corpus folder (Ctrl+I), or open the demo store to look around."
    if not has_results:
        return "replay", "Next step: replay every rule against the corpus, then review the results (Ctrl+Alt+R)."
    if unreviewed:
        return "review", f"Next step: review the {unreviewed} rule{'s' if unreviewed != 1 else ''} nobody has decided yet."
    return "review", "Every rule has a decision. Next step: promote approved rules, or label ground truth."


class WelcomePanel(QWidget):
    workflow_chosen = Signal(str)  # review | label | agreement | import | demo | replay
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
        self.next_row = QHBoxLayout()
        self.next_label = plain_label("", self)
        self.next_label.setObjectName("welcomeNextStep")
        self.next_label.setWordWrap(True)
        self.next_button = QPushButton("Do it", self)
        self.next_button.setObjectName("welcomeNextButton")
        self.next_key = ""
        self.next_button.clicked.connect(lambda: self.workflow_chosen.emit(self.next_key) if self.next_key else None)
        self.next_row.addWidget(self.next_label, 1)
        self.next_row.addWidget(self.next_button)
        layout.addLayout(self.next_row)
        layout.addSpacing(12)
        self.buttons: dict[str, QPushButton] = {}
        start = QHBoxLayout()
        for key, heading, text in START_ACTIONS:
            card = QFrame(self)
            card.setFrameShape(QFrame.Shape.StyledPanel)
            column = QVBoxLayout(card)
            button = QPushButton(heading, card)
            button.setAccessibleName(heading)
            button.clicked.connect(lambda _c=False, k=key: self.workflow_chosen.emit(k))
            self.buttons[key] = button
            description = plain_label(text, card)
            description.setWordWrap(True)
            column.addWidget(button)
            column.addWidget(description)
            start.addWidget(card, 1)
        layout.addLayout(start)
        layout.addSpacing(12)
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

    def set_next_step(self, key: str, text: str) -> None:
        self.next_key = key
        self.next_label.setText(text)
        self.next_button.setText({"import": "Import…", "replay": "Replay everything", "review": "Open Review",
                                  "demo": "Open the demo store"}.get(key, "Go"))
