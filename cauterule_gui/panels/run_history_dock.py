"""Replay run history as a dock: every run, newest first; activate one to review just it."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Signal
from PySide6.QtWidgets import QAbstractItemView, QDockWidget, QHeaderView, QTableView, QVBoxLayout, QWidget

from core.store.replay_repo import ReplayRepository

from cauterule_gui.models.run_history_model import RUN_ID_ROLE, RunHistoryModel
from cauterule_gui.plain_text import plain_label


class RunHistoryDock(QDockWidget):
    run_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Replay runs", parent)
        self.setObjectName("runHistoryDock")
        self.model = RunHistoryModel(self)
        self.view = QTableView(self)
        self.view.setObjectName("runHistoryTable")
        self.view.setAccessibleName("Replay runs")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().hide()
        self.view.setWordWrap(False)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.view.activated.connect(self._on_activated)
        hint = plain_label("Enter or double-click a run to review only that run.", self)
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(hint)
        layout.addWidget(self.view)
        self.setWidget(body)

    def refresh(self, replays: ReplayRepository | None) -> None:
        self.model.set_runs(replays.runs() if replays is not None else [])

    def _on_activated(self, index: QModelIndex) -> None:
        run_id = index.data(RUN_ID_ROLE)
        if isinstance(run_id, int):
            self.run_activated.emit(run_id)
