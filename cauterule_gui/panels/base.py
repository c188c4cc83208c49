"""What the store-backed panels (agreement, labelling, promotion) repeat: the reviewer's name, the
window's database executor (``_db`` reads, ``_op`` writes; both off the GUI thread), a read-only
result table and bold text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.jobs.runner import JobHandle, JobRunner
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices


def _handled_by_caller(_error: BaseException) -> None:
    """The caller connects the handle's ``error`` itself (so the executor does not report it again)."""


class StorePanel:
    """A mixin for panels that read and write the open store through the window's executor.

    The panel sets ``_services`` (the open store's services, or None), ``runner`` and ``identity``;
    the window hands it its executor (``use_executor``) so the panel's writes reach the other
    tabs as ``changes_applied``. A panel built alone makes its own.
    """

    _services: Callable[[], StoreServices | None]
    runner: JobRunner
    identity: ReviewerIdentity
    _executor: DatabaseExecutor | None = None

    @property
    def db(self) -> DatabaseExecutor:
        if self._executor is None:
            self._executor = DatabaseExecutor(self.runner, self._services)
        return self._executor

    def use_executor(self, db: DatabaseExecutor) -> None:
        self._executor = db

    @property
    def reviewer(self) -> str:
        return self.identity.name or ""

    def _store(self) -> Any:
        services = self._services()
        return None if services is None else services.store

    def _db(self, fn: Callable[[Any], Any], name: str, key: str | None = None) -> JobHandle | None:
        """Read: ``fn(store)`` off the GUI thread; None when no store is open. The caller
        connects the handle's ``result`` / ``error``."""
        return self.db.query(lambda s: fn(s.store), name=name, key=key, on_error=_handled_by_caller)

    def _op(self, fn: Callable[[Any], Any], name: str, kinds: set[str]) -> JobHandle | None:
        """Write: ``fn(store)`` on the database thread; the other tabs hear ``kinds`` once it
        has committed. The caller connects the handle's ``result`` / ``error``."""
        return self.db.op(lambda s: fn(s.store), name=name, kinds=kinds, initiator=self,
                          on_error=_handled_by_caller)


def make_table(parent: QWidget, model: Any, name: str, accessible: str, *, single: bool = False,
               fit_columns: bool = False) -> QTableView:
    """A read-only, row-selecting table without a vertical header (``single``: one row at a time;
    ``fit_columns``: columns sized to their contents)."""
    view = QTableView(parent)
    view.setObjectName(name)
    view.setAccessibleName(accessible)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    if single:
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setWordWrap(False)
    view.verticalHeader().hide()
    if fit_columns:
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    view.horizontalHeader().setStretchLastSection(True)
    return view


def bold(label: Any, size_delta: int = 0) -> Any:
    """Make ``label``'s font bold (and ``size_delta`` points bigger); returns the label."""
    font = label.font()
    font.setBold(True)
    if size_delta:
        font.setPointSize(font.pointSize() + size_delta)
    label.setFont(font)
    return label
