"""Conflicting writes, seen by the window: what the reviewer's screen holds, and the dialog that
asks what to do when another reviewer changed it first.

Each decision, what-if edit and adjudication names the version the reviewer saw (a rule's
``row_version`` read with its row; the id of the ruling in force). The core refuses a write
based on a version that moved on (``ConcurrentChangeError``: who, what, when) and saves
nothing. The window then shows ``ConflictDialog`` and the reviewer chooses:

* **Keep mine**: write again, now naming the version they have just been shown;
* **Take theirs**: drop their own write and show the other reviewer's (the screen refreshes);
* **Cancel**: nothing is written and the screen stays as it is.

``VersionBook`` keeps the versions this window's OWN writes produced (returned by the write's
transaction), so a reviewer's second decision on a rule, made before the table has re-read
the row, names the version their first decision left, never the older one on the screen: no
false conflict with oneself. One book per open store.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPushButton, QVBoxLayout, QWidget

from core.domain.errors import ConcurrentChangeError
from core.store.engine import Store

from cauterule_gui.plain_text import plain_label

MINE, THEIRS, CANCEL = "mine", "theirs", "cancel"


class VersionBook:
    """The newest version this window knows of each rule (or ruling): the screen's, or its own write's."""

    def __init__(self) -> None:
        self._own: dict[tuple[str, int], int] = {}

    def note(self, kind: str, key: int, version: int | None) -> None:
        """Remember the version a write of this window left (or the reviewer was just shown)."""
        if version is not None:
            self._own[(kind, key)] = max(version, self._own.get((kind, key), version))

    def expected(self, kind: str, key: int, shown: int | None) -> int | None:
        """The version a write names: what the screen shows, or newer if this window wrote since.
        Versions only grow, so the larger is the one the reviewer's own screen last reached."""
        own = self._own.get((kind, key))
        return shown if own is None else max(own, shown if shown is not None else own)


_BOOKS: weakref.WeakKeyDictionary[Store, VersionBook] = weakref.WeakKeyDictionary()


def versions_for(store: Store) -> VersionBook:
    """The window's book for this store (a store switch starts a new one)."""
    book = _BOOKS.get(store)
    if book is None:
        book = _BOOKS[store] = VersionBook()
    return book


def conflict_lines(error: ConcurrentChangeError) -> list[str]:
    """Who changed what and when (untrusted: shown as plain text only)."""
    return [
        f"Changed by: {error.by or 'another writer'}",
        f"What they did: {error.what or 'changed it'}",
        f"When: {error.at or 'unknown'}",
    ]


def conflict_heading(error: ConcurrentChangeError) -> str:
    """The dialog's first line: which rule or ruling, and what was done to it when that is a
    retirement or supersession (the rule is no longer standing, not merely "changed")."""
    subject = f"rule {error.key}" if error.kind == "rule" else f"the ruling on trajectory #{error.key}"
    verb = "changed"
    if error.kind == "rule" and error.what:
        first = error.what.split(" ", 1)[0]
        verb = first if first in ("retired", "superseded") else verb
    return f"Another reviewer {verb} {subject} after you opened it. Nothing was saved."


class ConflictDialog(QDialog):
    """Another reviewer wrote first: keep mine (write again), take theirs, or cancel."""

    chosen = Signal(str)  # MINE, THEIRS or CANCEL

    def __init__(self, error: ConcurrentChangeError, yours: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conflictDialog")
        self.setWindowTitle("Someone changed this first")
        self.error = error
        self.heading = plain_label(conflict_heading(error), self)
        self.heading.setWordWrap(True)
        self.details = plain_label("\n".join(conflict_lines(error)), self)
        self.details.setObjectName("conflictDetails")
        self.details.setWordWrap(True)
        self.yours = plain_label(f"Yours (not saved): {yours}", self)
        self.yours.setObjectName("conflictYours")
        self.yours.setWordWrap(True)
        self.buttons = QDialogButtonBox(self)
        self.keep_mine = self._button("Keep mine (save it over theirs)", "conflictKeepMine", MINE)
        self.take_theirs = self._button("Take theirs (drop mine)", "conflictTakeTheirs", THEIRS)
        self.cancel_button = self._button("Cancel", "conflictCancel", CANCEL)
        self.cancel_button.setDefault(True)  # Enter never overwrites someone's work by accident
        layout = QVBoxLayout(self)
        for widget in (self.heading, self.details, self.yours, self.buttons):
            layout.addWidget(widget)
        self.rejected.connect(lambda: self._emit_once(CANCEL))  # Esc / closing the window: cancel
        self._done = False

    def _button(self, text: str, name: str, choice: str) -> QPushButton:
        button = self.buttons.addButton(text, QDialogButtonBox.ButtonRole.ActionRole)
        button.setObjectName(name)
        button.setAutoDefault(False)
        button.clicked.connect(lambda: self.choose(choice))
        return button

    def choose(self, choice: str) -> None:
        self._emit_once(choice)
        if choice == CANCEL:
            self.reject()
        else:
            self.accept()

    def _emit_once(self, choice: str) -> None:
        if not self._done:
            self._done = True
            self.chosen.emit(choice)


def ask_conflict(parent: QWidget, error: ConcurrentChangeError, yours: str, *,
                 keep_mine: Callable[[int], None], take_theirs: Callable[[], None],
                 cancel: Callable[[], None]) -> ConflictDialog:
    """Open the dialog (window-modal, not blocking); ``keep_mine`` gets the version to name now."""
    dialog = ConflictDialog(error, yours, parent)
    actions: dict[str, Callable[[], None]] = {
        MINE: lambda: keep_mine(error.found), THEIRS: take_theirs, CANCEL: cancel}
    dialog.chosen.connect(lambda choice: actions[choice]())
    dialog.finished.connect(lambda _r: dialog.deleteLater())
    dialog.open()
    return dialog
