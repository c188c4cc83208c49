"""What the store-backed panels (agreement, labelling, promotion) repeat: the reviewer's name, the DB
job that hands a store call to the database pool, a read-only result table and bold text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from cauterule_gui.jobs.runner import JobHandle, JobPool, JobRunner
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices


class StorePanel:
    """A mixin for panels that read and write the open store through DB jobs.

    The panel sets ``_services`` (the open store's services, or None), ``runner`` and ``identity``.
    """

    _services: Callable[[], StoreServices | None]
    runner: JobRunner
    identity: ReviewerIdentity

    @property
    def reviewer(self) -> str:
        return self.identity.name or ""

    def _store(self) -> Any:
        services = self._services()
        return None if services is None else services.store

    def _db(self, fn: Callable[[Any], Any], name: str, key: str | None = None) -> JobHandle | None:
        """Run ``fn(store)`` on the database pool; None when no store is open."""
        store = self._store()
        if store is None:
            return None
        return self.runner.submit(lambda _ctx: fn(store), name=name, pool=JobPool.DB, key=key)


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
