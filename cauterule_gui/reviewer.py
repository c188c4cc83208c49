"""Who is reviewing: asked once, remembered in QSettings, shown in the status bar."""

from __future__ import annotations

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget

KEY_REVIEWER = "review/reviewer"


class ReviewerIdentity(QObject):
    changed = Signal(str)

    def __init__(self, settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self._login: str | None = None

    def follow_store(self, login: str | None) -> None:
        """On a team store the reviewer is the server login, never a typed name: the server's
        row-level security only lets a login write rows in its own name. None (a SQLite file)
        gives the free name back."""
        changed = login != self._login
        self._login = login
        if changed and self.name:
            self.changed.emit(self.name)

    @property
    def is_login(self) -> bool:
        return self._login is not None

    @property
    def name(self) -> str | None:
        if self._login is not None:
            return self._login
        value = self._settings.value(KEY_REVIEWER)
        return value.strip() or None if isinstance(value, str) else None

    def set_name(self, name: str) -> None:
        name = name.strip()
        if name and self._login is None:
            self._settings.setValue(KEY_REVIEWER, name)
            self._settings.sync()
            self.changed.emit(name)

    def require(self, parent: QWidget | None) -> str | None:
        """The reviewer's name, asking once if it was never given (None if they cancel)."""
        if self.name:
            return self.name
        return self.ask(parent)

    def ask(self, parent: QWidget | None) -> str | None:
        if self._login is not None:
            return self._login  # a team store: the login is the name, nothing to ask
        name, ok = QInputDialog.getText(
            parent, "Reviewer", "Your name, recorded with every decision and mark:",
            QLineEdit.EchoMode.Normal, self.name or "",
        )
        if ok and name.strip():
            self.set_name(name)
        return self.name
