"""What if: edit a rule's trigger / directive, try the draft, apply it or discard it.

The dialog only edits and displays; ``WhatIfController`` replays the draft (nothing saved)
and, on Apply, saves the version and replays it. Moves are listed one per line as plain text
("S-17 broken → no effect"). Esc and Discard close it; an unapplied draft leaves no trace.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.store.workspace_query import BucketMove

from cauterule_gui.models.formatting import BUCKET_SYMBOLS, BUCKET_WORDS
from cauterule_gui.plain_text import plain_label

IDLE_TEXT = ("Edit the text, then Try draft: the rule is replayed with your text and nothing is saved. "
             "Apply saves it as a new version (audited) and replays it; Discard (Esc) leaves the store as it was.")


def move_text(move: BucketMove) -> str:
    before, after = BUCKET_WORDS.get(move.before, move.before), BUCKET_WORDS.get(move.after, move.after)
    return (f"{move.trajectory_id}  {BUCKET_SYMBOLS.get(move.before, '')} {before} → "
            f"{BUCKET_SYMBOLS.get(move.after, '')} {after}   ({move.corpus})")


class WhatIfDialog(QDialog):
    draft_requested = Signal(str, str)  # trigger, directive: replay the draft, save nothing
    apply_requested = Signal(str, str)  # trigger, directive: save as a new version and replay
    cancel_requested = Signal()  # stop the draft being replayed

    def __init__(self, title: str, trigger: str, directive: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("whatIfDialog")
        self.setWindowTitle("What if — try a draft of this rule")
        heading = plain_label(title, self)
        heading.setObjectName("whatIfHeading")
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
        self.draft_button = QPushButton("Try draft  (Ctrl+Return)", self)
        self.draft_button.setObjectName("whatIfDraft")
        self.draft_button.setShortcut("Ctrl+Return")
        self.draft_button.setToolTip("Replay this rule with the text above; nothing is saved")
        self.draft_button.clicked.connect(lambda: self._request(self.draft_requested))
        self.cancel_button = QPushButton("Cancel draft", self)
        self.cancel_button.setObjectName("whatIfCancel")
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.cancel_button.hide()
        self.apply_button = QPushButton("Apply: save as new version && replay  (Ctrl+Shift+Return)", self)
        self.apply_button.setObjectName("whatIfApply")
        self.apply_button.setShortcut("Ctrl+Shift+Return")
        self.apply_button.setToolTip("Save the text as a new version of this rule (audited) and replay it")
        self.apply_button.clicked.connect(lambda: self._request(self.apply_requested))
        actions = QHBoxLayout()
        actions.addWidget(self.draft_button)
        actions.addWidget(self.cancel_button)
        actions.addStretch(1)
        actions.addWidget(self.apply_button)
        self.state_label = plain_label(IDLE_TEXT, self)
        self.state_label.setObjectName("whatIfState")
        self.state_label.setWordWrap(True)
        self.moves = QListWidget(self)
        self.moves.setObjectName("whatIfMoves")
        self.moves.setAccessibleName("Trajectories that change bucket")
        buttons = QDialogButtonBox(self)
        self.discard_button = buttons.addButton("Discard  (Esc)", QDialogButtonBox.ButtonRole.RejectRole)
        self.discard_button.setObjectName("whatIfDiscard")
        self.discard_button.setToolTip("Close; an unapplied draft is not saved anywhere")
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addLayout(form)
        layout.addLayout(actions)
        layout.addWidget(self.state_label)
        layout.addWidget(self.moves, 1)
        layout.addWidget(buttons)
        self.resize(760, 560)

    def text(self) -> tuple[str, str]:
        return self.trigger_edit.toPlainText().strip(), self.directive_edit.toPlainText().strip()

    def _request(self, signal: Signal) -> None:
        trigger, directive = self.text()
        if not trigger or not directive:
            self.state_label.setText("Trigger and directive are both required.")
            return
        signal.emit(trigger, directive)  # type: ignore[attr-defined]

    def set_running(self, text: str, cancellable: bool = False) -> None:
        self.draft_button.setEnabled(False)
        self.apply_button.setEnabled(False)
        self.cancel_button.setVisible(cancellable)
        self.state_label.setText(text)
        self.moves.clear()

    def show_progress(self, text: str) -> None:
        self.state_label.setText(text)

    def _idle(self) -> None:
        self.draft_button.setEnabled(True)
        self.apply_button.setEnabled(True)
        self.cancel_button.hide()

    def show_moves(self, summary: str, moves: Sequence[BucketMove]) -> None:
        self._idle()
        self.state_label.setText(summary)
        self.moves.clear()
        lines = [move_text(m) for m in moves] or ["No trajectory changes bucket."]
        self.moves.addItems(lines)

    def show_failure(self, text: str) -> None:
        self._idle()
        self.state_label.setText(text)
