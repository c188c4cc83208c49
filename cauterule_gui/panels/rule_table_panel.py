"""The rules table with its filter bar (verdict, reason, domain, corpus, status, text).

Filters go to the model, which asks the repository (SQL). The panel keeps the reviewer's
place: refreshes re-select the current rule by id, and ``advance`` moves to the rule that
followed the decided one even when the decided rule leaves a filtered list. The filter bar
(its combo boxes, the debounced text, the filter's state) is ``rule_filters.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.store.result_repo import ResultRepository
from core.store.workspace_query import WorkspaceRule, WorkspaceScope

from cauterule_gui.column_fit import ColumnFit
from cauterule_gui.models import rule_table_model as cols
from cauterule_gui.models.rule_table_model import ROW_ROLE, RuleTableModel
from cauterule_gui.panels.rule_filters import RuleFilters
from cauterule_gui.panels.rule_table_widths import FIXED_SAMPLES, FLEXIBLE
from cauterule_gui.plain_text import plain_label

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor


class RuleTablePanel(RuleFilters, QWidget):
    rule_selected = Signal(object)  # WorkspaceRule | None
    show_latest_requested = Signal()

    def __init__(self, model: RuleTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self._repo: ResultRepository | None = None
        self.replaying = False

        self._build_filters()

        self.scope_label = plain_label("", self)
        self.scope_label.setObjectName("scopeLabel")
        self.latest_button = QPushButton("Show newest per rule", self)
        self.latest_button.setAccessibleName("Show the newest result of every rule")
        self.latest_button.clicked.connect(self.show_latest_requested.emit)
        self.progress_label = plain_label("", self)
        self.progress_label.setObjectName("reviewProgress")

        self.view = QTableView(self)
        self.view.setObjectName("ruleTable")
        self.view.setAccessibleName("Rules")
        self.view.setModel(model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setHighlightSections(False)
        self.column_fit = ColumnFit(self.view, FIXED_SAMPLES, FLEXIBLE)  # elides in the middle
        self.column_fit.elide_left(cols.COL_ORIGIN)  # a rule file's name is at its end
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)

        filters = QHBoxLayout()
        filters.setContentsMargins(0, 0, 0, 0)
        filters.addWidget(self.text_edit, 1)
        for combo in (self.verdict_combo, self.reason_combo, self.domain_combo, self.corpus_combo,
                      self.status_combo):
            filters.addWidget(combo)
        scope = QHBoxLayout()
        scope.setContentsMargins(0, 0, 0, 0)
        scope.addWidget(self.scope_label)
        scope.addWidget(self.latest_button)
        scope.addStretch(1)
        scope.addWidget(self.progress_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(scope)
        layout.addLayout(filters)
        layout.addWidget(self.view)

        self.view.selectionModel().currentRowChanged.connect(self._on_current_row_changed)
        model.modelReset.connect(self._update_labels)
        # Rows arrive by signal once the window gives the model its executor: the place to
        # re-select after a refresh is kept here until they are in.
        self._db: DatabaseExecutor | None = None
        self._after_load: tuple[Callable[[], None], int | None] | None = None  # (then, rule shown when asked)
        self._before_reset: tuple[int | None, int] = (None, -1)  # the rule and row shown before a reset
        self._moves, self._auto = 0, False  # moves to a rule other than a refresh's re-selection (``_auto``)
        # Asked before the first page arrived (session, "show in Review"): (rule, not_found, moves then).
        self._first_select: tuple[int, Callable[[], None] | None, int] | None = None
        model.modelAboutToBeReset.connect(
            lambda: setattr(self, "_before_reset", (self.current_rule_id(), self.view.currentIndex().row())))
        model.loaded.connect(self._on_loaded)
        # Duplicate groups: → / ← expand and collapse the current group; a double click toggles.
        self.view.installEventFilter(self)
        self.view.doubleClicked.connect(lambda index: self.toggle_group(index.row()))

    def set_executor(self, db: DatabaseExecutor | None) -> None:
        """Rows and filter choices are read off the GUI thread through ``db`` from now on."""
        self._db = db
        self.model.set_executor(db)

    def _on_loaded(self) -> None:
        after, self._after_load = self._after_load, None
        moved = after is not None and after[1] != self._before_reset[0]
        if after is not None and not moved:
            after[0]()
        elif self._before_reset[0] is not None:
            # A refresh nobody waited for (the reviewer changed, a store refresh), or the reviewer
            # moved to another rule while the rows were read: stay where they are now.
            keep, row = self._before_reset
            self._reselect(keep, row if row >= 0 else None)
        wanted, self._first_select = self._first_select, None
        if wanted is not None and wanted[2] == self._moves:
            self.select_rule(wanted[0], wanted[1])

    def _refresh_then(self, then: Callable[[], None], change: Callable[[], None]) -> None:
        """Run ``change`` (which refreshes the model) and ``then`` once its rows are in."""
        self._after_load = (then, self.current_rule_id())
        loads = self.model.loaded
        fired: list[bool] = []
        loads.connect(marker := lambda: fired.append(True))
        try:
            change()
        finally:
            loads.disconnect(marker)
        if not fired and not self.model.busy:
            self._on_loaded()  # nothing changed, nothing reloaded: re-select now

    # -- repository and scope ----------------------------------------------------------
    def set_repository(self, repo: ResultRepository | None) -> None:
        self._repo = repo
        self.model.set_repository(repo)
        self._update_labels()  # "loading rules…" while the first page is read
        if self.model.loading:  # the rows first: the filter choices once they are in
            self.model.loaded.connect(self.refresh_options, Qt.ConnectionType.SingleShotConnection)
        else:
            self.refresh_options()

    def set_scope(self, scope: WorkspaceScope) -> None:
        keep = self.current_rule_id()
        row = self.view.currentIndex().row()
        self._refresh_then(lambda: self._reselect(keep, row if row >= 0 else None),
                           lambda: self.model.set_scope(scope))
        self.refresh_options()

    # -- duplicate groups ----------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is self.view and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.modifiers() == Qt.KeyboardModifier.NoModifier:
            row = self.view.currentIndex().row()
            if event.key() == Qt.Key.Key_Right and self.model.is_group(row):
                self.model.expand(row)
                return True
            if event.key() == Qt.Key.Key_Left and (self.model.is_expanded(row) or self.model.is_member(row)):
                self.collapse_group(row)
                return True
        return super().eventFilter(watched, event)

    def toggle_group(self, row: int) -> None:
        (self.collapse_group if self.model.is_expanded(row) else self.model.expand)(row)  # expand: groups only

    def collapse_group(self, row: int) -> None:
        """Collapse the group of ``row``; the selection moves to the group's row."""
        if self.model.collapse(head := self.model.group_row(row)):
            self.select_row(head)

    # -- selection ---------------------------------------------------------------------
    def current_rule(self) -> WorkspaceRule | None:
        index = self.view.currentIndex()
        value = index.data(ROW_ROLE) if index.isValid() else None
        return value if isinstance(value, WorkspaceRule) else None

    def current_rule_id(self) -> int | None:
        rule = self.current_rule()
        return rule.rule_id if rule else None

    def selected_rows(self) -> list[int]:
        return sorted({i.row() for i in self.view.selectionModel().selectedRows()})

    def selected_rule_ids(self) -> list[int]:
        """The selected rules (a collapsed group: its members once read, ``with_selected_rule_ids``)."""
        ids = [r.rule_id for r in self.model.rules_of_rows(self.selected_rows())]
        current = self.current_rule_id()
        return ids or ([current] if current is not None else [])

    def with_selected_rule_ids(self, then: Callable[[list[int]], object]) -> None:
        """``then(ids)`` once the members of the selected collapsed groups are read (off the GUI thread)."""
        self.model.with_members(self.selected_rows, lambda: then(self.selected_rule_ids()))

    def select_row(self, row: int) -> None:
        if 0 <= row < self.model.rowCount():
            index = self.model.index(row, 0)
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            self.view.selectionModel().setCurrentIndex(index, flags)
            self.view.scrollTo(index)

    def select_rule(self, rule_id: int, not_found: Callable[[], None] | None = None, *, located: bool = False) -> bool:
        """Select the rule; True when it is selected now. A rule not shown is looked up in its
        duplicate group (one read off the GUI thread; a collapsed group expands), then in the
        next pages as they arrive (selected then, or ``not_found`` called)."""
        if self.model.loading:  # nothing read yet: with the first page (the latest ask wins)
            self._first_select = (rule_id, not_found, self._moves)
            return False
        row = self.model.row_of_rule(rule_id)
        if row is not None:
            self.select_row(row)
            return True
        if not located:
            selected: list[bool] = []
            asked = self._moves  # a move meanwhile (not a refresh re-selecting) drops the answer
            if self.model.locate(rule_id, lambda: selected.append(
                    self._moves == asked and self.select_rule(rule_id, not_found, located=True))):
                return bool(selected and selected[0])  # True only when read at once (no executor)
        if not self.model.fetch_more_then(lambda: self.select_rule(rule_id, not_found, located=True)) \
                and not_found is not None:
            not_found()
        return False

    def move(self, step: int) -> None:
        row = self.view.currentIndex().row()
        target = 0 if row < 0 else row + step
        if target >= self.model.rowCount() and self.model.fetch_more_then(lambda: self._select_if(target)):
            return
        self._select_if(target)

    def _select_if(self, target: int) -> None:
        if 0 <= target < self.model.rowCount():
            self.select_row(target)

    def refresh(self, *, advance_from: int | None = None, select: int | None = None) -> None:
        """Reload rows; keep the current rule, or (``advance_from``) move past that rule, or
        (``select``) go to that rule once the rows are in."""
        current = self.view.currentIndex().row()
        keep = self.current_rule_id() if select is None else select
        next_id = None
        if advance_from is not None:
            following = self.model.rule(current + 1) if current >= 0 else None
            next_id = following.rule_id if following is not None else None
            keep = None
        if advance_from is not None and next_id is None:
            # The decided rule was the last one: stay on it (or on the row that took its place).
            self._refresh_then(lambda: self._reselect(advance_from, current), self.model.refresh)
            return
        target = next_id if advance_from is not None else keep
        self._refresh_then(lambda: self._reselect(target, current), self.model.refresh)

    def _reselect(self, rule_id: int | None, fallback_row: int | None) -> None:
        # A refresh re-reads every row that was shown, so a kept rule is found without paging.
        self._auto = True
        try:
            if rule_id is not None and self.model.row_of_rule(rule_id) is not None:
                self.select_rule(rule_id)
            elif fallback_row is not None and self.model.rowCount():
                self.select_row(min(max(fallback_row, 0), self.model.rowCount() - 1))
            elif not self.model.rowCount():
                self.rule_selected.emit(None)
        finally:
            self._auto = False

    def _on_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._moves += current.isValid() and not self._auto
        value = current.data(ROW_ROLE) if current.isValid() else None
        self.rule_selected.emit(value if isinstance(value, WorkspaceRule) else None)

    def _update_labels(self) -> None:
        scope = self.model.scope
        if scope.run_id is None:
            text = "Showing the newest result of every rule" + (" (a replay is running)" if scope.live_run_ids else "")
        else:
            text = f"Showing replay run #{scope.run_id} only"
        self.scope_label.setText(text)
        self.latest_button.setVisible(scope.run_id is not None)
        if self._repo is None:
            self.progress_label.setText("")
            return
        total = self.model.rule_total  # rules, not rows: a group row stands for several
        if self.model.loading:
            self.progress_label.setText("loading rules…")
        elif total == 0 and self.replaying:
            self.progress_label.setText("replay running: rules appear here as each one finishes")
        else:
            self.progress_label.setText(f"{total - self.model.unreviewed:,} / {total:,} reviewed")

    def set_replaying(self, running: bool) -> None:
        """A replay started or ended: an empty table says it is waiting for it, not "0 / 0"."""
        self.replaying = running
        self._update_labels()

    # -- settings ----------------------------------------------------------------------
    def header_state(self) -> QByteArray:
        """The reviewer's column widths; empty while the columns still fit themselves."""
        if not self.column_fit.user_resized:
            return QByteArray()
        return self.view.horizontalHeader().saveState()

    def restore_header_state(self, state: QByteArray | None) -> None:
        if state:
            self.view.horizontalHeader().restoreState(state)
            self.column_fit.keep_user_widths()
