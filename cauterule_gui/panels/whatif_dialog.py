"""What if: edit a rule's trigger / directive, replay that rule alone, see what moved.

The dialog only edits and displays; ``WhatIfController`` saves the version and runs replay.
Moves are listed one per line as plain text ("S-17 broken → no effect").
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.store.workspace_query import BucketMove

from cauterule_gui.models.formatting import BUCKET_SYMBOLS, BUCKET_WORDS
from cauterule_gui.plain_text import plain_label


def move_text(move: BucketMove) -> str:
    before, after = BUCKET_WORDS.get(move.before, move.before), BUCKET_WORDS.get(move.after, move.after)
    return (f"{move.trajectory_id}  {BUCKET_SYMBOLS.get(move.before, '')} {before} → "
            f"{BUCKET_SYMBOLS.get(move.after, '')} {after}   ({move.corpus})")


class WhatIfDialog(QDialog):
    run_requested = Signal(str, str)  # trigger, directive

    def __init__(self, title: str, trigger: str, directive: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("whatIfDialog")
        self.setWindowTitle("What if — edit and replay this rule")
        heading = plain_label(title, self)
        heading.setWordWrap(True)
        self.trigger_edit = QPlainTextEdit(trigger, self)
        self.trigger_edit.setObjectName("whatIfTrigger")
        self.trigger_edit.setAccessibleName("Trigger")
        self.trigger_edit.setTabChangesFocus(True)
        self.directive_edit = QPlainTextEdit(directive, self)
        self.directive_edit.setObjectName("whatIfDirective")
        self.directive_edit.setAccessibleName("Directive")
        self.directive_edit.setTabChangesFocus(True)
        for edit in (self.trigger_edit, self.directive_edit):
            edit.setMaximumHeight(edit.fontMetrics().height() * 5)
        form = QFormLayout()
        form.addRow("When (trigger):", self.trigger_edit)
        form.addRow("Do (directive):", self.directive_edit)
        self.run_button = QPushButton("Save as new version && replay  (Ctrl+Return)", self)
        self.run_button.setObjectName("whatIfRun")
        self.run_button.setShortcut("Ctrl+Return")
        self.run_button.clicked.connect(self._request)
        self.state_label = plain_label("Edit the text, then save it as a new version and replay this rule alone.", self)
        self.state_label.setObjectName("whatIfState")
        self.state_label.setWordWrap(True)
        self.moves = QListWidget(self)
        self.moves.setObjectName("whatIfMoves")
        self.moves.setAccessibleName("Trajectories that changed bucket")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addLayout(form)
        layout.addWidget(self.run_button)
        layout.addWidget(self.state_label)
        layout.addWidget(self.moves, 1)
        layout.addWidget(buttons)
        self.resize(760, 560)

    def _request(self) -> None:
        trigger = self.trigger_edit.toPlainText().strip()
        directive = self.directive_edit.toPlainText().strip()
        if not trigger or not directive:
            self.state_label.setText("Trigger and directive are both required.")
            return
        self.run_requested.emit(trigger, directive)

    def set_running(self, text: str) -> None:
        self.run_button.setEnabled(False)
        self.state_label.setText(text)
        self.moves.clear()

    def show_moves(self, summary: str, moves: Sequence[BucketMove]) -> None:
        self.run_button.setEnabled(True)
        self.state_label.setText(summary)
        self.moves.clear()
        lines = [move_text(m) for m in moves] or ["No trajectory changed bucket."]
        self.moves.addItems(lines)

    def show_failure(self, text: str) -> None:
        self.run_button.setEnabled(True)
        self.state_label.setText(text)
