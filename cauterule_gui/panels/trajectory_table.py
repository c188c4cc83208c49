"""Centre panel: the trajectory table with a debounced text filter (filtering happens in SQL)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QStackedWidget,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from cauterule_gui.models.trajectory_table_model import (
    COL_CORPUS,
    COL_DOMAIN,
    COL_EXPECTED,
    COL_FAILURE,
    COL_ID,
    COL_SUCCESS,
    PK_ROLE,
    TrajectoryTableModel,
)
from cauterule_gui.plain_text import plain_label

FILTER_DEBOUNCE_MS = 250
FIT_SAMPLE_ROWS = 50

# Starting widths (characters) so the first window is readable before the user resizes.
_START_WIDTHS = {COL_ID: 26, COL_CORPUS: 18, COL_DOMAIN: 9, COL_SUCCESS: 9, COL_FAILURE: 20, COL_EXPECTED: 12}
# Widest a column grows when fitted to its first page of rows (characters).
_MAX_FIT_CHARS = {COL_ID: 28, COL_CORPUS: 20, COL_DOMAIN: 12, COL_SUCCESS: 10, COL_FAILURE: 22, COL_EXPECTED: 13}


class _ElideLeftDelegate(QStyledItemDelegate):
    """Corpus names are folder paths: keep their distinctive last segments visible."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideLeft


class TrajectoryTablePanel(QWidget):
    trajectory_selected = Signal(int)  # store primary key

    def __init__(self, model: TrajectoryTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model

        self.filter_edit = QLineEdit(self)
        self.filter_edit.setObjectName("trajectoryFilter")
        self.filter_edit.setAccessibleName("Filter trajectories")
        self.filter_edit.setPlaceholderText("Filter by id, task, failure class or domain  (Ctrl+F)")
        self.filter_edit.setClearButtonEnabled(True)
        self.count_label = plain_label("", self)
        self.count_label.setObjectName("trajectoryCount")

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(FILTER_DEBOUNCE_MS)
        self._debounce.timeout.connect(self.apply_filter_now)
        self.filter_edit.textChanged.connect(lambda _text: self._debounce.start())
        self.filter_edit.returnPressed.connect(self.apply_filter_now)

        self.view = QTableView(self)
        self.view.setObjectName("trajectoryTable")
        self.view.setAccessibleName("Trajectories")
        self.view.setModel(model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self._corpus_delegate = _ElideLeftDelegate(self.view)
        self.view.setItemDelegateForColumn(COL_CORPUS, self._corpus_delegate)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        header.setHighlightSections(False)
        # Fitting a column measures this many rows, not the whole first page: on the GUI thread
        # the 200-row page cost 0.16-0.20 s when its page arrived, 50 rows 0.02-0.04 s.
        header.setResizeContentsPrecision(FIT_SAMPLE_ROWS)
        self._char = self.view.fontMetrics().averageCharWidth()
        for column, chars in _START_WIDTHS.items():
            header.resizeSection(column, chars * self._char + 16)
        self._widths_fitted = False  # fit once to real data, unless the user's widths were restored
        # Import order until the user clicks a header; sorting then happens in SQL.
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)

        self.empty_label = plain_label("", self)
        self.empty_label.setObjectName("trajectoryEmptyState")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setEnabled(False)  # drawn in the disabled (muted) colour

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.view)
        self.stack.addWidget(self.empty_label)

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.stack)

        self.view.selectionModel().currentRowChanged.connect(self._on_current_row_changed)
        model.total_changed.connect(self._update_counts)
        self._update_counts(model.total)  # a header state restored later overrides the fitted widths

    # -- filter ------------------------------------------------------------------------
    def apply_filter_now(self) -> None:
        self._debounce.stop()
        self.model.set_text(self.filter_edit.text())

    def set_corpus(self, corpus: str | None) -> None:
        self.model.set_corpus(corpus)
        # One corpus selected: its name would repeat on every row.
        self.view.setColumnHidden(COL_CORPUS, corpus is not None)

    def focus_filter(self) -> None:
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    # -- selection ---------------------------------------------------------------------
    def select_row(self, row: int) -> None:
        if 0 <= row < self.model.rowCount():
            self.view.selectRow(row)
            self.view.setCurrentIndex(self.model.index(row, 0))

    def current_pk(self) -> int | None:
        index = self.view.currentIndex()
        return int(index.data(PK_ROLE)) if index.isValid() else None

    def _on_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.trajectory_selected.emit(int(current.data(PK_ROLE)))

    def _fit_columns_once(self) -> None:
        if self._widths_fitted or self.model.rowCount() == 0:
            return
        self._widths_fitted = True
        header = self.view.horizontalHeader()
        for column, chars in _MAX_FIT_CHARS.items():
            if column == COL_EXPECTED:
                continue  # the last section stretches
            self.view.resizeColumnToContents(column)
            header.resizeSection(column, min(header.sectionSize(column) + 8, chars * self._char + 16))

    def _update_counts(self, total: int) -> None:
        self._fit_columns_once()
        flt = self.model.filter
        if self.model.loading:  # the first page is read off the GUI thread: say so, not "no trajectories"
            self.count_label.setText("loading…")
            self.empty_label.setText("Loading trajectories…")
            self.stack.setCurrentWidget(self.empty_label)
            return
        filtered = bool(flt.text or flt.corpus)
        noun = "trajectory" if total == 1 else "trajectories"
        self.count_label.setText(f"{total:,} {noun}" + (" match" if filtered and flt.text else ""))
        if total:
            self.stack.setCurrentWidget(self.view)
            return
        if flt.text:
            self.empty_label.setText(f"No trajectories match “{flt.text}”.")
        elif flt.corpus:
            self.empty_label.setText("This corpus has no trajectories (it may hold rules only).")
        else:
            self.empty_label.setText(
                "This store has no trajectories yet.\n\nFile ▸ Import corpus folder…  (Ctrl+I)"
            )
        self.stack.setCurrentWidget(self.empty_label)

    # -- settings ----------------------------------------------------------------------
    def header_state(self) -> QByteArray:
        return self.view.horizontalHeader().saveState()

    def restore_header_state(self, state: QByteArray | None) -> None:
        if state and self.view.horizontalHeader().restoreState(state):
            self._widths_fitted = True
