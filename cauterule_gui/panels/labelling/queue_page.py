"""Labelling's queue: the filters and the lazy list of trajectories, and moving through it."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QLineEdit,
    QTableView,
)

from core.domain.labels import LabelFilter

from cauterule_gui.column_fit import ColumnFit
from cauterule_gui.models import label_data
from cauterule_gui.models.label_queue_model import COL_ID, COL_LABELS, COL_MINE, LabelQueueModel
from cauterule_gui.panels.label_progress import LabelProgress
from cauterule_gui.panels.labelling.common import (
    STATUSES,
)
from cauterule_gui.plain_text import plain_label


class QueuePage:
    """The queue (filters and list) of ``LabellingPanel`` (a mixin: the widgets live on the panel)."""

    def _build_filters(self) -> None:
        self.corpus_combo = QComboBox(self)
        self.corpus_combo.setObjectName("labelCorpus")
        self.corpus_combo.setAccessibleName("Corpus")
        self.corpus_combo.addItem("All corpora", None)
        self.status_combo = QComboBox(self)
        self.status_combo.setObjectName("labelStatus")
        self.status_combo.setAccessibleName("Label filter")
        for key, text in STATUSES:
            self.status_combo.addItem(text, key)
        self.domain_combo = QComboBox(self)
        self.domain_combo.setObjectName("labelDomain")
        self.domain_combo.setAccessibleName("Domain")
        self.domain_combo.addItem("All domains", None)
        self.search = QLineEdit(self)
        self.search.setObjectName("labelSearch")
        self.search.setAccessibleName("Search trajectories")
        self.search.setPlaceholderText("id, task or failure class")
        self.search.setClearButtonEnabled(True)
        for combo in (self.corpus_combo, self.status_combo, self.domain_combo):
            combo.currentIndexChanged.connect(lambda _i: self.reload())
        self.search.textChanged.connect(lambda _t: self._filter_timer.start())
        self.count_label = plain_label("", self)
        self.count_label.setObjectName("labelCount")
        self.progress = LabelProgress(lambda: self.db, lambda: self.reviewer, self)

    def _build_list(self) -> None:
        self.model = LabelQueueModel(self)
        self.model.fetch_requested.connect(self._fetch_page)
        self.view = QTableView(self)
        self.view.setObjectName("labelQueue")
        self.view.setAccessibleName("Trajectories to label")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(False)
        self.view.setTabKeyNavigation(False)  # Tab leaves the queue (to the When field), never walks cells
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        # Headers never clipped ("My label"); ids and labels elided in the middle.
        self.column_fit = ColumnFit(self.view, {1: "python", 2: "✓ success", COL_LABELS: "2 ⚖"},
                                    {COL_ID: (2.0, 12), COL_MINE: (2.0, 8)})
        self.view.selectionModel().currentRowChanged.connect(self._on_current_row)

    def _on_choices(self, choices: label_data.FilterChoices) -> None:
        self._latest_run = choices.latest_run
        self._corpora = choices.corpora
        for combo, values in ((self.corpus_combo, choices.corpora), (self.domain_combo, choices.domains)):
            current = combo.currentData()
            combo.blockSignals(True)
            while combo.count() > 1:
                combo.removeItem(1)
            for value in values:
                combo.addItem(value, value)
            found = combo.findData(current) if current is not None else 0
            combo.setCurrentIndex(max(found, 0))
            combo.blockSignals(False)
        self.reload()
        if self.tabs.currentIndex() == 2:
            self.compute_accuracy()

    def current_filter(self) -> LabelFilter:
        return LabelFilter(corpus=self.corpus_combo.currentData(), domain=self.domain_combo.currentData(),
                           status=str(self.status_combo.currentData()), text=self.search.text().strip())

    def set_filter(self, corpus: str | None = None, status: str = "all", domain: str | None = None,
                   text: str = "") -> None:
        for combo, value in ((self.corpus_combo, corpus), (self.status_combo, status), (self.domain_combo, domain)):
            combo.blockSignals(True)
            combo.setCurrentIndex(max(combo.findData(value), 0))
            combo.blockSignals(False)
        self.search.blockSignals(True)
        self.search.setText(text)
        self.search.blockSignals(False)
        self.reload()

    def reload(self) -> None:
        self._filter_timer.stop()
        flt, reviewer = self.current_filter(), self.reviewer
        handle = self._db(lambda store: label_data.queue_page(store, reviewer, flt, 0), "label queue",
                          key=f"labels-queue:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_first_page)
            handle.error.connect(self._failed("Could not list the trajectories"))

    def _on_first_page(self, page: label_data.QueuePage) -> None:
        self.update_progress()
        keep = self._want_pk if self._want_pk is not None else self._pk
        self.model.reset_rows(page.rows, page.total or 0)
        self._update_count()
        row = self.model.row_of(keep) if keep is not None else None
        if row is None and self.model.rowCount() and self._pk is None:
            row = 0
        if row is not None:
            self._select_row(row)

    def _fetch_page(self, offset: int) -> None:
        flt, reviewer, generation = self.current_filter(), self.reviewer, self.model.generation
        handle = self._db(lambda store: label_data.queue_page(store, reviewer, flt, offset), "label queue page")
        if handle is None:
            self.model.fetch_failed()
            return
        handle.result.connect(lambda page: (self.model.append_page(page.offset, page.rows, generation),
                                            self._update_count()))
        handle.error.connect(lambda _f: self.model.fetch_failed())

    def _update_count(self) -> None:
        shown, total = self.model.rowCount(), self.model.total
        self.count_label.setText(f"{total} trajector{'y' if total == 1 else 'ies'}"
                                 + (f" ({shown} loaded)" if shown < total else ""))

    def _select_row(self, row: int) -> None:
        index = self.model.index(row, 0)
        self.view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(index)

    def select_trajectory(self, pk: int) -> None:
        """Show a trajectory (selecting it when it is in the list)."""
        row = self.model.row_of(pk)
        if row is not None:
            self._select_row(row)
        else:
            self.save_now()
            self._load(pk)

    def current_pk(self) -> int | None:
        """The trajectory being labelled (resume restores it)."""
        return self._pk

    def move(self, step: int) -> None:
        """Next / previous trajectory; the label is saved first (the DB pool runs jobs in order)."""
        current = self.view.currentIndex().row()
        row = current + step if current >= 0 else 0
        if row >= self.model.rowCount() and self.model.canFetchMore():
            self.model.fetchMore()
        if 0 <= row < self.model.rowCount():
            self._select_row(row)
        else:
            self.save_now()
            self.status_message.emit("End of the list" if step > 0 else "Start of the list")

    def save_and_next(self) -> None:
        """Save and go to the next trajectory; focus goes to the queue, where `?` is help and
        single keys type nothing (Enter or Tab there returns to the When field)."""
        self.save_now()
        if self._unconfirmed is not None and self.is_dirty():
            self.status_message.emit(self._unconfirmed.lstrip("● "))
            return  # a stray-key label stays on screen until confirmed (Ctrl+S) or changed
        self.move(1)
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    def _on_current_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        item = self.model.row_at(current.row()) if current.isValid() else None
        if item is None or item.trajectory_pk == self._pk:
            return
        self.save_now()  # the label being left is saved before the next one is read
        self._load(item.trajectory_pk)
