"""Fit a table's columns to the width it actually has, so every column is on screen.

Fixed columns (numbers, verdicts, short words) get the width their header and a sample
value need; the text columns (trigger, directive, ids) share what is left by weight, never
below a floor. Long text in them is elided in the middle (both the start and the end of a
trigger or a trajectory id stay readable) and the full text is in the tooltip and the
detail pane. The fit is redone when the view is resized, until the reviewer drags a
column edge: from then on their widths are kept (and saved with the header state).

A table with more columns than a 1280 px window holds whole can name columns that give way
(``give_way``, in order): while the text columns would get less than their floor, those are
hidden, one by one. The header's context menu (``offer_column_menu``) shows or hides any
column; the reviewer's choice is kept over the fit (``choices``, saved by ``session_state``),
and **Fit columns to the window** hands the columns back to the fit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtWidgets import QHeaderView, QMenu, QStyledItemDelegate, QStyleOptionViewItem, QTableView

PADDING = 12  # cell margins (16 columns share 1280 px: every pixel counts)


class ElideLeftDelegate(QStyledItemDelegate):
    """For paths (rule files, corpora): the end, where the name is, stays readable."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: object) -> None:  # noqa: N802 (Qt name)
        super().initStyleOption(option, index)  # type: ignore[arg-type]
        option.textElideMode = Qt.TextElideMode.ElideLeft


class ColumnFit(QObject):
    """``ColumnFit(view, fixed={col: "sample text"}, flexible={col: (weight, min_chars)}, give_way=(col, ...))``."""

    def __init__(self, view: QTableView, fixed: Mapping[int, str], flexible: Mapping[int, tuple[float, int]],
                 give_way: Sequence[int] = ()) -> None:
        super().__init__(view)
        self._view = view
        self.view = view
        self._fixed = dict(fixed)
        self._flexible = dict(flexible)
        self._give_way = tuple(give_way)
        self._locked: frozenset[int] = frozenset()
        self.chosen: dict[int, bool] = {}  # column -> shown, the reviewer's own choice (header menu)
        self.gave_way: list[int] = []  # the give-way columns the last fit hid
        self._fitting = False
        self.user_resized = False
        header = view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(24)
        view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header.sectionResized.connect(self._on_section_resized)
        view.viewport().installEventFilter(self)
        self.fit()

    def offer_column_menu(self, *locked: int) -> None:
        """Right-clicking the header lists every column to show or hide (``locked`` ones stay)."""
        self._locked = frozenset(locked)
        header = self._view.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._show_column_menu)

    def column_menu(self) -> QMenu:
        menu = QMenu(self._view)
        header = self._view.horizontalHeader()
        for column in range(header.count()):
            title = self.title(column)
            action = menu.addAction(title + (" (no room: hidden by the fit)" if column in self.gave_way else ""))
            action.setCheckable(True)
            action.setChecked(not header.isSectionHidden(column))
            action.setEnabled(column not in self._locked)
            action.toggled.connect(lambda shown, c=column: self.choose(c, shown))
        menu.addSeparator()
        menu.addAction("Fit columns to the window", self.reset)
        return menu

    def _show_column_menu(self, pos: QPoint) -> None:
        menu = self.column_menu()
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # one menu a right-click, not one more child each
        menu.popup(self._view.horizontalHeader().mapToGlobal(pos))

    def choose(self, column: int, shown: bool) -> None:
        """The reviewer shows or hides a column: kept over the fit, at every width."""
        self.chosen[column] = shown
        self._view.horizontalHeader().setSectionHidden(column, not shown)
        if not self.user_resized:
            self.fit()

    def reset(self) -> None:
        """Back to the fit: every width and every give-way column follows the window again."""
        for column in [*self.chosen, *self._give_way]:
            self._view.horizontalHeader().setSectionHidden(column, False)
        self.chosen.clear()
        self.user_resized = False
        self.fit()

    def title(self, column: int) -> str:
        model = self._view.model()
        return str(model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole) or "")

    def choices(self) -> dict[str, bool]:
        """The reviewer's show / hide choices by column title (what ``session_state`` saves)."""
        return {self.title(column): shown for column, shown in self.chosen.items()}

    def restore_choices(self, choices: Mapping[str, bool]) -> None:
        by_title = {self.title(column): column for column in range(self._view.horizontalHeader().count())}
        for title, shown in choices.items():
            if title in by_title and by_title[title] not in self._locked:
                self.chosen[by_title[title]] = bool(shown)
                self._view.horizontalHeader().setSectionHidden(by_title[title], not shown)
        if not self.user_resized:
            self.fit()

    def elide_left(self, *columns: int) -> None:
        delegate = ElideLeftDelegate(self._view)
        for column in columns:
            self._view.setItemDelegateForColumn(column, delegate)

    def keep_user_widths(self) -> None:
        """A saved header state was restored: those widths are the reviewer's, not ours."""
        self.user_resized = True

    def _on_section_resized(self, _index: int, _old: int, _new: int) -> None:
        if not self._fitting and self._view.isVisible():
            self.user_resized = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and not self.user_resized:
            self.fit()
        return False

    def header_width(self, column: int) -> int:
        return self._view.horizontalHeader().fontMetrics().horizontalAdvance(self.title(column)) + PADDING

    def fixed_width(self, column: int) -> int:
        sample = self._view.fontMetrics().horizontalAdvance(self._fixed[column]) + PADDING
        return max(self.header_width(column), sample)

    def floor(self, column: int) -> int:
        """A text column's least width: its header, or its floor in characters."""
        chars = self._flexible[column][1]
        return max(self.header_width(column), self._view.fontMetrics().averageCharWidth() * chars + PADDING)

    def least_width(self, column: int) -> int:
        return self.fixed_width(column) if column in self._fixed else self.floor(column)

    def _make_room(self, available: int) -> None:
        """Hide the give-way columns (in order, none the reviewer chose) while the shown ones
        need more than ``available``; show them again when there is room."""
        header = self._view.horizontalHeader()
        for column in self._give_way:
            if column not in self.chosen:
                header.setSectionHidden(column, False)
        self.gave_way = []
        sized = [*self._fixed, *self._flexible]
        needed = sum(self.least_width(c) for c in sized if not header.isSectionHidden(c))
        for column in self._give_way:
            if needed <= available:
                break
            if column in self.chosen or header.isSectionHidden(column):
                continue
            header.setSectionHidden(column, True)
            self.gave_way.append(column)
            needed -= self.least_width(column)

    def fit(self) -> None:
        header = self._view.horizontalHeader()
        self._fitting = True
        try:
            available = self._view.viewport().width()
            if self._give_way:
                self._make_room(available)
            used = 0
            for column in self._fixed:
                if not header.isSectionHidden(column):
                    width = self.fixed_width(column)
                    header.resizeSection(column, width)
                    used += width
            flexible = {c: v for c, v in self._flexible.items() if not header.isSectionHidden(c)}
            floors = {c: self.floor(c) for c in flexible}
            spare = max(0, available - used - sum(floors.values()))
            total_weight = sum(weight for weight, _chars in flexible.values()) or 1.0
            for column, (weight, _chars) in flexible.items():
                header.resizeSection(column, floors[column] + int(spare * weight / total_weight))
        finally:
            self._fitting = False
