"""Left panel: the corpora of the store, with role and counts, and an "All corpora" entry."""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QVBoxLayout, QWidget

from cauterule_gui.models.corpus_table_model import (
    COL_NAME,
    COL_ROLE,
    COL_RULES,
    COL_TRAJECTORIES,
    CorpusTableModel,
)
from cauterule_gui.plain_text import plain_label


class CorpusNavigatorPanel(QWidget):
    corpus_selected = Signal(object)  # corpus name (str) or None for all corpora

    def __init__(self, model: CorpusTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self._current: str | None = None
        heading = plain_label("Corpora", self)
        heading.setObjectName("panelHeading")
        font = heading.font()
        font.setBold(True)
        heading.setFont(font)

        self.view = QTableView(self)
        self.view.setObjectName("corpusNavigator")
        self.view.setAccessibleName("Corpora")
        self.view.setModel(model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().hide()
        self.view.setShowGrid(False)
        self.view.setWordWrap(False)
        # Corpus names are folder paths; their last segments tell them apart.
        self.view.setTextElideMode(Qt.TextElideMode.ElideLeft)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(COL_NAME, QHeaderView.ResizeMode.Stretch)
        for column in (COL_ROLE, COL_TRAJECTORIES, COL_RULES):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setHighlightSections(False)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(heading)
        layout.addWidget(self.view)

        self.view.selectionModel().selectionChanged.connect(self._on_selection_changed)
        model.modelReset.connect(self._restore_selection)
        self._restore_selection()

    @property
    def current_corpus(self) -> str | None:
        return self._current

    def select_corpus(self, name: str | None) -> None:
        self.view.selectRow(self.model.row_of(name))

    def refresh(self) -> None:
        self.model.refresh()

    def _restore_selection(self) -> None:
        # After a refresh keep the same corpus selected (or fall back to "All corpora").
        row = self.model.row_of(self._current)
        self.view.selectionModel().blockSignals(True)
        self.view.selectRow(row)
        self.view.selectionModel().blockSignals(False)
        name = self.model.corpus_name(row)
        if name != self._current:
            self._current = name
            self.corpus_selected.emit(name)

    def _on_selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        rows = {index.row() for index in selected.indexes()}
        if not rows:
            return
        name = self.model.corpus_name(min(rows))
        if name != self._current:
            self._current = name
            self.corpus_selected.emit(name)
