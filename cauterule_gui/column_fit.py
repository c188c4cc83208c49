"""Fit a table's columns to the width it actually has, so every column is on screen.

Fixed columns (numbers, verdicts, short words) get the width their header and a sample
value need; the text columns (trigger, directive, ids) share what is left by weight, never
below a floor. Long text in them is elided in the middle (both the start and the end of a
trigger or a trajectory id stay readable) and the full text is in the tooltip and the
detail pane. The fit is redone when the view is resized, until the reviewer drags a
column edge: from then on their widths are kept (and saved with the header state).
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QHeaderView, QStyledItemDelegate, QStyleOptionViewItem, QTableView

PADDING = 12  # cell margins (16 columns share 1280 px: every pixel counts)


class ElideLeftDelegate(QStyledItemDelegate):
    """For paths (rule files, corpora): the end, where the name is, stays readable."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: object) -> None:  # noqa: N802 (Qt name)
        super().initStyleOption(option, index)  # type: ignore[arg-type]
        option.textElideMode = Qt.TextElideMode.ElideLeft


class ColumnFit(QObject):
    """``ColumnFit(view, fixed={col: "sample text"}, flexible={col: (weight, min_chars)})``."""

    def __init__(self, view: QTableView, fixed: Mapping[int, str], flexible: Mapping[int, tuple[float, int]]) -> None:
        super().__init__(view)
        self._view = view
        self.view = view
        self._fixed = dict(fixed)
        self._flexible = dict(flexible)
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
        model = self._view.model()
        text = str(model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole) or "")
        return self._view.horizontalHeader().fontMetrics().horizontalAdvance(text) + PADDING

    def fixed_width(self, column: int) -> int:
        sample = self._view.fontMetrics().horizontalAdvance(self._fixed[column]) + PADDING
        return max(self.header_width(column), sample)

    def fit(self) -> None:
        header = self._view.horizontalHeader()
        metrics = self._view.fontMetrics()
        self._fitting = True
        try:
            available = self._view.viewport().width()
            used = 0
            for column in self._fixed:
                if not header.isSectionHidden(column):
                    width = self.fixed_width(column)
                    header.resizeSection(column, width)
                    used += width
            flexible = {c: v for c, v in self._flexible.items() if not header.isSectionHidden(c)}
            floors = {c: max(self.header_width(c), metrics.averageCharWidth() * chars + PADDING)
                      for c, (_w, chars) in flexible.items()}
            spare = max(0, available - used - sum(floors.values()))
            total_weight = sum(weight for weight, _chars in flexible.values()) or 1.0
            for column, (weight, _chars) in flexible.items():
                header.resizeSection(column, floors[column] + int(spare * weight / total_weight))
        finally:
            self._fitting = False
